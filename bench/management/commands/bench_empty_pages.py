"""What a search whose page comes back empty costs: its page, then `if_dropped`, the counts
of what dropping each filter (and, in full text, the words) would let in.

Prints, per case, the statements a call sends, its SQL time and the time above it (p50,
in-process) and how many counts the page carries; nothing is asserted. Runs on the
configured listings database.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from listings import search
from listings.runtime import LISTINGS

from ...sqltime import SqlTime

NOWHERE = "зюзюкавиця"  # a word in no listing: full text finds nothing, then substrings
NOTHING_UNDER_5_USD = {"city": "Київ", "rooms_count": 2, "max_price": 5, "currency": "USD"}
CASES: dict[str, Callable[[], Any]] = {
    "fulltext-sale": lambda: search.fulltext_search(
        query=NOWHERE, filters={"deal_type": "sale", "max_price": 120000}
    ),
    "fulltext-city": lambda: search.fulltext_search(query=NOWHERE, filters={"city": "Київ"}),
    "semantic": lambda: search.semantic_search(query="квартира", filters=NOTHING_UNDER_5_USD),
    "hybrid": lambda: search.hybrid_search(query="квартира", filters=NOTHING_UNDER_5_USD),
}


class Command(BaseCommand):
    help = "An empty page's cost: statements, SQL and time above it, with its if_dropped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--calls", type=int, default=8, help="calls per case")

    def handle(self, *args: Any, **options: Any) -> None:
        calls = options["calls"]
        sql = SqlTime()
        self.stdout.write(
            f"per call, p50 ({calls} calls a case after one, in-process)\n"
            f"{'case':14} {'statements':>10} {'SQL ms':>8} {'above ms':>9} {'counts':>6}"
        )
        with connections[LISTINGS].execute_wrapper(sql):
            for case, run in CASES.items():
                run()  # compiled, connections warm
                sent, in_sql, above, counts = [], [], [], 0
                for _ in range(calls):
                    call = sql.measure(run)
                    sent.append(call.statements)
                    in_sql.append(call.sql_ms)
                    above.append(call.above_ms)
                    counts = len(call.result.if_dropped or ())
                self.stdout.write(
                    f"{case:14} {statistics.median(sent):10.0f} {statistics.median(in_sql):8.1f} "
                    f"{statistics.median(above):9.2f} {counts:6d}"
                )
