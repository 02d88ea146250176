"""The audit log: one ToolCall row per tool call, written off the event loop.

Without AUDIT_WAIT_SEC, `run_search` hands every finished call to an observer that only puts
a record on a bounded queue (AUDIT_QUEUE_SIZE): when the queue is full the record is dropped
and counted, so a slow or locked database never slows an agent down. One background thread
takes the queue in batches (what arrives within BATCH_WINDOW_SEC of a call) and writes them
in one insert; it also writes the agent keys' last_used_at.

With AUDIT_WAIT_SEC, the answer leaves after its row is in the table, so a process killed
with SIGKILL loses no row of a call its client saw answered. The call's own pool thread
writes it when the search ends (`write_through`, a group commit): whichever thread holds the
write lock inserts every row queued by then, so calls finishing together share one insert
and a batch grows with the load while the previous one is written. No other thread is woken
for it: handing each row to the writer thread and back to the event loop cost an answer
0.6 ms, its insert 0.2. A call waits at most AUDIT_WAIT_SEC for another thread's insert, and
a row it stops waiting for stays queued for the background thread; the one call whose
thread is inserting when the database stalls waits for that insert (SQLite gives up on a
lock after 5 s), as the background thread alone used to.
All writes go through one connection of the writer's own, kept between batches. Each row
names the process (host:pid) that wrote it.
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
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model
from django.db.models.sql import InsertQuery
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
# How long the background thread lets calls gather before an insert, when nothing waits.
BATCH_WINDOW_SEC = 0.5
STOP_TIMEOUT_SEC = 15.0
# After this long unused the writer's connection is asked whether it still works before the
# next write (a server or pooler may have dropped it): reopening it unasked cost the first
# call after a quiet half-minute 1.5 ms on SQLite, where nothing drops a connection.
IDLE_CHECK_SEC = 30.0
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
    """A bounded queue of call records, the writes that empty it, and a background thread."""

    def __init__(self, maxsize: int, *, wait_sec: float = 0.0) -> None:
        self.queue: queue.Queue[ToolCall] = queue.Queue(maxsize=max(maxsize, 1))
        # > 0: each observed call waits (at most this long) for its row to be written.
        self.wait_sec = max(wait_sec, 0.0)
        self.process = process_name()
        self.dropped = 0
        self.written = 0
        self.failed = 0
        self._lock = threading.Lock()
        # One writer at a time, whichever thread it is; it owns the connection meanwhile.
        self._write_lock = threading.Lock()
        self._db: BaseDatabaseWrapper | None = None
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned_at = -math.inf
        self._used_at = -math.inf

    def observe(self, record: dict[str, Any]) -> asyncio.Future[None] | None:
        """Queue a finished run_search call (the observer hooked into mcpserver.runner).

        With wait_sec, on the event loop: a future resolved once the row is written, or
        failed to be, or after wait_sec; run_search awaits it before the answer leaves. A
        call whose pool thread already wrote its row (write_through) is not queued again."""
        if record.get(runner.RECORDED_BY) == "thread":
            return None
        with telemetry.span("audit.enqueue"):
            call = self._tool_call(record)
            done = self._waiter()
            if done is not None:
                call._vmk_written = done  # type: ignore[attr-defined]
            if not self.submit(call):
                return None
            if done is not None:
                self._wake.set()
            return done

    def write_through(self, record: dict[str, Any]) -> None:
        """With wait_sec, on the call's pool thread: return once the call's row is written
        (by this thread, or by the one writing when it was queued), failed to be, or after
        wait_sec."""
        with telemetry.span("audit.write_through"):
            call = self._tool_call(record)
            written = threading.Event()
            call._vmk_written = written  # type: ignore[attr-defined]
            if not self.submit(call):
                return
            deadline = time.monotonic() + self.wait_sec
            self._write_while_queued(deadline)
            written.wait(max(deadline - time.monotonic(), 0.0))

    def _write_while_queued(self, deadline: float = math.inf) -> None:
        """Write what is queued unless another thread is writing: that one looks again after
        letting go of the lock, so a row queued meanwhile is not left behind. Past the
        deadline a call stops writing for others and wakes the background thread instead."""
        while not self.queue.empty() and self._write_lock.acquire(blocking=False):
            try:
                while not self.queue.empty() and time.monotonic() < deadline:
                    self._write_queued()
            finally:
                self._write_lock.release()
            if time.monotonic() >= deadline:
                if not self.queue.empty():
                    self._wake.set()
                return

    def _tool_call(self, record: dict[str, Any]) -> ToolCall:
        return ToolCall(
            time=timezone.now(),
            key_name=record.get("agent") or ANONYMOUS,
            tool=record["tool"],
            # Serialised by the writer, not here on the event loop.
            arguments=record.get("arguments") or {},
            rows=record.get("rows") or 0,
            latency_ms=round(float(record.get("latency_ms") or 0), 2),
            error_code=record.get("error_code") or "",
            process=self.process,
        )

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
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._write_lock:
            self._close()
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
                if self.wait_sec:
                    # Answers write their own rows; this thread writes what is left (a row
                    # whose answer stopped waiting, one queued from the event loop).
                    self._wake.wait(FLUSH_INTERVAL_SEC)
                    self._wake.clear()
                    first = None
                else:
                    first = self._take_first()
                with self._write_lock:
                    self._write_queued(first)
                self._write_while_queued()
                keys.flush_last_used()
        finally:
            connections["default"].close()  # keys.flush_last_used's

    def _take_first(self) -> ToolCall | None:
        try:
            first = self.queue.get(timeout=FLUSH_INTERVAL_SEC)
        except queue.Empty:
            return None
        # Let the calls of the next half second gather, then write them in one insert (a
        # write per call would take the GIL from the request threads every time).
        self._stopping.wait(BATCH_WINDOW_SEC)
        return first

    def _write_queued(self, first: ToolCall | None = None) -> None:
        """Write `first` and what is queued (up to BATCH_SIZE), under the write lock."""
        batch = [] if first is None else [first]
        while len(batch) < BATCH_SIZE:
            try:
                batch.append(self.queue.get_nowait())
            except queue.Empty:
                break
        try:
            self.write(batch)
        finally:
            _release(batch)

    def write(self, batch: list[ToolCall]) -> None:
        """Insert the batch through the writer's connection. It is kept between batches
        (opening one for each cost a call 0.8 ms of its wait); one that failed, or that sat
        idle for IDLE_CHECK_SEC and is no longer usable (Django's own check: a query on
        PostgreSQL, nothing on SQLite), is closed and the next write opens another."""
        if not batch:
            return
        now = time.monotonic()
        idle = now - self._used_at > IDLE_CHECK_SEC
        if idle and self._db is not None and not self._db.is_usable():
            self._close()
        self._used_at = now
        try:
            for call in batch:
                call.arguments = clip_arguments(call.arguments)
            self._insert(batch)
            self.written += len(batch)
            metrics.AUDIT_ROWS.labels("written").inc(len(batch))
        except DatabaseError:
            self.failed += len(batch)
            metrics.AUDIT_ROWS.labels("failed").inc(len(batch))
            self._warn("audit log: could not write %d calls", len(batch), exc_info=True)
            self._close()

    def _insert(self, batch: list[ToolCall]) -> None:
        """One INSERT of the batch, compiled by the ORM for the writer's connection (a
        single statement in autocommit: all rows or none)."""
        if self._db is None:
            # Not the calling thread's own connection (Django closes those at the end of
            # each call): one for the writer, used by one thread at a time.
            self._db = connections.create_connection("default")
            self._db.inc_thread_sharing()
        query = InsertQuery(ToolCall)
        rows: list[Model] = list(batch)
        query.insert_values(_insert_fields(), rows)
        with self._db.cursor() as cursor:
            for sql, params in query.get_compiler(connection=self._db).as_sql():
                cursor.execute(sql, params)

    def _close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(DatabaseError):
                self._db.close()

    def _warn(self, message: str, *args: Any, exc_info: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._warned_at < WARN_EVERY_SEC:
                return
            self._warned_at = now
        logger.warning(message, *args, exc_info=exc_info)


def _insert_fields() -> list[Any]:
    return [field for field in ToolCall._meta.concrete_fields if not field.primary_key]


def _release(batch: list[ToolCall]) -> None:
    """Let the answers waiting for these rows go (written or not: they never fail a call)."""
    for call in batch:
        done = getattr(call, "_vmk_written", None)
        if isinstance(done, threading.Event):
            done.set()
        elif done is not None:
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
    if _log.wait_sec:
        runner.thread_observers.append(_log.write_through)
    return _log


def stop() -> None:
    global _log
    if _log is None:
        return
    with contextlib.suppress(ValueError):
        runner.call_observers.remove(_log.observe)
    with contextlib.suppress(ValueError):
        runner.thread_observers.remove(_log.write_through)
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
