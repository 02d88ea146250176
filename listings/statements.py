"""How many SQL statements a call sends to the listings database, and their time.

The time is spent inside the driver's execute (the round trip and PostgreSQL's own work,
rows included), not the ORM's compiling around it: the call's time above it is ours.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connections

LISTINGS = "listings"


@dataclass
class StatementCount:
    statements: int = 0
    sql_ms: float = 0.0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.sql_ms += (time.perf_counter() - started) * 1000
            self.statements += 1


@contextlib.contextmanager
def counting(count: StatementCount | None = None) -> Iterator[StatementCount]:
    """Count the statements this thread sends to the listings database inside the block."""
    count = count if count is not None else StatementCount()
    with connections[LISTINGS].execute_wrapper(count):
        yield count
