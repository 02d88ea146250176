"""The audit writer gathers the calls of a moment into one insert, off the request path."""

from __future__ import annotations

import asyncio
import time

import pytest
from django.db import connections

from mcpserver import audit
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


def test_an_answer_waits_until_its_row_is_written_and_calls_finishing_together_share_it():
    log = WaitingLog(wait_sec=5.0)
    log.start()

    async def two_calls() -> list[float]:
        waiting = [log.observe(dict(RECORD)), log.observe(dict(RECORD))]
        assert all(isinstance(done, asyncio.Future) for done in waiting)
        await asyncio.gather(*waiting)
        return [time.monotonic()]

    try:
        started = time.monotonic()
        (answered_at,) = asyncio.run(two_calls())
    finally:
        log.stop()
    assert log.batches == [2]  # one insert for both
    assert log.written_at and answered_at >= log.written_at[0]  # the row first, then the answer
    assert answered_at - started < 1.0  # the write let it go, not the 5 s bound
    queued = ToolCall(tool="x", key_name="y")
    assert log.process == audit.process_name() and ":" in log.process
    assert queued.process == ""  # only the writer's records carry it


def test_an_answer_waits_at_most_audit_wait_sec_when_rows_cannot_be_written():
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


def test_without_audit_wait_sec_nothing_waits():
    log = audit.AuditLog(maxsize=10)

    async def one_call() -> object:
        return log.observe(dict(RECORD))

    assert asyncio.run(one_call()) is None
    assert log.window == audit.BATCH_WINDOW_SEC


class ConnectionNotingLog(audit.AuditLog):
    """The real writer; notes the connection each non-empty batch was written through."""

    def __init__(self) -> None:
        super().__init__(maxsize=100, wait_sec=5.0)
        self.used: list[object] = []

    def write(self, batch: list[ToolCall]) -> None:
        super().write(batch)
        if batch:
            self.used.append(connections["default"].connection)


@pytest.mark.django_db(transaction=True)
def test_answers_wait_for_their_rows_written_through_one_kept_connection():
    """Opening a connection for each batch cost every answer 0.8 ms more of its wait."""
    log = ConnectionNotingLog()
    assert log.window == 0  # nothing to wait for: what is queued is written at once
    log.start()

    async def call() -> None:
        await log.observe(dict(RECORD))

    try:
        asyncio.run(call())
        asyncio.run(call())
    finally:
        log.stop()
    assert log.written == 2
    assert len(log.used) == 2 and log.used[0] is not None
    assert log.used[1] is log.used[0]
    assert ToolCall.objects.filter(tool="describe_schema", key_name="tester").count() == 2
