"""The time a process spends inside the driver's execute, for in-process benchmarks."""

from __future__ import annotations

import time
from typing import Any


class SqlTime:
    """The statements sent and the time spent inside the driver's execute, summed (an
    execute_wrapper)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.statements = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.statements += 1
