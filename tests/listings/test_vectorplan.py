"""The HNSW branch of vector search stays on its index, and index_used says what ran."""

from __future__ import annotations

import dataclasses
import json

import pytest
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext

from listings import search, vectorplan

pytestmark = pytest.mark.usefixtures("listings_access")

QUERY = "двокімнатна квартира біля метро з балконом"
FILTERS = [{}, {"city": "Київ"}, {"deal_type": "sale", "max_price": 120000}]


@pytest.fixture(autouse=True)
def _index_branch(settings):
    # The 3000-row test table is below the exact-scan limit: take the index branch anyway.
    settings.EXACT_VECTOR_SEARCH_MAX_ROWS = 0
    vectorplan.forget_plans()
    yield
    vectorplan.forget_plans()


def _page_statement(filters):
    """The page query semantic_search ran, as sent, and its reply."""
    with CaptureQueriesContext(connections["listings"]) as queries:
        page = search.semantic_search(query=QUERY, filters=filters, limit=10)
    ranked = [
        _without_settings(q["sql"])
        for q in queries.captured_queries
        if "<=>" in q["sql"] and "LIMIT" in q["sql"] and "EXPLAIN" not in q["sql"]
    ]
    return page, ranked[0], queries.captured_queries


SETTINGS_END = "set_config('enable_sort', 'off', true); "


def _without_settings(sql):
    """A statement as sent after the HNSW branch's settings, without them."""
    assert SETTINGS_END in sql, sql[:300]  # the page goes with its settings
    return sql.split(SETTINGS_END, 1)[1]


def _explains(calls):
    return [q for q in calls if "EXPLAIN" in q["sql"].upper() and "<=>" in q["sql"]]


def _explained_index(sql, options_sql, options):
    with transaction.atomic(using="listings"), connections["listings"].cursor() as cursor:
        cursor.execute(options_sql, options)
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return vectorplan.index_scanned(plan[0]["Plan"], (search.HNSW_INDEX,)) is not None


@pytest.mark.parametrize("filters", FILTERS)
def test_index_used_is_what_explain_shows(settings, filters):
    page, sql, _ = _page_statement(filters)
    options = search.vector_search_options(search._ef_search_for(10**9))
    on_index = _explained_index(sql, search.VECTOR_SEARCH_OPTIONS_SQL, options)
    assert on_index
    assert page.index_used == search.HNSW_INDEX
    assert len(page.listings) == 10


@pytest.mark.parametrize("filters", FILTERS)
def test_without_the_sort_penalty_the_planner_would_leave_the_index(filters):
    # What the HNSW branch ran before: the same pgvector settings, sorting allowed. On this
    # small table at ef_search 400 PostgreSQL then sorts the table instead.
    _, sql, _ = _page_statement(filters)
    old_options_sql = search.VECTOR_SEARCH_OPTIONS_SQL.replace(
        ", set_config('enable_sort', 'off', true)", ""
    )
    assert old_options_sql != search.VECTOR_SEARCH_OPTIONS_SQL
    assert not _explained_index(sql, old_options_sql, search.vector_search_options(400))


def test_the_plan_is_explained_once_per_shape(settings):
    settings.HNSW_SELECTIVE_SHARE = 0  # one ef_search for both cities
    _, _, first = _page_statement({"city": "Київ"})
    _, _, second = _page_statement({"city": "Львів"})
    explains = [_explains(calls) for calls in (first, second)]
    assert len(explains[0]) == 1
    assert explains[1] == []


def test_a_short_index_page_falls_back_to_the_exact_scan_with_sorting_back_on():
    with CaptureQueriesContext(connections["listings"]) as queries:
        page = search.semantic_search(query=QUERY, filters={"city": "Київ"}, limit=10, offset=5000)
    sent = [q["sql"] for q in queries.captured_queries]
    (exact,) = [sql for sql in sent if "COUNT(*) FILTER" in sql]
    assert "set_config" not in exact  # its own implicit transaction: sorting is on
    assert any(SETTINGS_END in sql and "LIMIT" in sql for sql in sent)  # the index page first
    assert page.index_used == search.EXACT_PATH
    assert page.listings == [] and page.total_exact


