"""What the ORM costs per call before a statement reaches the driver: building each main
search statement's queryset and compiling it to SQL, timed in a loop (no statement is run).

Issue 13 item 5: cache the compiled SQL per query shape where this shows in the profile
(more than about 0.5 ms a statement). Prints figures; nothing is asserted.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.postgres.search import SearchRank
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import F, Subquery

from listings.filters import Filters
from listings.models import PropertyListing
from listings.runtime import LISTINGS, _rates
from listings.search import text as text_search
from listings.search.filtering import _filtered, live_vocabulary

DIMENSION = 512


def _filters(**values: Any) -> Filters:
    return Filters.model_validate(values)


def statements(vector: list[float]) -> dict[str, Callable[[], Any]]:
    """Each main statement's queryset as its search builds it (built anew per call)."""
    city = _filters(city="Київ")
    cap = settings.TOTAL_COUNT_CAP
    query = text_search._fts_query("квартира з балконом")

    def get() -> Any:
        return (
            PropertyListing.objects.select_related("property_type")
            .defer("embedding", "search_vector", "raw_data_id", "created_at", "updated_at")
            .with_has_embedding()
            .filter(id=1)[:1]
        )

    def filter_page() -> Any:
        qs = _filtered(city).sorted_by("date_desc")
        count = text_search.CappedCount(qs.order_by().values("pk")[: cap + 1])
        return qs.cards().annotate(matches=count)[:10]

    def filter_price_page() -> Any:
        qs = _filtered(city).with_price_in("USD", _rates(), live_vocabulary())
        return qs.sorted_by("price_asc").cards()[:10]

    def fulltext_page() -> Any:
        matched = _filtered(city).matching(query)
        newest = matched.order_by("-id").values("id")[: settings.FTS_RANK_CANDIDATES]
        qs = PropertyListing.objects.filter(id__in=Subquery(newest)).annotate(
            rank=SearchRank(F("search_vector"), query, cover_density=True)
        )
        qs = qs.with_headline(query, text_search._fts_config()).sorted_by("relevance")
        count = text_search.CappedCount(matched.order_by().values("pk")[: cap + 1])
        return qs.cards().annotate(matches=count)[:10]

    def semantic_hnsw_page() -> Any:
        ranked = _filtered(city).with_embedding().nearest(vector)
        return ranked.with_metric(vector, "cosine").cards()[:10]

    def semantic_exact_ids() -> Any:
        # the rows and distances that exact_top_sql ranks and counts around them
        ranked = _filtered(city).filter(embedding__isnull=False).nearest(vector)
        return ranked.order_by().values("id", "distance")

    return {
        "get_listing_by_id": get,
        "filter page + capped count": filter_page,
        "filter, price sort": filter_price_page,
        "full text, relevance": fulltext_page,
        "semantic, HNSW page": semantic_hnsw_page,
        "semantic, exact ids": semantic_exact_ids,
    }


def _median_ms(work: Callable[[], Any], loops: int) -> float:
    times = []
    for _ in range(loops):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


class Command(BaseCommand):
    help = (
        "Time building and compiling (as_sql) each main search statement's queryset, "
        "without running it: the ORM's share of a call."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loops", type=int, default=300, help="timed loops (default 300)")

    def handle(self, *args: Any, **options: Any) -> None:
        loops = options["loops"]
        if loops < 1:
            raise CommandError("--loops must be 1 or more")
        vector = [1.0 / DIMENSION**0.5] * DIMENSION
        live_vocabulary()  # read once, as a warm server has it
        self.stdout.write(f"{'statement':<28} {'build ms':>9} {'compile ms':>11} {'both ms':>8}")
        for name, build in statements(vector).items():
            built = build()

            def compile_clone(qs: Any = built) -> Any:
                return qs.all().query.get_compiler(using=LISTINGS).as_sql()

            def build_and_compile(make: Callable[[], Any] = build) -> Any:
                return make().query.get_compiler(using=LISTINGS).as_sql()

            for work in (build, compile_clone, build_and_compile):
                work()  # warm
            self.stdout.write(
                f"{name:<28} {_median_ms(build, loops):>9.3f} "
                f"{_median_ms(compile_clone, loops):>11.3f} "
                f"{_median_ms(build_and_compile, loops):>8.3f}"
            )
