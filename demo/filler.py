"""The demo's background embedding filler (demo.background.fill_embeddings) as a process of
its own, started by `serve` and stopped with it.

In a thread of the server the filler shared the server's e5 engine, whose lock lets one
caller at a time: semantic search for a new query waited for the filler's batch, 492 ms at
the median during the fill against 39 ms with the filler in a process of its own (its own
model, at the lowest CPU priority); get_listing_by_id was 3–5 ms either way. This module
imports nothing of Django's at its top: the spawned process imports it to find its target,
and sets Django up first.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
from multiprocessing.process import BaseProcess
from typing import Any

logger = logging.getLogger("vmk.background")

# The filler process's niceness: the server's calls come first on a busy machine.
FILL_NICENESS = 19


class BackgroundFill:
    """One filler process per server; `stop()` asks it to finish its batch and waits."""

    def __init__(self) -> None:
        self._process: BaseProcess | None = None
        self._stop: Any = None
        self._lock = threading.Lock()

    def start(self, conninfo: dict[str, Any]) -> bool:
        """Start the process unless one runs; True when one was started. `conninfo` is
        psycopg's keyword arguments for the demo database."""
        with self._lock:
            if self._process is not None and self._process.is_alive():
                return False
            context = multiprocessing.get_context("spawn")
            self._stop = context.Event()
            self._process = context.Process(
                target=_fill_process,
                args=(conninfo, self._stop),
                name="vmk-embedding-fill",
                daemon=True,
            )
            self._process.start()
            with contextlib.suppress(OSError):  # the server's calls come first
                os.setpriority(os.PRIO_PROCESS, self._process.pid or 0, FILL_NICENESS)
            return True

    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def stop(self, timeout: float = 10.0) -> None:
        process = self._process
        if process is None:
            return
        self._stop.set()
        process.join(timeout)
        if process.is_alive():
            process.terminate()
            process.join(timeout)


def _fill_process(conninfo: dict[str, Any], stop: Any) -> None:
    """The filler process: the server's settings, its own embedder and connection."""
    # Ctrl-C reaches the whole process group: the server stops this process itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import django

    django.setup()
    import psycopg

    from listings.embedders import get_embedder
    from listings.errors import EmbeddingUnavailable

    from .background import fill_embeddings

    try:
        with psycopg.connect(**conninfo, autocommit=True) as conn:
            fill_embeddings(conn, get_embedder().embed_documents, stop=stop)
    except (psycopg.Error, EmbeddingUnavailable, PermissionError) as exc:
        # The server keeps serving; semantic search keeps saying how far it got.
        logger.warning("background embedding stopped: %s", type(exc).__name__)


filler = BackgroundFill()
