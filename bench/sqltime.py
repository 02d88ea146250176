"""The time a process spends inside the driver's execute, for in-process benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    """One call measured: its result, the statements it sent, its SQL time and the time
    above it (ms)."""

    result: Any
    statements: int
    sql_ms: float
    above_ms: float


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

    def measure(self, run: Callable[[], Any]) -> Call:
        """`run()` measured by what this wrapper saw during it (installed by the caller)."""
        statements, seconds = self.statements, self.seconds
        started = time.perf_counter()
        result = run()
        took = time.perf_counter() - started
        in_sql = self.seconds - seconds
        return Call(result, self.statements - statements, in_sql * 1000, (took - in_sql) * 1000)
