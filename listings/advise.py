"""Index and server advice for the owners of the listings database (`check_listings_db
--advise`).

The listings database belongs to another system: the project never creates these indexes
or changes its settings there. It reads the catalog (indexes, the HNSW index's build
options, the planner's statistics of the filter columns, the relations' sizes, the settings
this role may read) and EXPLAINs (plans only, nothing runs) the queries each index would
serve, and prints the DDL with the figure it is expected to change: the plan this database
picks today and what the project measured where the index exists.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from django.conf import settings
from django.db import connections

LISTINGS = "listings"
TABLE = "property_listings"
# A filter value kept by at least this share of the listings gets its own partial HNSW index:
# under such a filter a graph walk over the whole table loses recall (bench_search at a
# million listings, pgvector's default build: 0.49 for Львів, 9.97 % of the listings).
BIG_VALUE_SHARE = 0.05
# building_type, renovation_status: a filter on them (with rooms, say) has no btree index to
# narrow it, so past EXACT_VECTOR_SEARCH_MAX_ROWS matches the whole-table graph ranks it
# (bench_search's "filters no index serves").
BIG_VALUE_COLUMNS = ("deal_type", "city", "building_type", "renovation_status")
MOST_OF_THE_TABLE = 0.5
GOOD_M, GOOD_EF_CONSTRUCTION = 24, 200
# What this DDL did on the project's own copy of 1 000 000 listings (bench_search,
# bench/RESULTS.md): the figures the advice quotes.
DENSER_EXPECTED = (
    "recall@10 of the HNSW scan at a given ef_search up, so HNSW_EF_SEARCH can come down: on "
    "the project's copy of 1 000 000 listings, m = 24 / ef_construction = 200 in place of "
    "pgvector's 16 / 64 took the benchmark's recall sweep at ef_search 200 from 0.64 (worst "
    "filter 0.48) to 0.945 (worst 0.90); its build took 17 min on 2 cores against 5 min, "
    "and the index is about m/16 times the size"
)
PARTIAL_EXPECTED = (
    "on the project's copy of 1 000 000 listings, with these indexes and the denser one, "
    "recall@10 under city = 'Львів' (10 % of the listings) went from 0.50 to 1.0 and under "
    "deal_type = 'sale' (55 %) from 0.95 to 1.0, semantic search staying at 25 ms p50 through "
    "MCP; nine such indexes took 6 min to build"
)

# Measured for building_type and renovation_status (2026-12-05, bench/RESULTS.md).
PARTIAL_EXPECTED_BY_COLUMN = {
    "building_type": (
        "on the project's copy of 1 000 000 listings, after the denser index, recall@10 under "
        "building_type = 'panel' and 1 room (9 % of the listings, no other index narrows it) "
        "went from 0.9 (one query 0.2) to 1.0 with the partial index for 'panel' (28 %), 22 ms "
        "p50 of the search function; it took 76 s to build and is 662 MB, against 1 995 MB for "
        "the whole-table index"
    ),
    "renovation_status": (
        "on the project's copy of 1 000 000 listings, after the denser index, recall@10 under "
        "renovation_status = 'euro', building_type = 'monolith' and 2 rooms (3.7 % of the "
        "listings) went from 0.9875 (0.933 in a run of 6 other queries) to 1.0 with the partial "
        "index for 'euro' (34 %), 22 ms p50 of the search function; it took 97 s to build and "
        "is 808 MB, against 1 995 MB for the whole-table index"
    ),
}

# The numeric columns filters narrow by (min_area, min_kitchen_area, min_living_area, floor,
# building year, max_metro_distance). With no index a filter keeping few listings is found by
# reading the table, and semantic search ranks those exactly (EXACT_VECTOR_SEARCH_MAX_ROWS)
# after it.
NUMERIC_FILTER_COLUMNS = (
    "kitchen_area",
    "living_area",
    "building_year",
    "metro_distance_meters",
    "floor",
    "total_area",
)
# Measured 2026-12-05 (bench/RESULTS.md), medians of 5 queries, recall@10 against the exact
# answer.
NUMERIC_EXPECTED = (
    "semantic search under a numeric filter that keeps at most EXACT_VECTOR_SEARCH_MAX_ROWS "
    "listings reads only them, not the table, before ranking them exactly: on the project's "
    "copy of 1 000 000 listings, kitchen_area >= 24 (5 503 listings) went from 620 to 35 ms "
    "p50 and city = 'Львів' with building_year <= 1930 (2 375) from 273 to 46 ms, recall 1.0 "
    "both; each index took about 1 s to build"
)


# A row longer than this is toasted (PostgreSQL's TOAST_TUPLE_THRESHOLD on 8 KB pages): a
# vector whose own bytes (vector_bytes) pass it is kept out of line
# unless the column's storage is MAIN or PLAIN.
TOAST_THRESHOLD = 2032
IN_LINE_STORAGE = ("m", "p")
STORAGE_NAMES = {"e": "EXTERNAL", "x": "EXTENDED", "m": "MAIN", "p": "PLAIN"}
# Measured 2026-12-05 (bench/RESULTS.md): the project's copy of 1 000 000 listings next to
# a copy written with STORAGE MAIN, the same btrees on both, calls interleaved.
STORAGE_EXPECTED = (
    "listings ranked exactly (filters keeping at most EXACT_VECTOR_SEARCH_MAX_ROWS) read "
    "each vector from the row instead of TOAST: on the project's copy of 1 000 000 listings "
    "(768 dimensions) semantic search under max_metro_distance 120 (12 590 listings) went "
    "from 69-71 to 25-28 ms p50, and with EXACT_VECTOR_SEARCH_MAX_ROWS=45000 min_area 300 "
    "(32 323) from 156-163 to 68-71 ms at recall 1.0 (the graph gives it 0.6 in 72 ms). A "
    "trade: the table grows from 1.6 to 3.9 GB (TOAST shrinks from 3.8 to 1.7), so what "
    "reads its rows in bulk gets slower: listing_stats under filters the market index does "
    "not cover (building_type panel by city) went from 0.66 to 1.26 s; those it covers (by "
    "city, Львів by rooms, sales of 2 rooms) did not change. Raising "
    "EXACT_VECTOR_SEARCH_MAX_ROWS also sends filters a partial HNSW index serves in 7 ms "
    "(Львів, 2 rooms) to a 72 ms exact scan"
)


# The covering index market insight and statistics read alone (the demo builds it).
MARKET_INDEX_SQL = resources.files("listings").joinpath("sql", "market_index.sql")
MARKET_COLUMNS = re.compile(r"ON property_listings \(([^)]*)\)\s*INCLUDE \(([^)]*)\)")
# What a statistic by city reads today: the plan the advice shows.
STATS_BY_CITY = (
    f"SELECT city, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY price) "  # noqa: S608
    f"FROM {TABLE} WHERE listing_status = 'active' GROUP BY city"
)
# Below this share of all-visible pages, index-only scans read the table for most rows.
LOW_ALL_VISIBLE = 0.5
# Measured 2026-12-06 (bench_search, bench/results/bench-100000-stop44-*): two runs on one
# database, before and after its first VACUUM; the best SQL for the same answer moved alike
# (stats 59.7 to 27.1 ms, a city's trend 15.6 to 6.2), get's and semantic's did not (0.9,
# 7.3-7.4 ms in both).
VACUUM_EXPECTED = (
    "index-only scans (statistics, trends and market context through the covering index) "
    "stop visiting the table for each row: on the project's copy of 100 000 listings, built "
    "and never vacuumed (autovacuum had not come), bench_search's listing_stats by city took "
    "69.7 ms p50 of SQL and price_trends for a city 19.5 ms; after VACUUM (ANALYZE), 2.5 s, "
    "24.1 and 8.8 ms. Autovacuum keeps it so on a server that runs long enough; if this "
    "stays low, its insert and vacuum thresholds for this table are worth a look"
)
# Measured 2026-12-05 (bench/RESULTS.md): the project's copy of 1 000 000 listings with and
# without the index, today's code, calls interleaved.
MARKET_EXPECTED = (
    "statistics, trends and market context read this index alone instead of the table: on "
    "the project's copy of 1 000 000 listings listing_stats by city went from 1.2-1.4 s to "
    "0.48-0.49 s, Київ by district from 0.59-0.73 s to 0.21-0.22 s, price_trends for Київ "
    "sales by rooms from 1.2-1.4 s to 0.19 s and market_context from 257 to 4 ms; it took "
    "1.5 s to build and is 117 MB. A city or district longer than a btree row allows (about "
    "2.7 KB) stops the build"
)


# Measured 2026-12-06 (bench/RESULTS.md, "Stop 48"): the project's copy of 100 000 listings
# (HNSW index 382 MB, table 165 MB), a search in Київ with a query vector no search had
# used (ef_search 400), the SQL alone, 20 queries each, the files in the OS's page cache.
BUFFERS_EXPECTED = (
    "a semantic search finds the index pages it walks in PostgreSQL's buffers instead of "
    "reading them: on the project's copy of 100 000 listings (index 382 MB, table 165 MB) a "
    "search with a new query vector took 40.5 ms p50 and read 7 600 pages with shared_buffers "
    "128MB (PostgreSQL's default), 33.2 ms and 4 418 pages with 256MB, 17.9 ms and 30 pages "
    "with 640MB (the size this advice would give it) and 18.0 ms and none with 1GB, the "
    "files in the OS's page cache all along; a page read from disk instead cost about 25 µs "
    "there, 190 ms for 7 600"
)
PREWARM_EXPECTED = (
    "the first searches after a restart find the pages the buffers held: on the project's "
    "copy of 100 000 listings (1GB of buffers) the first searches after a restart, with "
    "the files not in the OS's page cache, read 3 300-9 900 pages each from disk and took "
    "42-481 ms (median 103) against 5-51 ms (median 20) once the buffers held the index "
    "(7 s of searches and a read of the vectors there); "
    "autoprewarm itself was not measured there (the project's embedded PostgreSQL has no "
    "pg_prewarm)"
)
MB = 1024 * 1024


@dataclass(frozen=True)
class Advice:
    title: str
    ddl: str
    expected: str
    now: str


def _plan(cursor: Any, sql: str, params: list[Any] | None = None) -> str:
    """The top of the plan PostgreSQL picks for `sql`: node types down the first child."""
    cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params or [])
    raw = cursor.fetchone()[0]
    node = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
    parts = []
    while node is not None:
        label = node["Node Type"]
        if node.get("Index Name"):
            label += f" using {node['Index Name']}"
        elif node.get("Relation Name"):
            label += f" on {node['Relation Name']}"
        parts.append(label)
        children = node.get("Plans") or []
        node = children[0] if children else None
    return " → ".join(parts)


def _indexes(cursor: Any) -> list[str]:
    cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [TABLE])
    return [row[0] for row in cursor.fetchall()]


@dataclass(frozen=True)
class HnswIndex:
    name: str
    options: dict[str, int]  # its build options (m, ef_construction) where given
    partial: bool
    size: int  # bytes


def _hnsw_indexes(cursor: Any) -> list[HnswIndex]:
    """The HNSW indexes of the table the server reads (partial ones too)."""
    cursor.execute(
        "SELECT c.relname, c.reloptions, i.indpred IS NOT NULL, pg_relation_size(c.oid) "
        "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am a ON a.oid = c.relam "
        "WHERE i.indrelid = to_regclass(%s) AND a.amname = 'hnsw' ORDER BY 1",
        [TABLE],
    )
    found = []
    for name, reloptions, partial, size in cursor.fetchall():
        options: dict[str, int] = {}
        for option in reloptions or []:
            key, _, value = option.partition("=")
            options[key] = int(value)
        found.append(HnswIndex(name, options, bool(partial), int(size)))
    return found


def _dense(options: dict[str, int]) -> bool:
    m, ef_construction = options.get("m", 16), options.get("ef_construction", 64)
    return m >= GOOD_M and ef_construction >= GOOD_EF_CONSTRUCTION


def _big_values(cursor: Any) -> list[tuple[str, str, float]]:
    """(column, value, share) of filter values the planner's statistics say are common."""
    cursor.execute(
        "SELECT attname, most_common_vals::text::text[], most_common_freqs FROM pg_stats "
        "WHERE tablename = %s AND attname = ANY(%s)",
        [TABLE, list(BIG_VALUE_COLUMNS)],
    )
    found = []
    for column, values, shares in cursor.fetchall():
        for value, share in zip(values or [], shares or [], strict=False):
            if share >= BIG_VALUE_SHARE:
                found.append((column, value, float(share)))
    return sorted(found, key=lambda item: -item[2])


