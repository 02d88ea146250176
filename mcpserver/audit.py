"""The audit log: one ToolCall row per tool call, written off the request path.

`run_search` hands every finished call to an observer that only puts a record on a bounded
queue (AUDIT_QUEUE_SIZE): when the queue is full the record is dropped and counted, so a
slow or locked database never slows an agent down. One background thread takes the queue
in batches (what arrives within BATCH_WINDOW_SEC of a call), writes them with bulk_create,
and also writes the agent keys' last_used_at.
The server's lifespan starts the thread and, at shutdown, lets it write what is queued.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import queue
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
STOP_TIMEOUT_SEC = 15.0
WARN_EVERY_SEC = 60.0


def clip_arguments(arguments: dict[str, Any]) -> Any:
    """The arguments as JSON; past ARGUMENTS_MAX_CHARS, the start of their JSON text."""
    data = to_jsonable_python(arguments, exclude_none=True, fallback=str)
    text = json.dumps(data, ensure_ascii=False)
    if len(text) <= ARGUMENTS_MAX_CHARS:
        return data
    return {"truncated": True, "json": text[:ARGUMENTS_MAX_CHARS]}


class AuditLog:
    """A bounded queue of call records and the thread that writes them."""

    def __init__(self, maxsize: int) -> None:
        self.queue: queue.Queue[ToolCall] = queue.Queue(maxsize=max(maxsize, 1))
        self.dropped = 0
        self.written = 0
        self.failed = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned_at = -math.inf

    def observe(self, record: dict[str, Any]) -> None:
        """Queue a finished run_search call (the observer hooked into mcpserver.runner)."""
        with telemetry.span("audit.enqueue"):
            self._submit_record(record)

    def _submit_record(self, record: dict[str, Any]) -> None:
        self.submit(
            ToolCall(
                time=timezone.now(),
                key_name=record.get("agent") or ANONYMOUS,
                tool=record["tool"],
                # Serialised by the writer thread, not here on the request path.
                arguments=record.get("arguments") or {},
                rows=record.get("rows") or 0,
                latency_ms=round(float(record.get("latency_ms") or 0), 2),
                error_code=record.get("error_code") or "",
            )
        )

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
        while not (self._stopping.is_set() and self.queue.empty()):
            self.write(self._take_batch())

    def _take_batch(self) -> list[ToolCall]:
        try:
            batch = [self.queue.get(timeout=FLUSH_INTERVAL_SEC)]
        except queue.Empty:
            return []
        # Let the calls of the next BATCH_WINDOW_SEC gather, then write them in one insert:
        # a write per call would take the GIL from the request threads every time.
        self._stopping.wait(BATCH_WINDOW_SEC)
        while len(batch) < BATCH_SIZE:
            try:
                batch.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def write(self, batch: list[ToolCall]) -> None:
        touched = False
        try:
            if batch:
                touched = True
                for call in batch:
                    call.arguments = clip_arguments(call.arguments)
                ToolCall.objects.bulk_create(batch)
                self.written += len(batch)
                metrics.AUDIT_ROWS.labels("written").inc(len(batch))
            touched = bool(keys.flush_last_used()) or touched
        except DatabaseError:
            self.failed += len(batch)
            metrics.AUDIT_ROWS.labels("failed").inc(len(batch))
            self._warn("audit log: could not write %d calls", len(batch), exc_info=True)
        finally:
            if touched:
                connections["default"].close()

    def _warn(self, message: str, *args: Any, exc_info: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._warned_at < WARN_EVERY_SEC:
                return
            self._warned_at = now
        logger.warning(message, *args, exc_info=exc_info)


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
    _log = AuditLog(settings.AUDIT_QUEUE_SIZE)
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
