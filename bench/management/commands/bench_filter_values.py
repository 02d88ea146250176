"""What a search or a statistic costs above its SQL when an agent changes a filter's value
from call to call (another price cap, another city), against calls that repeat one
combination.

Statements are compiled per shape and reused; a shape that named the filters' values
compiled again for every new price or city. Prints figures; nothing is asserted. Runs
in-process on the configured listings database.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from listings import market, search
from listings.runtime import LISTINGS

from ...sqltime import SqlTime

QUERY = "квартира з ремонтом біля метро"
CITIES = ("Київ", "Львів", "Одеса", "Харків", "Дніпро")
MODES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "semantic": lambda filters: search.semantic_search(query=QUERY, filters=filters),
    "fulltext": lambda filters: search.fulltext_search(query="балкон", filters=filters),
    "filter": lambda filters: search.fulltext_search(filters=filters, sort_by="price_asc"),
    "hybrid": lambda filters: search.hybrid_search(query=QUERY, filters=filters),
    "stats": lambda filters: search.listing_stats(filters=filters, group_by="district"),
    "trends": lambda filters: market.price_trends(filters=filters),
}


def _prices(start: int) -> Iterator[dict[str, Any]]:
    """Filters of one shape with a new price cap each time (sales in dollars, Київ)."""
    for step in itertools.count():
        yield {"city": "Київ", "deal_type": "sale", "max_price": start + 500 * step}


class Command(BaseCommand):
    help = "Time above SQL per search call: one filter combination repeated, against new values."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--calls", type=int, default=20, help="calls per series")

    def handle(self, *args: Any, **options: Any) -> None:
        calls = options["calls"]
        sql = SqlTime()
        self.stdout.write(
            f"above SQL per call, p50 ms ({calls} calls a series, in-process)\n"
            f"{'mode':10} {'same values':>12} {'new price':>10} {'new city':>9}"
        )
        with connections[LISTINGS].execute_wrapper(sql):

            def above(run: Callable[[dict[str, Any]], Any], filters: dict[str, Any]) -> float:
                return sql.measure(lambda: run(filters)).above_ms

            for start, (mode, run) in enumerate(MODES.items()):
                same = {"city": "Київ", "deal_type": "sale", "max_price": 100000}
                for _ in range(3):
                    above(run, same)  # compiled, connections warm
                repeated = [above(run, same) for _ in range(calls)]
                prices = _prices(150000 + 100000 * start)
                new_price = [above(run, next(prices)) for _ in range(calls)]
                # each city with a price not seen before
                new_city = [
                    above(run, {"city": city, "deal_type": "sale", "max_price": 20011 + n})
                    for n, city in zip(range(calls), itertools.cycle(CITIES), strict=False)
                ]
                self.stdout.write(
                    f"{mode:10} {statistics.median(repeated):12.2f} "
                    f"{statistics.median(new_price):10.2f} {statistics.median(new_city):9.2f}"
                )
