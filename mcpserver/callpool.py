"""A persistent, bounded pool of threads for the synchronous search calls of MCP requests.

asgiref's `sync_to_async` under a fresh ThreadSensitiveContext starts (and joins) an
executor thread per call: ~0.3 ms and two thread hand-offs on every tool call. These
threads live as long as the process, at most MCP_CALL_THREADS of them (calls beyond that
wait their turn in the executor's queue rather than pile onto the connection pool), and
each call runs in a copy of the caller's context, so context variables (the SQL comment's
tool and agent, the trace) reach the thread as they did through asgiref. Django's
per-request connection handling stays with the caller (mcpserver.runner closes old
connections around each call, returning the pooled connection).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from django.conf import settings

T = TypeVar("T")
THREAD_PREFIX = "vmk-call"

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def pool() -> ThreadPoolExecutor:
    """The process's call pool, made on first use with MCP_CALL_THREADS threads."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=max(int(settings.MCP_CALL_THREADS), 1),
                thread_name_prefix=THREAD_PREFIX,
            )
        return _pool


async def run(fn: Callable[..., T], /, *args: Any) -> T:
    """`fn(*args)` on a pool thread, in a copy of the current context."""
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool(), partial(context.run, fn, *args))


def shutdown() -> None:
    """Let the running calls finish and end the threads (the server's lifespan, tests)."""
    global _pool
    with _lock:
        current, _pool = _pool, None
    if current is not None:
        current.shutdown(wait=True)