def test_a_repeated_filter_sends_only_the_options_and_the_page(settings):
    from listings import statements

    _page_statement({"city": "Одеса"})
    with statements.counting() as count, CaptureQueriesContext(connections["listings"]) as q:
        page = search.semantic_search(query=QUERY, filters={"city": "Одеса"}, limit=10)
    sent = [entry["sql"] for entry in q.captured_queries]
    assert not [sql for sql in sent if "EXPLAIN" in sql]  # plan and estimate remembered
    assert count.statements == 1, sent  # the page, its settings in the same query string
    assert SETTINGS_END in sent[0] and "<=>" in sent[0]
    assert page.index_used == search.HNSW_INDEX and len(page.listings) == 10


@pytest.fixture
def index_taken_for_partial(monkeypatch):
    """The test table's HNSW index, seen as a partial one holding Київ's listings (as a
    per-city index built by check_listings_db --advise's DDL would)."""
    from listings import capabilities
    from listings.models import PropertyListing

    real = capabilities.current()
    kyiv = PropertyListing.objects.filter(city="Київ", embedding__isnull=False).count()
    seen = dataclasses.replace(real, partial_index_rows=((search.HNSW_INDEX, kyiv),))
    monkeypatch.setattr(capabilities, "current", lambda: seen)
    return kyiv


def _ef_searches(queries) -> list[str]:
    return [
        q["sql"].split("'hnsw.ef_search', '", 1)[1].split("'", 1)[0]
        for q in queries
        if "'hnsw.ef_search'" in q["sql"]
    ]


def test_a_partial_index_takes_the_ef_search_of_its_own_rows(settings, index_taken_for_partial):
    """Active Київ listings are under half the table (HNSW_SELECTIVE_SHARE 0.5): the whole
    graph would need the wider search; Київ's own graph is all Київ and does not."""
    settings.HNSW_SELECTIVE_SHARE = 0.5
    settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_SELECTIVE = 120, 600
    page, _, queries = _page_statement({"city": "Київ"})
    assert page.index_used == search.HNSW_INDEX and len(page.listings) == 10
    # the plan under the table's share, the page under the index's
    assert _ef_searches(queries) == ["600", "120"]


def test_without_partial_indexes_one_ef_search_serves_a_filter(settings):
    settings.HNSW_SELECTIVE_SHARE = 0.5
    settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_SELECTIVE = 120, 600
    page, _, queries = _page_statement({"city": "Київ"})
    # the plan (explained under the page's settings) and the page
    assert page.index_used == search.HNSW_INDEX and _ef_searches(queries) == ["600", "600"]


def test_with_partial_indexes_the_plan_is_explained_per_filter_value(index_taken_for_partial):
    _, _, first = _page_statement({"city": "Київ"})
    _, _, second = _page_statement({"city": "Львів"})
    _, _, again = _page_statement({"city": "Київ"})
    explains = [_explains(calls) for calls in (first, second, again)]
    assert [len(found) for found in explains] == [1, 1, 0]


def test_a_city_under_its_own_index_keeps_the_main_width(settings, index_taken_for_partial):
    """Київ's own graph is all Київ, but a city is a filter a query's text can talk about:
    the narrow search is for the status alone (and at 1 000 000 listings city indexes of
    100 000 lost recall at it, 0.938 against 1.0), whatever the table's size."""
    settings.HNSW_SELECTIVE_SHARE = 0.5
    settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_SELECTIVE = 120, 600
    settings.HNSW_EF_SEARCH_BROAD = 50
    settings.HNSW_BROAD_MAX_ROWS = index_taken_for_partial  # the index's rows fit, not the table's
    page, _, queries = _page_statement({"city": "Київ"})
    assert page.index_used == search.HNSW_INDEX and _ef_searches(queries) == ["600", "120"]
    settings.HNSW_BROAD_MAX_ROWS = 10**9
    page, _, queries = _page_statement({"city": "Київ"})  # the plan is remembered
    assert len(page.listings) == 10 and _ef_searches(queries) == ["120"]