def _vector_storage(cursor: Any) -> tuple[str, int] | None:
    """The embedding column's storage (pg_attribute.attstorage) and dimensions, if declared."""
    cursor.execute(
        "SELECT a.attstorage, a.atttypmod FROM pg_attribute a JOIN pg_class c "
        "ON c.oid = a.attrelid WHERE c.relname = %s AND a.attname = 'embedding' "
        "AND NOT a.attisdropped AND pg_table_is_visible(c.oid)",
        [TABLE],
    )
    row = cursor.fetchone()
    return (str(row[0]), int(row[1])) if row else None


def vector_bytes(dimensions: int) -> int:
    """A stored vector's size: 4 bytes a dimension and an 8-byte header."""
    return 4 * dimensions + 8


def vectors_out_of_line(storage: str, dimensions: int) -> bool:
    """Whether each vector is kept in TOAST: too big for the row and free to move there."""
    return storage not in IN_LINE_STORAGE and vector_bytes(dimensions) > TOAST_THRESHOLD


def market_index_sql() -> str:
    """The covering index's DDL as the demo runs it (CREATE INDEX IF NOT EXISTS)."""
    return MARKET_INDEX_SQL.read_text(encoding="utf-8")


def market_index() -> tuple[str, str]:
    """The covering index's DDL, built without locking writes, and its definition as
    pg_indexes shows it (columns, then INCLUDE)."""
    text = market_index_sql()
    statement = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    found = MARKET_COLUMNS.search(statement)
    definition = f"btree ({found[1]}) INCLUDE ({found[2]})" if found else statement
    ddl = statement.replace("CREATE INDEX IF NOT EXISTS", "CREATE INDEX CONCURRENTLY IF NOT EXISTS")
    return ddl, definition


