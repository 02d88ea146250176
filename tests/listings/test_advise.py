"""`check_listings_db --advise`: index DDL for the database's owners, never run by us."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from listings import advise
from tests.scratch_db import embedded_server, make_scratch_database

ROOT = Path(__file__).resolve().parents[2]

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
    for column in (
        "kitchen_area",
        "living_area",
        "building_year",
        "metro_distance_meters",
        "floor",
    ):
        assert f"CREATE INDEX CONCURRENTLY ON property_listings ({column});" in text
    assert "a filter on kitchen_area that keeps few listings is Seq Scan" in text
    # The test database has the covering index the demo builds (listings/sql).
    assert "covering index" not in text
    # 768 dimensions do not fit beside the row under pgvector's EXTERNAL storage.
    assert "ALTER TABLE property_listings ALTER COLUMN embedding SET STORAGE MAIN;" in text
    assert "-- now: embedding is vector(768) with storage EXTERNAL" in text
    assert "\nVACUUM FULL property_listings;" in text
    # 3000 listings: every filter is ranked exactly already, so no partial HNSW index.
    assert "-- partial HNSW index for" not in text
    # the test database is vacuumed when it is built (demo.schema.vacuum)
    assert "VACUUM (ANALYZE)" not in text
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


@pytest.mark.parametrize(
    ("storage", "dimensions", "out_of_line"),
    [
        ("e", 768, True),  # pgvector's default storage: 3 080 bytes go to TOAST
        ("x", 768, True),
        ("m", 768, False),  # kept in the row: nothing to advise
        ("p", 1536, False),
        ("e", 384, False),  # 1 544 bytes fit in the row whatever the storage
        ("e", 506, False),  # 2 032 bytes: the threshold itself still fits
        ("e", 507, True),
        ("e", -1, False),  # vector without declared dimensions: unknown, so no advice
    ],
)
def test_vectors_are_out_of_line_only_when_too_big_for_the_row(storage, dimensions, out_of_line):
    assert advise.vectors_out_of_line(storage, dimensions) is out_of_line


def test_a_column_already_kept_in_the_row_gets_no_storage_advice(tmp_path):
    """Read from the catalog of a real database whose owners set STORAGE MAIN (and whose
    table needs a VACUUM: that is advised)."""
    url, _ = make_scratch_database("advise_main", rows=50, hnsw=False)
    with embedded_server().connect("advise_main") as conn:
        conn.execute("ALTER TABLE property_listings ALTER COLUMN embedding SET STORAGE MAIN")
        # and the owners' table not vacuumed since every row changed (ANALYZE counts it)
        conn.execute("UPDATE property_listings SET title = title")
        conn.execute("ANALYZE property_listings")
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("DB_")},
        "DJANGO_SETTINGS_MODULE": "vmkproject.settings",
        "LISTINGS_DATABASE_URL": url,
        "VMK_DATA_DIR": str(tmp_path),
        "EMBEDDER": "offline",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check_listings_db", "--advise"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert "-- btree on publish_date" in done.stdout, done.stdout + done.stderr[-2000:]
    assert "STORAGE MAIN" not in done.stdout
    # every page changed since the last vacuum (50 rows: below autovacuum's threshold)
    assert "\nVACUUM (ANALYZE) property_listings;" in done.stdout
    assert "-- now: 0 of " in done.stdout


def test_the_vector_memory_read_is_this_databases(listings_cursor):
    listings_cursor.execute("SHOW shared_buffers")
    shown = listings_cursor.fetchone()[0]
    listings_cursor.execute(
        "SELECT pg_relation_size('property_listings'), "
        "pg_relation_size('ix_property_listings_embedding_hnsw')"
    )
    table, index = listings_cursor.fetchone()
    memory = advise._vector_memory(listings_cursor, advise._hnsw_indexes(listings_cursor))
    assert memory is not None
    assert memory.buffers == int(shown.removesuffix("GB")) * 1024**3  # the tests' 1GB
    assert (memory.table, memory.indexes) == (table, index)
    assert memory.needed == table + index


@pytest.mark.parametrize(
    ("size", "setting"),
    [
        (1, "128MB"),
        (128 * advise.MB, "128MB"),
        (128 * advise.MB + 1, "256MB"),
        (547 * advise.MB, "640MB"),
        (900 * advise.MB, "1GB"),
        (4700 * advise.MB, "4736MB"),
        (5 * 1024 * advise.MB, "5GB"),
    ],
)
def test_the_advised_shared_buffers_round_up_to_128_mb(size, setting):
    assert advise._size_setting(size) == setting


def test_buffers_smaller_than_the_vector_index_are_advised(listings_cursor):
    memory = advise._vector_memory(listings_cursor, advise._hnsw_indexes(listings_cursor))
    small = advise.VectorMemory(
        buffers=128 * advise.MB, indexes=382 * advise.MB, table=165 * advise.MB
    )
    item = advise.buffers_advice(small)
    assert item is not None
    assert item.ddl.startswith("ALTER SYSTEM SET shared_buffers = '640MB';")
    assert item.now.startswith(
        "shared_buffers is 128 MB; a semantic search walks the HNSW "
        "index (382 MB) and reads its candidates' rows in the table (165 MB)"
    )
    # the test database's index and table fit in its buffers: nothing to advise
    assert memory is not None and advise.buffers_advice(memory) is None
    titles = [found.title for found in advise.advise()]
    assert "shared buffers that hold the vector index" not in titles


def test_pg_prewarm_is_advised_where_the_preloaded_libraries_can_be_read(listings_cursor):
    """The tests' server preloads nothing: read as its superuser, pg_prewarm is advised, added
    to what is there. The tests' listings role, like a deployment's read-only one, may not
    read the setting (superusers and pg_read_all_settings only): the DDL comes commented
    out, with the check to make first."""
    with embedded_server().connect("postgres") as admin:
        assert advise._preloaded(admin.cursor()) == []
    item = advise.prewarm_advice([])
    assert item is not None
    assert item.ddl.startswith("ALTER SYSTEM SET shared_preload_libraries = 'pg_prewarm';")
    assert item.now.startswith("shared_preload_libraries is empty")
    item = advise.prewarm_advice(["pg_stat_statements", "auto_explain"])
    assert item is not None
    assert "= 'pg_stat_statements, auto_explain, pg_prewarm';" in item.ddl
    assert advise.prewarm_advice(["pg_stat_statements", "pg_prewarm"]) is None
    # the tests' listings role, read-only as a deployment's: the check is left to the owners
    assert advise._preloaded(listings_cursor) is None
    unread = [item for item in advise.advise() if "pg_prewarm" in item.title]
    assert len(unread) == 1 and unread[0].now.startswith("this role may not read")
    assert all(line.startswith("--") for line in unread[0].ddl.splitlines())
