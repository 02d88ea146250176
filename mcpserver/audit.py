"""The audit log: one ToolCall row per tool call, written off the request path.

`run_search` hands every finished call to an observer that only puts a record on a bounded
queue (AUDIT_QUEUE_SIZE): when the queue is full the record is dropped and counted, so a
slow or locked database never slows an agent down. One background thread takes the queue
in batches (what arrives within BATCH_WINDOW_SEC of a call), writes them with bulk_create,
and also writes the agent keys' last_used_at.

With AUDIT_WAIT_SEC, the observer also hands run_search a future that the writer resolves
once the call's row is written (or AUDIT_WAIT_SEC has passed): the answer leaves after its
row is in the table, so a process killed with SIGKILL loses no row of a call its client saw
answered. The writer then takes what is queued at once (DURABLE_WINDOW_SEC): calls finishing
together still share one insert, and a batch grows with the load while the previous one is
written.
Each row names the process (host:pid) that wrote it.
The server's lifespan starts the thread and, at shutdown, lets it write what is queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import queue
import socket
import threading
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone
from pydantic_core import to_jsonable_python

from vmkproject import metrics, telemetry

from . import keys, runner
from .models import ToolCall

logger = logging.getLogger("vmk.mcp")

ANONYMOUS = "anonymous"
ARGUMENTS_MAX_CHARS = 4000
BATCH_SIZE = 500
FLUSH_INTERVAL_SEC = 1.0
BATCH_WINDOW_SEC = 0.5
# The gathering window when answers wait for their rows (AUDIT_WAIT_SEC > 0): none. The
# calls answered in one turn of the event loop are all queued before the writer thread gets
# the GIL, and under load a batch grows while the one before is written. A 10 ms window made
# every get wait 22 ms instead of 7 (its row now costs the answer 0.8 ms).
DURABLE_WINDOW_SEC = 0.0
STOP_TIMEOUT_SEC = 15.0
IDLE_RECONNECT_SEC = 30.0
WARN_EVERY_SEC = 60.0


def process_name() -> str:
    """host:pid of this server process, as the audit rows name it."""
    return f"{socket.gethostname()}:{os.getpid()}"[:100]


def _resolve(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)


def clip_arguments(arguments: dict[str, Any]) -> Any:
    """The arguments as JSON; past ARGUMENTS_MAX_CHARS, the start of their JSON text."""
    data = to_jsonable_python(arguments, exclude_none=True, fallback=str)
    text = json.dumps(data, ensure_ascii=False)
    if len(text) <= ARGUMENTS_MAX_CHARS:
        return data
    return {"truncated": True, "json": text[:ARGUMENTS_MAX_CHARS]}


class AuditLog:
    """A bounded queue of call records and the thread that writes them."""

    def __init__(self, maxsize: int, *, wait_sec: float = 0.0) -> None:
        self.queue: queue.Queue[ToolCall] = queue.Queue(maxsize=max(maxsize, 1))
        # > 0: each observed call waits (at most this long) for its row to be written.
        self.wait_sec = max(wait_sec, 0.0)
        self.window = DURABLE_WINDOW_SEC if self.wait_sec else BATCH_WINDOW_SEC
        self.process = process_name()
        self.dropped = 0
        self.written = 0
        self.failed = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned_at = -math.inf
        self._used_at = -math.inf

    def observe(self, record: dict[str, Any]) -> asyncio.Future[None] | None:
        """Queue a finished run_search call (the observer hooked into mcpserver.runner).

        With wait_sec, on the event loop: a future resolved once the row is written, or
        failed to be, or after wait_sec; run_search awaits it before the answer leaves."""
        with telemetry.span("audit.enqueue"):
            return self._submit_record(record)

    def _submit_record(self, record: dict[str, Any]) -> asyncio.Future[None] | None:
        call = ToolCall(
            time=timezone.now(),
            key_name=record.get("agent") or ANONYMOUS,
            tool=record["tool"],
            # Serialised by the writer thread, not here on the request path.
            arguments=record.get("arguments") or {},
            rows=record.get("rows") or 0,
            latency_ms=round(float(record.get("latency_ms") or 0), 2),
            error_code=record.get("error_code") or "",
            process=self.process,
        )
        done = self._waiter()
        if done is not None:
            call._vmk_written = done  # type: ignore[attr-defined]
        if not self.submit(call):
            return None
        return done

    def _waiter(self) -> asyncio.Future[None] | None:
        if not self.wait_sec:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called off an event loop: nothing can wait
            return None
        done: asyncio.Future[None] = loop.create_future()
        loop.call_later(self.wait_sec, _resolve, done)
        return done

    def submit(self, call: ToolCall) -> bool:
        """Queue a call without waiting; False when the queue was full and it was dropped."""
        try:
            self.queue.put_nowait(call)
        except queue.Full:
            with self._lock:
                self.dropped += 1
                dropped = self.dropped
            metrics.AUDIT_ROWS.labels("dropped").inc()
            self._warn("audit log queue full: %d records dropped so far", dropped)
            return False
        return True

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="vmk-audit-log", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = STOP_TIMEOUT_SEC) -> None:
        """Write what is queued, then end the thread."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self.dropped or self.failed:
            logger.warning(
                "audit log: %d calls written, %d dropped (queue full), %d lost (write failed)",
                self.written,
                self.dropped,
                self.failed,
            )

    def _run(self) -> None:
        try:
            while not (self._stopping.is_set() and self.queue.empty()):
                batch = self._take_batch()
                try:
                    self.write(batch)
                finally:
                    _release(batch)
        finally:
            connections["default"].close()

    def _take_batch(self) -> list[ToolCall]:
        try:
            batch = [self.queue.get(timeout=FLUSH_INTERVAL_SEC)]
        except queue.Empty:
            return []
        # Let the calls of the next window gather, then write them in one insert: half a
        # second when nothing waits (a write per call would take the GIL from the request
        # threads every time), none when answers wait for their rows.
        self._stopping.wait(self.window)
        while len(batch) < BATCH_SIZE:
            try:
                batch.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def write(self, batch: list[ToolCall]) -> None:
        """Insert the batch and the keys' last use. The thread keeps its connection between
        batches (opening one for each cost a call 0.8 ms of its wait); one that failed, or
        sat idle for IDLE_RECONNECT_SEC (a server or pooler may have dropped it), is closed
        and the next write opens another."""
        if batch:  # (a key's last use comes with its call's row)
            now = time.monotonic()
            if now - self._used_at > IDLE_RECONNECT_SEC:
                connections["default"].close()
            self._used_at = now
        try:
            if batch:
                for call in batch:
                    call.arguments = clip_arguments(call.arguments)
                ToolCall.objects.bulk_create(batch)
                self.written += len(batch)
                metrics.AUDIT_ROWS.labels("written").inc(len(batch))
            keys.flush_last_used()
        except DatabaseError:
            self.failed += len(batch)
            metrics.AUDIT_ROWS.labels("failed").inc(len(batch))
            self._warn("audit log: could not write %d calls", len(batch), exc_info=True)
            connections["default"].close()

    def _warn(self, message: str, *args: Any, exc_info: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._warned_at < WARN_EVERY_SEC:
                return
            self._warned_at = now
        logger.warning(message, *args, exc_info=exc_info)


def _release(batch: list[ToolCall]) -> None:
    """Let the answers waiting for these rows go (written or not: they never fail a call)."""
    for call in batch:
        done = getattr(call, "_vmk_written", None)
        if done is None:
            continue
        with contextlib.suppress(RuntimeError):  # its event loop is closed
            done.get_loop().call_soon_threadsafe(_resolve, done)


_log: AuditLog | None = None


def _table_exists() -> bool:
    try:
        return ToolCall._meta.db_table in connections["default"].introspection.table_names()
    finally:
        connections["default"].close()


def start() -> AuditLog | None:
    """Start the writer thread and hook it into run_search (once the table exists)."""
    global _log
    if _log is not None:
        return _log
    try:
        exists = _table_exists()
    except DatabaseError:
        logger.exception("audit log is off: the default database is not reachable")
        return None
    if not exists:
        logger.warning("audit log is off: run `manage.py migrate` to create its table")
        return None
    _log = AuditLog(settings.AUDIT_QUEUE_SIZE, wait_sec=settings.AUDIT_WAIT_SEC)
    _log.start()
    runner.call_observers.append(_log.observe)
    return _log


def stop() -> None:
    global _log
    if _log is None:
        return
    with contextlib.suppress(ValueError):
        runner.call_observers.remove(_log.observe)
    _log.stop()
    _log = None


@contextlib.asynccontextmanager
async def running() -> AsyncIterator[None]:
    """The audit log for the lifetime of the server (used by the MCP lifespan)."""
    await sync_to_async(start, thread_sensitive=False)()
    try:
        yield
    finally:
        await sync_to_async(stop, thread_sensitive=False)()


def prune(*, older_than_days: int) -> int:
    """Delete calls older than `older_than_days` days; return how many."""
    cutoff = timezone.now() - timedelta(days=older_than_days)
    deleted, _ = ToolCall.objects.filter(time__lt=cutoff).delete()
    return deleted