def _first(column: str, existing: str) -> bool:
    """Whether an index of `existing` (their definitions) starts with `column`."""
    return f"btree ({column})" in existing or f"btree ({column}," in existing


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def advise(alias: str = LISTINGS) -> list[Advice]:
    """The index DDL that would lift recall and speed on this database, each with its figure."""
    with connections[alias].cursor() as cursor:
        existing = "\n".join(_indexes(cursor))
        hnsw = _hnsw_indexes(cursor)
        whole = [index for index in hnsw if not index.partial]
        big = _big_values(cursor)
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE relname = %s", [TABLE])
        row = cursor.fetchone()
        rows = int(row[0]) if row else 0
        found: list[Advice] = []
        if not any(_dense(index.options) for index in whole):
            # Built beside the old index, which goes once the new one is valid: the planner
            # would otherwise keep the smaller, sparser one.
            drops = "".join(f"\nDROP INDEX CONCURRENTLY {index.name};" for index in whole)
            now = "; ".join(
                f"{index.name} is built with m = {index.options.get('m', 16)}, ef_construction = "
                f"{index.options.get('ef_construction', 64)}"
                for index in whole
            )
            found.append(
                Advice(
                    "HNSW index with a denser graph, replacing the old one",
                    f"CREATE INDEX CONCURRENTLY ix_{TABLE}_embedding_hnsw_m{GOOD_M} ON {TABLE} "
                    f"USING hnsw (embedding vector_cosine_ops) WITH (m = {GOOD_M}, "
                    f"ef_construction = {GOOD_EF_CONSTRUCTION});" + drops,
                    DENSER_EXPECTED,
                    now or "no whole-table HNSW index: semantic search scans the table",
                )
            )
        for column, value, share in big:
            condition = f"{column} = {_quote(value)}"
            kept = share * rows
            # Few enough rows are ranked exactly already; most of the table fares as well
            # through the whole-table index as through a partial one.
            if kept <= settings.EXACT_VECTOR_SEARCH_MAX_ROWS or share >= MOST_OF_THE_TABLE:
                continue
            if f"WHERE (({column})::text = {_quote(value)}" in existing:
                continue
            found.append(
                Advice(
                    f"partial HNSW index for {condition}",
                    f"CREATE INDEX CONCURRENTLY ON {TABLE} USING hnsw "
                    f"(embedding vector_cosine_ops) WHERE {condition};",
                    f"recall@10 of semantic search filtered by {condition} up to that of an "
                    "unfiltered search: "
                    + PARTIAL_EXPECTED_BY_COLUMN.get(column, PARTIAL_EXPECTED),
                    f"{condition} keeps {share:.0%} of ~{rows} listings (planner statistics)",
                )
            )
        if "(publish_date" not in existing:
            found.append(
                Advice(
                    "btree on publish_date",
                    f"CREATE INDEX CONCURRENTLY ON {TABLE} "
                    "(publish_date DESC NULLS LAST, id DESC);",
                    "newest-first pages (search_by_metadata sort_by date_desc, the admin "
                    "changelist by date: ~0.7 s at 1 000 000 listings) read a page of the "
                    "index instead of sorting the table",
                    _plan(
                        cursor,
                        f"SELECT id FROM {TABLE} ORDER BY publish_date DESC NULLS LAST, "  # noqa: S608
                        "id DESC LIMIT 10",
                    ),
                )
            )
        unindexed = [column for column in NUMERIC_FILTER_COLUMNS if not _first(column, existing)]
        if unindexed:
            # a value few listings have: found only by reading the table without an index
            rare = f"SELECT id FROM {TABLE} WHERE {unindexed[0]} = %s"  # noqa: S608
            found.append(
                Advice(
                    "btree on the numeric columns filters narrow by",
                    "\n".join(
                        f"CREATE INDEX CONCURRENTLY ON {TABLE} ({column});" for column in unindexed
                    ),
                    NUMERIC_EXPECTED,
                    f"no index starts with {', '.join(unindexed)}: a filter on "
                    f"{unindexed[0]} that keeps few listings is " + _plan(cursor, rare, [-1]),
                )
            )
        visible = _all_visible(cursor)
        if visible is not None and visible[0] < LOW_ALL_VISIBLE * visible[1]:
            found.append(
                Advice(
                    "a vacuumed table for index-only scans",
                    f"VACUUM (ANALYZE) {TABLE};",
                    VACUUM_EXPECTED,
                    f"{visible[0]} of {visible[1]} pages are all-visible (as VACUUM or ANALYZE "
                    "last counted them): an index-only scan reads the table for the rest",
                )
            )
        market_ddl, market_definition = market_index()
        if market_definition not in existing:
            found.append(
                Advice(
                    "covering index for statistics and market insight",
                    market_ddl,
                    MARKET_EXPECTED,
                    "listing_stats by city: " + _plan(cursor, STATS_BY_CITY),
                )
            )
        storage = _vector_storage(cursor)
        if storage and vectors_out_of_line(*storage):
            kind, dimensions = storage
            found.append(
                Advice(
                    "vectors kept in the row (STORAGE MAIN)",
                    f"ALTER TABLE {TABLE} ALTER COLUMN embedding SET STORAGE MAIN;\n"
                    "-- rows keep their vectors in TOAST until rewritten: VACUUM FULL locks "
                    "the table\n-- and rebuilds every index, HNSW ones included (pg_repack "
                    f"does it without the lock)\nVACUUM FULL {TABLE};",
                    STORAGE_EXPECTED,
                    f"embedding is vector({dimensions}) with storage {STORAGE_NAMES[kind]}: "
                    f"each vector ({vector_bytes(dimensions)} bytes) is read out of line, several "
                    "TOAST buffers a listing, when listings are ranked exactly",
                )
            )
        memory = _vector_memory(cursor, hnsw)
        found += [
            item
            for item in (buffers_advice(memory), prewarm_advice(_preloaded(cursor)))
            if item is not None
        ]
        price = _normalised_price_sql()
        if "CASE" not in existing:
            found.append(
                Advice(
                    "btree on the normalised price (USD)",
                    f"CREATE INDEX CONCURRENTLY ix_{TABLE}_price_usd ON {TABLE} (({price}));",
                    "price-sorted pages (sort_by price_asc, the admin by price: ~0.7 s at "
                    "1 000 000 listings) read a page of the index; the expression is the one "
                    "the project sorts by with today's EXCHANGE_RATES and must be rebuilt "
                    "when they change",
                    _plan(cursor, f"SELECT id FROM {TABLE} ORDER BY {price} LIMIT 10"),  # noqa: S608
                )
            )
        if "gin_trgm_ops" not in existing:
            found.append(
                Advice(
                    "pg_trgm for the ILIKE fallback",
                    "CREATE EXTENSION IF NOT EXISTS pg_trgm;\n"
                    f"CREATE INDEX CONCURRENTLY ON {TABLE} USING gin "
                    "(title gin_trgm_ops, description gin_trgm_ops, address_raw gin_trgm_ops);",
                    "search_by_metadata with words in no listing (the ILIKE fallback: ~1.1 s at "
                    "1 000 000 listings, a table scan) through the trigram index",
                    _plan(
                        cursor,
                        f"SELECT id FROM {TABLE} WHERE title ILIKE %s OR description ILIKE %s "  # noqa: S608
                        "OR address_raw ILIKE %s LIMIT 10",
                        ["%джакузі%"] * 3,
                    ),
                )
            )
    return found


