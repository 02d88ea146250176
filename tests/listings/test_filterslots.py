"""listings.filterslots: a search's statements are compiled once per filter names, and each
call sends its own values (a new city or price compiled them again, twice each)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db.models.sql.compiler import SQLCompiler

from listings import compiled, market, search
from listings.filters import Filters
from listings.filterslots import filter_values
from listings.models import PropertyListing
from listings.search.filtering import _rates, live_vocabulary

pytestmark = pytest.mark.usefixtures("listings_access")

# Two filter combinations of the same names, every kind of value taken out: places, whole
# numbers, areas, prices (a window per listing currency).
FIRST = {"city": "Київ", "min_rooms": 1, "min_area": 20, "max_price": 150000, "currency": "USD"}
SECOND = {"city": "Львів", "min_rooms": 2, "min_area": 35.5, "max_price": 90000, "currency": "USD"}
QUERY = "квартира з балконом"


def _compiles(call):
    """How many statements `call()` compiled, and what it returned."""
    with mock.patch.object(compiled, "compile_statement", wraps=compiled.compile_statement) as spy:
        result = call()
    return spy.call_count, result


@pytest.mark.parametrize(
    "run",
    [
        lambda filters: search.semantic_search(query=QUERY, filters=filters, limit=5),
        lambda filters: search.fulltext_search(query="балкон", filters=filters, limit=5),
        lambda filters: search.fulltext_search(filters=filters, sort_by="price_asc", limit=5),
        lambda filters: search.hybrid_search(query=QUERY, filters=filters, limit=5),
    ],
    ids=["semantic", "fulltext", "filter", "hybrid"],
)
def test_new_filter_values_compile_no_statement_and_find_what_the_orm_finds(run):
    first_compiles, _ = _compiles(lambda: run(FIRST))
    assert first_compiles > 0  # the first of these names compiles its statements
    again, page = _compiles(lambda: run(SECOND))
    assert again == 0  # Львів, 2 rooms, 35.5 m², $90 000: the same statements, its values
    assert page.listings, "the test data has listings under the second filters"
    # every card meets the second filters, by the ORM's own reading of them
    filters = Filters.model_validate(SECOND)
    allowed = set(
        PropertyListing.objects.filtered(filters, _rates(), live_vocabulary()).values_list(
            "id", flat=True
        )
    )
    assert {card.id for card in page.listings} <= allowed


def test_the_count_near_the_exact_limit_is_compiled_once_and_counts_each_calls_values(
    settings, monkeypatch
):
    # Where the planner's estimate is near EXACT_VECTOR_SEARCH_MAX_ROWS the rows are counted
    # before the path is chosen: the ORM built that count for every new value.
    from listings import vectorplan
    from listings.search import vector

    settings.EXACT_VECTOR_SEARCH_MAX_ROWS = 10_000
    monkeypatch.setattr(vector._PAGES, "estimated_rows", lambda *args: 5_000)  # counted
    counted = []
    rows_kept = vector._rows_kept

    def spy(estimated, count):
        counted.append(count())
        return rows_kept(estimated, count)

    monkeypatch.setattr(vector, "_rows_kept", spy)
    vectorplan.forget_plans()
    built = []  # statements the ORM wrote during the second call
    as_sql = SQLCompiler.as_sql

    def writing(self, *args, **kwargs):
        built.append(self.query.model)
        return as_sql(self, *args, **kwargs)

    try:
        _compiles(lambda: search.semantic_search(query=QUERY, filters=FIRST, limit=5))
        monkeypatch.setattr(SQLCompiler, "as_sql", writing)
        again, _ = _compiles(lambda: search.semantic_search(query=QUERY, filters=SECOND, limit=5))
    finally:
        vectorplan.forget_plans()
    assert again == 0 and built == []  # the count too was sent as compiled
    filters = Filters.model_validate(SECOND)
    truth = PropertyListing.objects.filtered(filters, _rates(), live_vocabulary())
    assert counted[-1] == truth.filter(embedding__isnull=False).count() > 0


@pytest.mark.parametrize("group_by", [None, "district"])
def test_stats_and_trends_with_new_values_compile_nothing_and_count_what_the_orm_counts(
    group_by,
):
    _compiles(lambda: search.listing_stats(filters=FIRST, group_by=group_by))
    again, stats = _compiles(lambda: search.listing_stats(filters=SECOND, group_by=group_by))
    assert again == 0
    filters = Filters.model_validate(SECOND)
    kept = PropertyListing.objects.filtered(filters, _rates(), live_vocabulary())
    assert sum(row.count for row in stats.groups) == kept.count() > 0
    _compiles(lambda: market.price_trends(filters=FIRST, group_by=group_by))
    again, trends = _compiles(lambda: market.price_trends(filters=SECOND, group_by=group_by))
    # grouped, the series' statement names the groups found (its IN list): that one may be new
    assert again <= (1 if group_by else 0)
    dated = PropertyListing.objects.filtered(
        filters.model_copy(update={"listing_status": "any"}), _rates(), live_vocabulary()
    ).filter(publish_date__isnull=False)
    counted = sum(point.count for series in trends.series for point in series.points)
    assert counted == dated.count() > 0


def test_a_filter_page_with_values_sent_is_the_orms_page():
    # the filter search sorted by price: the same ids, in the same order, as the ORM's own
    # query with the values written in (a value in the wrong place would change them)
    search.fulltext_search(filters=FIRST, sort_by="price_asc", limit=10)  # compiled here
    page = search.fulltext_search(filters=SECOND, sort_by="price_asc", limit=10)
    filters = Filters.model_validate(SECOND)
    rates, vocabulary = _rates(), live_vocabulary()
    expected = list(
        PropertyListing.objects.filtered(filters, rates, vocabulary)
        .with_price_in("USD", rates, vocabulary)
        .sorted_by("price_asc")
        .values_list("id", flat=True)[:10]
    )
    assert [card.id for card in page.listings] == expected
    assert page.total == PropertyListing.objects.filtered(filters, rates, vocabulary).count()


def test_the_key_keeps_what_decides_the_sql_and_leaves_the_values_out():
    rates = _rates()
    first = filter_values(Filters.model_validate(FIRST), rates)
    second = filter_values(Filters.model_validate(SECOND), rates)
    assert first.key == second.key
    assert first.values != second.values
    # a value set or not, the currency and an enum decide the SQL: other keys
    others = [
        {**SECOND, "max_rooms": 3},
        {**SECOND, "currency": "UAH"},
        {**SECOND, "deal_type": "sale"},
        {**SECOND, "min_price": 1000},
    ]
    for other in others:
        assert filter_values(Filters.model_validate(other), rates).key != second.key, other
