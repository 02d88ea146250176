"""`check_listings_db --advise`: index DDL for the database's owners, never run by us."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from listings import advise

pytestmark = pytest.mark.usefixtures("listings_access")

INDEXES_SQL = "SELECT indexdef FROM pg_indexes WHERE tablename = 'property_listings'"


def _indexes(cursor):
    cursor.execute(INDEXES_SQL)
    return sorted(row[0] for row in cursor.fetchall())


def test_advice_names_each_index_with_the_figure_it_changes(listings_cursor):
    before = _indexes(listings_cursor)
    out = StringIO()
    call_command("check_listings_db", "--advise", stdout=out)
    text = out.getvalue()
    assert "CREATE INDEX CONCURRENTLY ix_property_listings_embedding_hnsw_m24" in text
    # The sparser index goes once the denser one is built: the planner would keep the smaller.
    assert "\nDROP INDEX CONCURRENTLY ix_property_listings_embedding_hnsw;" in text
    assert text.index("hnsw_m24") < text.index("DROP INDEX")
    assert "(publish_date DESC NULLS LAST, id DESC);" in text
    assert "CREATE EXTENSION IF NOT EXISTS pg_trgm;" in text
    assert "gin_trgm_ops" in text and "ix_property_listings_price_usd" in text
    # Every piece of advice says what the database does today and what it should change.
    blocks = [block for block in text.split("\n\n") if "CREATE INDEX" in block]
    assert len(blocks) == 5
    for block in blocks:
        assert "-- now: " in block and "-- expected to change: " in block
    # Today's plans come from this database: the date and price sorts read the table.
    assert text.count("Sort → Seq Scan on property_listings") == 2
    # The numeric filters' columns have no index of their own here: one each, and today's
    # plan of a filter keeping few listings reads the table.
    for column in ("kitchen_area", "building_year", "metro_distance_meters", "floor"):
        assert f"CREATE INDEX CONCURRENTLY ON property_listings ({column});" in text
    assert "a filter on kitchen_area that keeps few listings is Seq Scan" in text
    # 3000 listings: every filter is ranked exactly already, so no partial HNSW index.
    assert "partial HNSW" not in text
    assert _indexes(listings_cursor) == before  # nothing was created


def test_partial_indexes_are_advised_for_big_filter_values_past_the_exact_limit(settings):
    settings.EXACT_VECTOR_SEARCH_MAX_ROWS = 100
    titles = [item.title for item in advise.advise()]
    partial = [title for title in titles if title.startswith("partial HNSW")]
    assert "partial HNSW index for city = 'Київ'" in partial
    # a value in most of the table is served as well by the whole-table index
    assert "partial HNSW index for deal_type = 'sale'" not in partial
    # a building type no other index narrows, with the figure measured for it
    items = advise.advise()
    building = [item for item in items if "building_type = " in item.title]
    assert building and all("building_type = 'panel'" in item.expected for item in building)
    renovation = [item for item in items if "renovation_status = " in item.title]
    assert renovation and all("for 'euro' (34 %)" in item.expected for item in renovation)


def test_the_price_expression_is_the_one_the_project_sorts_by(listings_cursor):
    expression = advise._normalised_price_sql()
    assert expression.startswith("CASE WHEN") and "%s" not in expression
    listings_cursor.execute(f"SELECT count(*) FROM property_listings WHERE ({expression}) > 0")
    assert listings_cursor.fetchone()[0] > 0  # valid SQL over this table


def test_a_numeric_column_counts_as_indexed_only_as_an_index_first_column():
    market = (
        "CREATE INDEX ix ON public.property_listings USING btree "
        "(city, deal_type, property_type_id, rooms_count, total_area)"
    )
    assert not advise._first("total_area", market)
    assert advise._first("city", market)
    assert advise._first("floor", "CREATE INDEX f ON public.property_listings USING btree (floor)")
    assert not advise._first(
        "floor", "CREATE INDEX f ON public.property_listings USING btree (floors_count)"
    )