@dataclass(frozen=True)
class VectorMemory:
    buffers: int
    indexes: int
    table: int

    @property
    def needed(self) -> int:
        """What semantic searches read: the HNSW indexes and the table's rows (not TOAST)."""
        return self.indexes + self.table


def buffers_advice(memory: VectorMemory | None) -> Advice | None:
    """Larger shared_buffers where the HNSW indexes and the table do not fit in them."""
    if memory is None or memory.buffers >= memory.needed:
        return None
    return Advice(
        "shared buffers that hold the vector index",
        f"ALTER SYSTEM SET shared_buffers = '{_size_setting(memory.needed)}';\n"
        "-- takes effect when PostgreSQL restarts; up to a quarter of the host's memory is "
        "PostgreSQL's own guidance",
        BUFFERS_EXPECTED,
        f"shared_buffers is {_size(memory.buffers)}; a semantic search walks the HNSW index "
        f"({_size(memory.indexes)}) and reads its candidates' rows in the table "
        f"({_size(memory.table)})",
    )


def prewarm_advice(preloaded: list[str] | None) -> Advice | None:
    """pg_prewarm's autoprewarm added to the preloaded libraries where they do not have it;
    where this role may not read them (`preloaded` None: a read-only role, as a deployment's
    is), the check for the owners to make, and the DDL commented out."""
    if preloaded is not None and "pg_prewarm" in preloaded:
        return None
    if preloaded is None:
        return Advice(
            "the buffers' pages kept across restarts (pg_prewarm)",
            "-- if SHOW shared_preload_libraries; does not list pg_prewarm, add it, keeping "
            "what it lists:\n-- ALTER SYSTEM SET shared_preload_libraries = '<what it lists>, "
            "pg_prewarm';\n-- takes effect when PostgreSQL restarts; its autoprewarm worker (on "
            "by default) then\n-- reloads the pages the buffers held before the restart",
            PREWARM_EXPECTED,
            "this role may not read shared_preload_libraries (superusers and members of "
            "pg_read_all_settings may): not checked",
        )
    return Advice(
        "the buffers' pages kept across restarts (pg_prewarm)",
        f"ALTER SYSTEM SET shared_preload_libraries = '{', '.join([*preloaded, 'pg_prewarm'])}';"
        "\n-- takes effect when PostgreSQL restarts; its autoprewarm worker (on by default) "
        "then\n-- reloads the pages the buffers held before the restart",
        PREWARM_EXPECTED,
        "shared_preload_libraries is "
        + (", ".join(preloaded) if preloaded else "empty")
        + ": after a restart each search reads the index pages it walks from disk until the "
        "buffers hold them again",
    )


