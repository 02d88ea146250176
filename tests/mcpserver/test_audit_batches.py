"""The audit writer gathers the calls of a moment into one insert, off the request path."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from mcpserver import audit, runner
from mcpserver.models import ToolCall


class CountingLog(audit.AuditLog):
    """The writer thread as it is, with its writes counted instead of sent to a database."""

    def __init__(self) -> None:
        super().__init__(maxsize=1000)
        self.batches: list[int] = []

    def write(self, batch: list[ToolCall]) -> None:
        if batch:
            self.batches.append(len(batch))


def test_calls_arriving_together_are_written_in_one_batch():
    log = CountingLog()
    log.start()
    try:
        for _ in range(30):
            log.submit(ToolCall(tool="get_listing_by_id", key_name="tester"))
            time.sleep(0.005)  # 30 calls over ~0.15 s, well inside one batch window
        time.sleep(audit.BATCH_WINDOW_SEC + 0.5)
        assert log.batches == [30]
    finally:
        log.stop()


def test_stopping_writes_what_is_queued_without_waiting_out_the_window():
    log = CountingLog()
    log.start()
    log.submit(ToolCall(tool="describe_schema", key_name="tester"))
    started = time.perf_counter()
    log.stop()
    assert sum(log.batches) == 1
    assert time.perf_counter() - started < audit.BATCH_WINDOW_SEC + 0.3


class WaitingLog(CountingLog):
    """Answers wait for their rows; each write's end is noted."""

    def __init__(self, wait_sec: float) -> None:
        audit.AuditLog.__init__(self, maxsize=1000, wait_sec=wait_sec)
        self.batches = []
        self.written_at: list[float] = []

    def write(self, batch: list[ToolCall]) -> None:
        time.sleep(0.05)  # an insert that takes a while
        super().write(batch)
        self.written_at.append(time.monotonic())


RECORD = {"tool": "describe_schema", "arguments": {}, "agent": "tester"}


def test_a_call_writes_its_own_row_and_calls_finishing_meanwhile_share_the_next_insert():
    """No writer thread runs: each call's pool thread writes (a group commit)."""
    log = WaitingLog(wait_sec=5.0)
    returned_at: dict[str, float] = {}

    def call(name: str) -> None:
        log.write_through({**RECORD, "tool": name})
        returned_at[name] = time.monotonic()

    first = threading.Thread(target=call, args=("first",))
    first.start()
    time.sleep(0.01)  # the first insert is under way
    others = [threading.Thread(target=call, args=(name,)) for name in ("second", "third")]
    for thread in others:
        thread.start()
    for thread in [first, *others]:
        thread.join(10)
    assert log.batches == [1, 2]  # the two queued during the first insert share the next
    assert log.queue.empty() and log._thread is None
    assert returned_at["first"] >= log.written_at[0]
    assert min(returned_at["second"], returned_at["third"]) >= log.written_at[1]
    assert max(returned_at.values()) - log.written_at[1] < 1.0  # let go by the write


def test_a_call_waits_at_most_audit_wait_sec_and_its_row_is_written_later():
    log = WaitingLog(wait_sec=0.3)
    log._write_lock.acquire()  # a write that does not end
    started = time.monotonic()
    log.write_through(dict(RECORD))
    waited = time.monotonic() - started
    assert 0.25 <= waited < 2.0
    assert log.batches == [] and log.queue.qsize() == 1
    log._write_lock.release()
    log.start()
    log.stop()  # the background thread writes what was left
    assert log.batches == [1] and log.queue.empty()


def test_on_the_event_loop_an_answer_waits_at_most_audit_wait_sec():
    log = WaitingLog(wait_sec=0.3)  # no writer thread started: nothing is ever written

    async def one_call() -> float:
        started = time.monotonic()
        done = log.observe(dict(RECORD))
        assert done is not None
        await done
        return time.monotonic() - started

    waited = asyncio.run(one_call())
    assert 0.25 <= waited < 2.0
    assert log.queue.get_nowait().process == audit.process_name()


def test_a_call_queued_from_the_event_loop_wakes_the_writer_thread():
    """The fallback for a call whose pool thread did not record it (cancelled first)."""
    log = WaitingLog(wait_sec=5.0)
    log.start()

    async def one_call() -> float:
        started = time.monotonic()
        await log.observe(dict(RECORD))
        return time.monotonic() - started

    try:
        waited = asyncio.run(one_call())
    finally:
        log.stop()
    assert log.batches == [1]
    assert waited < audit.FLUSH_INTERVAL_SEC / 2  # woken, not found by its next round


def test_a_row_written_on_the_pool_thread_is_not_queued_again():
    log = audit.AuditLog(maxsize=10, wait_sec=5.0)
    assert log.observe({**RECORD, runner.RECORDED_BY: "thread"}) is None
    assert log.queue.empty()


def test_without_audit_wait_sec_nothing_waits():
    log = audit.AuditLog(maxsize=10)

    async def one_call() -> object:
        return log.observe(dict(RECORD))

    assert asyncio.run(one_call()) is None
    assert log.queue.qsize() == 1


@pytest.mark.django_db(transaction=True)
def test_rows_from_any_thread_go_through_the_writers_one_kept_connection():
    """Not the calling thread's own connection: Django closes that at the end of every call,
    and opening one per row cost every answer 0.8 ms more of its wait."""
    log = audit.AuditLog(maxsize=100, wait_sec=5.0)

    def call() -> tuple[object, object]:
        log.write_through(dict(RECORD))
        assert log._db is not None
        return log._db.connection, connections["default"].connection

    with ThreadPoolExecutor(max_workers=1) as one, ThreadPoolExecutor(max_workers=1) as other:
        first_used, first_own = one.submit(call).result()
        second_used, second_own = other.submit(call).result()
    assert log.written == 2
    assert first_used is not None and second_used is first_used
    assert first_own is None and second_own is None  # the threads opened none of their own
    assert ToolCall.objects.filter(tool="describe_schema", key_name="tester").count() == 2
    log.stop()


@pytest.mark.django_db(transaction=True)
def test_after_a_quiet_spell_the_writer_keeps_its_connection_while_it_works():
    """Checked, not reopened, after IDLE_CHECK_SEC: reopening cost the call after a quiet
    half-minute 1.5 ms. One that no longer works (a server or pooler dropped it) is closed,
    and the next write opens another."""
    log = audit.AuditLog(maxsize=100, wait_sec=5.0)
    log.write_through(dict(RECORD))
    assert log._db is not None
    closed = []
    close = log._db.close
    log._db.close = lambda: (closed.append(1), close())[1]
    log._used_at -= audit.IDLE_CHECK_SEC + 1
    log.write_through(dict(RECORD))
    assert closed == []
    log.write_through(dict(RECORD))  # not idle: not even checked
    log._used_at -= audit.IDLE_CHECK_SEC + 1
    log._db.is_usable = lambda: False
    log.write_through(dict(RECORD))
    assert closed == [1]
    assert log.written == 4 and log.failed == 0
    assert ToolCall.objects.filter(tool="describe_schema", key_name="tester").count() == 4
    log.stop()
