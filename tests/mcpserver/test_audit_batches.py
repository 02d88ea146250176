"""The audit writer gathers the calls of a moment into one insert, off the request path."""

from __future__ import annotations

import time

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