def _vector_memory(cursor: Any, hnsw: list[HnswIndex]) -> VectorMemory | None:
    """shared_buffers and the bytes of the table's HNSW indexes `hnsw` (partial ones too) and
    of its rows; None without an HNSW index (semantic search then scans the table anyway)."""
    if not hnsw:
        return None
    cursor.execute(
        "SELECT pg_size_bytes(current_setting('shared_buffers')), "
        "pg_relation_size(to_regclass(%s))",
        [TABLE],
    )
    buffers, table = cursor.fetchone()
    return VectorMemory(
        buffers=int(buffers), indexes=sum(index.size for index in hnsw), table=int(table or 0)
    )


def _preloaded(cursor: Any) -> list[str] | None:
    """The libraries in shared_preload_libraries; None where this role may not read it (a
    setting only superusers and pg_read_all_settings see)."""
    cursor.execute("SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'")
    row = cursor.fetchone()
    if row is None or row[0] is None:
        return None
    return [name.strip().strip('"') for name in str(row[0]).split(",") if name.strip()]


def _size(size: int) -> str:
    return f"{size / 1024 / MB:.1f} GB" if size >= 1024 * MB else f"{size / MB:.0f} MB"


def _size_setting(size: int) -> str:
    """`size` rounded up to 128 MB, as a setting: whole gigabytes as GB."""
    megabytes = -(-size // (128 * MB)) * 128
    return f"{megabytes // 1024}GB" if megabytes % 1024 == 0 else f"{megabytes}MB"


def _all_visible(cursor: Any) -> tuple[int, int] | None:
    """The table's all-visible pages as VACUUM or ANALYZE last counted them, and its pages
    now; None for an empty table."""
    cursor.execute(
        "SELECT relallvisible, pg_relation_size(oid) / current_setting('block_size')::int "
        "FROM pg_class WHERE oid = to_regclass(%s)",
        [TABLE],
    )
    row = cursor.fetchone()
    if not row or not row[1]:
        return None
    return int(row[0]), int(row[1])


def _normalised_price_sql() -> str:
    """The SQL of the project's price-in-USD expression, with its values inlined."""
    from .models import PropertyListing
    from .querysets import price_in
    from .search import live_vocabulary

    qs = PropertyListing.objects.annotate(
        p=price_in("USD", settings.EXCHANGE_RATES, live_vocabulary())
    ).values("p")
    sql, params = qs.query.sql_with_params()
    connection = connections[LISTINGS]
    composed = connection.ops.compose_sql(sql, params)  # type: ignore[attr-defined]
    expression = composed.split("SELECT ", 1)[1].rsplit(' AS "p"', 1)[0]
    return str(expression).replace(f'"{TABLE}".', "")


def render(found: list[Advice]) -> str:
    if not found:
        return "-- The listings database has every index the project would advise."
    lines = [
        "-- Index and server advice for the owners of the listings database. The project never",
        "-- runs these: run them there, off-peak (CONCURRENTLY does not lock writes; a storage",
        "-- change rewrites the table under a lock, and a setting waits for a restart, as",
        "-- each says).",
    ]
    for item in found:
        lines += [
            "",
            f"-- {item.title}",
            f"-- now: {item.now}",
            f"-- expected to change: {item.expected}",
            item.ddl,
        ]
    return "\n".join(lines)
