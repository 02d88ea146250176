"""One place for the thread pools of the numeric libraries the offline embedders run on.

OpenBLAS (numpy) and OpenMP start one thread per core for every matrix product; a server
that also runs PostgreSQL and several requests at once on 2 cores then oversubscribes them,
and a query embedding that takes ~8 ms alone takes 50-200 ms under load. EMBEDDER_THREADS
caps every such pool threadpoolctl finds loaded in the process (BLAS and OpenMP alike).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from threadpoolctl import threadpool_info, threadpool_limits

logger = logging.getLogger("vmk.embedders")


def limit_threads() -> Any:
    """Cap the loaded BLAS/OpenMP pools at EMBEDDER_THREADS (0: leave them as they are).

    Call it once the model's libraries are imported (a library loaded later starts with
    its own default). Returns threadpoolctl's limiter (its restore_original_limits() undoes
    it), or None when nothing is capped.
    """
    threads = int(settings.EMBEDDER_THREADS)
    if threads <= 0:
        return None
    limiter = threadpool_limits(limits=threads)
    logger.debug("embedder thread pools capped at %d: %s", threads, pool_sizes())
    return limiter


def pool_sizes() -> dict[str, int]:
    """Threads per loaded BLAS/OpenMP library, as threadpoolctl sees them."""
    return {pool["internal_api"]: int(pool["num_threads"]) for pool in threadpool_info()}
