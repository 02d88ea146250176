"""Benchmark: each search mode three ways in one run — raw SQL (the floor), the search
function, and the MCP tool over HTTP — plus recall of filtered vector search.

Used by `manage.py bench_search`. Figures are medians and percentiles of one run; the
machine is shared, so compare ratios from the same run rather than absolute numbers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import psycopg
from django.conf import settings
from django.db import close_old_connections, connections
from pgvector.psycopg import register_vector

from listings import market, search
from listings.embedders import get_embedder
from listings.querysets import substring_pattern
from vmkproject.routers import LISTINGS_ALIAS

QUERIES = [
    "двокімнатна квартира біля метро з балконом",
    "простора квартира з євроремонтом у новобудові",
    "затишна однокімнатна квартира для студента",
    "будинок з ділянкою та гаражем",
    "квартира з видом на парк і підземним паркінгом",
    "комерційне приміщення на першій лінії",
    "квартира подобово в центрі міста",
    "тристкімнатна квартира для сім'ї з дітьми біля школи",
]
COMMON_TERM = "квартира"
RARE_TERMS = ["свердловина", "генератор", "консьєрж", "панорамні вікна"]
# Words in no listing: full text finds nothing and the ILIKE fallback scans the table. Run
# in one round of ABSENT_EVERY, as it costs a sequential scan.
ABSENT_TERMS = ["тераса", "камін", "джакузі", "сауна"]
ABSENT_EVERY = 5
FILTER_MIX: list[dict[str, Any]] = [
    {},
    {"city": "Київ"},
    {"deal_type": "sale", "max_price": 120000},
    {"city": "Львів", "min_rooms": 2},
    {"deal_type": "rent_long", "currency": "UAH", "max_price": 25000},
]
CARD_COLUMNS = (
    "l.id, l.title, l.description, l.price, l.currency, l.deal_type, l.listing_status, l.city, "
    "l.district, l.metro_station, l.rooms_count, l.total_area, l.floor, l.floors_count, "
    "t.name, l.publish_date, l.url_source"
)


@dataclass
class Series:
    mode: str
    way: str
    concurrency: int
    latencies_ms: list[float] = field(default_factory=list)
    wall_seconds: float = 0.0
    errors: int = 0

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies_ms) or [0.0]

        def pct(p: float) -> float:
            return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]

        return {
            "mode": self.mode,
            "way": self.way,
            "concurrency": self.concurrency,
            "calls": len(self.latencies_ms),
            "errors": self.errors,
            "p50_ms": round(statistics.median(ordered), 2),
            "p90_ms": round(pct(90), 2),
            "p99_ms": round(pct(99), 2),
            "calls_per_s": round(len(self.latencies_ms) / self.wall_seconds, 1)
            if self.wall_seconds
            else 0.0,
        }


# --- the floor: the same queries as raw SQL ------------------------------------------------


def raw_connection() -> psycopg.Connection:
    connection = connections[LISTINGS_ALIAS]
    connection.ensure_connection()  # starts the embedded server when it is used
    params = connection.get_connection_params()
    params.pop("pool", None)
    params.pop("server_side_binding", None)
    params.pop("prepare_threshold", None)
    params.pop("cursor_factory", None)
    params.pop("context", None)
    connection.close()
    conn = psycopg.connect(**params, autocommit=True)
    # The yardstick is measured whole: an exact scan of a million vectors on a cold cache
    # outlasts QUERY_TIMEOUT_SEC, which is there to cut agents' calls short, not the floor.
    conn.execute("SET statement_timeout = 0")
    register_vector(conn)
    conn.execute("SELECT to_tsvector(%s::regconfig, 'квартира')", [settings.FTS_CONFIG])
    return conn


def _where(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    clauses, params = ["l.listing_status = 'active'"], []
    rates = settings.EXCHANGE_RATES
    for key in ("city", "deal_type"):
        if key in filters:
            clauses.append(f"l.{key} = %s")
            params.append(filters[key])
    if "min_rooms" in filters:
        clauses.append("l.rooms_count >= %s")
        params.append(filters["min_rooms"])
    if "max_price" in filters:
        currency = filters.get("currency", "USD")
        ors = []
        for code, rate in rates.items():
            ors.append("(l.currency = %s AND l.price <= %s)")
            params += [code, filters["max_price"] * rate / rates[currency]]
        clauses.append("(" + " OR ".join(ors) + ")")
    return " AND ".join(clauses), params


def raw_semantic(conn: psycopg.Connection, vector: Any, filters: dict[str, Any]) -> int:
    """The HNSW branch as listings.search sends it: the planner's estimate (the total past
    TOTAL_COUNT_CAP, and what decides ef_search), then the settings and the page in one
    query string."""
    where, params = _where(filters)
    if not isinstance(vector, np.ndarray):
        vector = np.asarray(getattr(vector, "to_numpy", lambda: vector)(), dtype=np.float32)
    explained = conn.execute(
        f"EXPLAIN (FORMAT JSON) SELECT 1 FROM property_listings l WHERE {where} "  # noqa: S608
        "AND l.embedding IS NOT NULL",
        params,
    ).fetchone()
    estimate = int(explained[0][0]["Plan"]["Plan Rows"]) if explained else 0
    options = search.vector_search_options(search._ef_search_for(estimate))
    cursor = psycopg.ClientCursor(conn)  # the simple query protocol, as Django's cursor
    cursor.execute(
        f"{search.VECTOR_SEARCH_OPTIONS_SQL}; SELECT {CARD_COLUMNS}, l.embedding <=> %s AS d "  # noqa: S608
        f"FROM property_listings l LEFT JOIN property_types t ON t.id = l.property_type_id "
        f"WHERE {where} AND l.embedding IS NOT NULL ORDER BY l.embedding <=> %s LIMIT 10",
        [*options, vector, *params, vector],
    )
    cursor.nextset()
    return len(cursor.fetchall())


def raw_fulltext(conn: psycopg.Connection, text: str, filters: dict[str, Any]) -> int:
    where, params = _where(filters)
    config = settings.FTS_CONFIG
    query = "plainto_tsquery(%s::regconfig, %s)"
    rows = conn.execute(
        f"SELECT {CARD_COLUMNS}, ts_rank_cd(l.search_vector, {query}) AS r, "  # noqa: S608
        f"ts_headline(%s::regconfig, l.description, {query}) FROM property_listings l "
        f"LEFT JOIN property_types t ON t.id = l.property_type_id "
        # Ranked among the FTS_RANK_CANDIDATES newest matches, as listings.search ranks.
        f"WHERE l.id IN (SELECT l.id FROM property_listings l WHERE {where} "
        f"AND l.search_vector @@ {query} ORDER BY l.id DESC LIMIT %s) "
        "ORDER BY r DESC, l.id LIMIT 10",
        [config, text, config, config, text, *params, config, text, settings.FTS_RANK_CANDIDATES],
    ).fetchall()
    conn.execute(
        f"EXPLAIN (FORMAT JSON) SELECT 1 FROM property_listings l WHERE {where} "  # noqa: S608
        f"AND l.search_vector @@ {query}",
        [*params, config, text],
    ).fetchone()
    return len(rows)


def raw_similar(conn: psycopg.Connection, listing_id: int, filters: dict[str, Any]) -> int:
    row = conn.execute(
        "SELECT embedding FROM property_listings WHERE id = %s", [listing_id]
    ).fetchone()
    return raw_semantic(conn, row[0], filters) if row and row[0] is not None else 0


def raw_hybrid(conn: psycopg.Connection, vector: Any, text: str, filters: dict[str, Any]) -> int:
    return raw_semantic(conn, vector, filters) + raw_fulltext(conn, text, filters)


def raw_get(conn: psycopg.Connection, listing_id: int) -> int:
    row = conn.execute(
        "SELECT l.*, t.name FROM property_listings l LEFT JOIN property_types t "
        "ON t.id = l.property_type_id WHERE l.id = %s",
        [listing_id],
    ).fetchone()
    return 1 if row else 0


def raw_stats(conn: psycopg.Connection, filters: dict[str, Any]) -> int:
    """The figures listing_stats gives per city, in one statement: the count, the priced
    count, the prices left out, min, median, max and mean price, the median per m²."""
    where, params = _where(filters)
    rates = settings.EXCHANGE_RATES
    case = " ".join(f"WHEN '{code}' THEN l.price::float8 / {rate}" for code, rate in rates.items())
    rows = conn.execute(
        "SELECT l.city, count(*), count(p), "  # noqa: S608
        "count(*) FILTER (WHERE p IS NULL AND l.price IS NOT NULL), min(p), "
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY p), max(p), avg(p), "
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY p / l.total_area) "
        "FILTER (WHERE p IS NOT NULL AND l.total_area > 0) "
        # Sorted, the subquery is not folded into the query: each price converted once.
        f"FROM (SELECT l.city, l.price, l.total_area, CASE l.currency {case} END AS p "
        f"FROM property_listings l WHERE {where} ORDER BY l.city) l "
        "GROUP BY l.city ORDER BY 2 DESC LIMIT 101",
        params,
    ).fetchall()
    return len(rows)


def raw_fulltext_absent(conn: psycopg.Connection, text: str, filters: dict[str, Any]) -> int:
    """Full text that finds nothing, then the substring fallback (one word here): the matches
    found by reading the table (a MATERIALIZED CTE, never a walk down the date index, which
    reads every row for a word in none), by a case-insensitive regular expression (ILIKE and
    UPPER() copy each description), then sorted."""
    if raw_fulltext(conn, text, filters):
        return 0
    where, params = _where(filters)
    pattern = substring_pattern(text)
    rows = conn.execute(
        f"WITH m AS MATERIALIZED (SELECT {CARD_COLUMNS} FROM property_listings l "  # noqa: S608
        f"LEFT JOIN property_types t ON t.id = l.property_type_id WHERE {where} AND "
        "(l.title::text ~* %s OR l.description ~* %s OR l.address_raw ~* %s)) "
        "SELECT * FROM m ORDER BY publish_date DESC NULLS LAST, id DESC LIMIT 10",
        [*params, pattern, pattern, pattern],
    ).fetchall()
    return len(rows)


_PRICE_USD = "CASE c.currency {cases} END"


def _usd_case() -> str:
    rates = settings.EXCHANGE_RATES
    cases = (f"WHEN '{code}' THEN c.price::float8 / {rate}" for code, rate in rates.items())
    return _PRICE_USD.format(cases=" ".join(cases))


# find_duplicates' rule on the structured fields (listing l, candidate c): the same city,
# deal, property type, rooms, floor and storeys, an area within DUPLICATE_AREA_TOLERANCE or
# 1 m²; the floors of find_duplicates and of market_context's re-posts.
_AREA = market.DUPLICATE_AREA_TOLERANCE
SAME_STRUCTURE = (
    "c.city = l.city AND c.deal_type = l.deal_type "
    "AND c.property_type_id = l.property_type_id AND c.rooms_count = l.rooms_count "
    "AND c.floor IS NOT DISTINCT FROM l.floor "
    "AND c.floors_count IS NOT DISTINCT FROM l.floors_count "
    f"AND c.total_area BETWEEN l.total_area - greatest(1, l.total_area * {_AREA}) "
    f"AND l.total_area + greatest(1, l.total_area * {_AREA}) AND c.id <> l.id"
)


def raw_market_context(conn: psycopg.Connection, listing_id: int) -> int:
    """The comparables' count and medians in one statement (the city scope), the listing's
    own re-posts left out as market_context leaves them (find_duplicates' rule: the same
    structure, area within 2 % or 1 m², price within 8 %, texts alike)."""
    p = _usd_case()
    mine = p.replace("c.", "l.")  # the listing's own price, in the same expression
    price_band = 1 - market.DUPLICATE_PRICE_TOLERANCE, 1 + market.DUPLICATE_PRICE_TOLERANCE
    row = conn.execute(
        "WITH reposts AS (SELECT c.id FROM property_listings c "  # noqa: S608
        "JOIN property_listings l ON l.id = %s "
        f"WHERE {SAME_STRUCTURE} AND {p} BETWEEN {mine} * %s AND {mine} * %s "
        "AND (c.district IS NULL OR l.district IS NULL OR c.district = l.district) "
        "AND ((c.embedding <=> l.embedding) <= 1 - %s "
        "OR ((c.embedding IS NULL OR l.embedding IS NULL) AND c.contact_phone = l.contact_phone))) "
        f"SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY {p}), "
        f"percentile_cont(0.5) WITHIN GROUP (ORDER BY {p} / nullif(c.total_area, 0)::float8) "
        "FROM property_listings c JOIN property_listings l ON l.id = %s "
        "WHERE c.city = l.city AND c.deal_type IS NOT DISTINCT FROM l.deal_type "
        "AND c.property_type_id IS NOT DISTINCT FROM l.property_type_id "
        "AND c.rooms_count IS NOT DISTINCT FROM l.rooms_count "
        "AND c.total_area BETWEEN l.total_area * 0.8 AND l.total_area * 1.2 "
        "AND c.listing_status = 'active' AND c.id <> l.id AND c.price IS NOT NULL "
        "AND c.id NOT IN (SELECT id FROM reposts)",
        [listing_id, *price_band, market.DUPLICATE_MIN_SIMILARITY, listing_id],
    ).fetchone()
    return int(row[0]) if row else 0


def raw_duplicates(conn: psycopg.Connection, listing_id: int) -> int:
    rows = conn.execute(
        "SELECT c.id, 1 - (c.embedding <=> l.embedding) FROM property_listings c "  # noqa: S608
        f"JOIN property_listings l ON l.id = %s WHERE {SAME_STRUCTURE} LIMIT 50",
        [listing_id],
    ).fetchall()
    return len(rows)


def raw_trends(conn: psycopg.Connection, city: str) -> int:
    p = _usd_case()
    rows = conn.execute(
        "SELECT month, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY p), "  # noqa: S608
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY p / nullif(total_area, 0)::float8) "
        f"FROM (SELECT date_trunc('month', c.publish_date) AS month, {p} AS p, "
        "c.total_area FROM property_listings c WHERE c.city = %s AND c.deal_type = 'sale' "
        "AND c.publish_date IS NOT NULL ORDER BY 1) c GROUP BY 1 ORDER BY 1",
        [city],
    ).fetchall()
    return len(rows)


TREND_CITIES = ("Київ", "Львів", "Одеса", "Харків")


# --- the work list -------------------------------------------------------------------------


@dataclass
class Case:
    mode: str
    raw: Callable[[psycopg.Connection], int]
    function: Callable[[], Any]
    tool: str
    arguments: dict[str, Any]


NO_EMBEDDED_LISTINGS = "The listings database has no listings with embeddings."


def seeded_cases(seed: int, calls: int) -> list[Case]:
    """The reproducible call mix over the database's active listings, with every query's
    vector embedded now (so the timed calls hit the embedding cache)."""
    from listings.errors import NotFound
    from listings.models import PropertyListing

    ids = list(
        PropertyListing.objects.filter(embedding__isnull=False, listing_status="active")
        .order_by("id")
        .values_list("id", flat=True)[:2000]
    )
    if not ids:
        raise NotFound(NO_EMBEDDED_LISTINGS)
    embedder = get_embedder()
    vectors = {q: embedder.embed_query(q) for q in QUERIES}
    return build_cases(seed, calls, vectors, ids)


def _case(
    mode: str,
    raw: Callable[[psycopg.Connection], int],
    function: Callable[..., Any],
    tool: str,
    **arguments: Any,
) -> Case:
    """A case whose search function and MCP tool do the same work: the tool gets the
    function's `arguments`, with the agents' defaults that the function does not have
    (reading the query into filters, collapsing duplicates) turned off, so that both send
    the same statements for the same answer. interpretation_figures times the reading."""
    tool_arguments = arguments | AS_THE_FUNCTION.get(tool, {})
    return Case(mode, raw, partial(function, **arguments), tool, tool_arguments)


# The tools' defaults for agents that their search functions do not apply.
AS_THE_FUNCTION: dict[str, dict[str, Any]] = {
    "search_similar_listings": {"interpret": False, "collapse_duplicates": False},
    "search_by_metadata": {"interpret": False, "collapse_duplicates": False},
    "hybrid_search": {"interpret": False, "collapse_duplicates": False},
}


def with_agents_defaults(cases: list[Case]) -> list[Case]:
    """The cases of the tools that have agents' defaults, called with them (the request read
    into filters, duplicates collapsed): what an agent's call costs, not the same answer as
    the function's (the filters read narrow it)."""
    return [
        dataclasses.replace(
            case,
            arguments={
                key: value
                for key, value in case.arguments.items()
                if key not in AS_THE_FUNCTION[case.tool]
            },
        )
        for case in cases
        if case.tool in AS_THE_FUNCTION
    ]


def build_cases(
    seed: int, calls: int, vectors: dict[str, Any], listing_ids: list[int]
) -> list[Case]:
    rng = random.Random(seed)  # noqa: S311 - a reproducible mix, not security
    cases: list[Case] = []
    for round_no in range(calls):
        query = rng.choice(QUERIES)
        filters = rng.choice(FILTER_MIX)
        vector = vectors[query]
        rare = rng.choice(RARE_TERMS)
        absent = rng.choice(ABSENT_TERMS)
        listing_id = rng.choice(listing_ids)
        trend_city = TREND_CITIES[round_no % len(TREND_CITIES)]
        if round_no % ABSENT_EVERY == 0:
            cases.append(
                _case(
                    "fulltext_absent",
                    partial(raw_fulltext_absent, text=absent, filters=filters),
                    search.fulltext_search,
                    "search_by_metadata",
                    query=absent,
                    filters=filters,
                )
            )
        cases += [
            _case(
                "semantic",
                partial(raw_semantic, vector=vector, filters=filters),
                search.semantic_search,
                "search_similar_listings",
                query=query,
                filters=filters,
            ),
            _case(
                "fulltext_common",
                partial(raw_fulltext, text=COMMON_TERM, filters=filters),
                search.fulltext_search,
                "search_by_metadata",
                query=COMMON_TERM,
                filters=filters,
            ),
            _case(
                "fulltext_rare",
                partial(raw_fulltext, text=rare, filters=filters),
                search.fulltext_search,
                "search_by_metadata",
                query=rare,
                filters=filters,
            ),
            _case(
                "hybrid",
                partial(raw_hybrid, vector=vector, text=query, filters=filters),
                search.hybrid_search,
                "hybrid_search",
                query=query,
                filters=filters,
            ),
            _case(
                "similar",
                partial(raw_similar, listing_id=listing_id, filters=filters),
                # as the tool runs it: the listing's own re-posts left out, duplicates folded
                market.collapsing(search.similar_to_listing),
                "find_similar_to_listing",
                listing_id=listing_id,
                filters=filters,
            ),
            _case(
                "stats",
                partial(raw_stats, filters=filters),
                search.listing_stats,
                "listing_stats",
                filters=filters,
                group_by="city",
                currency="USD",  # raw_stats' figures (by default: the listings' own)
            ),
            _case(
                "get",
                partial(raw_get, listing_id=listing_id),
                search.get_listing,
                "get_listing_by_id",
                listing_id=listing_id,
            ),
            _case(
                "market_context",
                partial(raw_market_context, listing_id=listing_id),
                market.market_context,
                "market_context",
                listing_id=listing_id,
                currency="USD",  # as the raw statement figures it
            ),
            _case(
                "duplicates",
                partial(raw_duplicates, listing_id=listing_id),
                market.find_duplicates,
                "find_duplicates",
                listing_id=listing_id,
            ),
            _case(
                "trends_city",
                partial(raw_trends, city=trend_city),
                market.price_trends,
                "price_trends",
                filters={"city": trend_city, "deal_type": "sale"},
            ),
        ]
    return cases


# --- runners -------------------------------------------------------------------------------


def _run_threads(cases: list[Case], concurrency: int, one: Callable[[Case], None]) -> float:
    started = time.perf_counter()
    if concurrency == 1:
        for case in cases:
            one(case)
    else:
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(one, cases))
    return time.perf_counter() - started


def run_raw(cases: list[Case], concurrency: int) -> dict[str, Series]:
    local = threading.local()
    series: dict[str, Series] = {}
    opened: list[psycopg.Connection] = []
    lock = threading.Lock()

    def one(case: Case) -> None:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = raw_connection()
            with lock:
                opened.append(conn)
        started = time.perf_counter()
        try:
            case.raw(conn)
            failed = False
        except psycopg.errors.QueryCanceled:  # the statement timeout: counted, not fatal
            failed = True
        elapsed = (time.perf_counter() - started) * 1000
        with lock:
            item = series.setdefault(case.mode, Series(case.mode, "raw_sql", concurrency))
            item.latencies_ms.append(elapsed)
            item.errors += int(failed)

    # warm every thread's connection before timing
    wall = _run_threads(cases, concurrency, one)
    for item in series.values():
        item.wall_seconds = wall * len(item.latencies_ms) / len(cases)
    for conn in opened:
        conn.close()
    return series


def run_function(cases: list[Case], concurrency: int) -> dict[str, Series]:
    series: dict[str, Series] = {}
    lock = threading.Lock()

    def one(case: Case) -> None:
        started = time.perf_counter()
        try:
            case.function()
            failed = False
        except search.SearchError:
            failed = True
        finally:
            close_old_connections()
        elapsed = (time.perf_counter() - started) * 1000
        with lock:
            item = series.setdefault(case.mode, Series(case.mode, "search_function", concurrency))
            item.latencies_ms.append(elapsed)
            item.errors += int(failed)

    wall = _run_threads(cases, concurrency, one)
    for item in series.values():
        item.wall_seconds = wall * len(item.latencies_ms) / len(cases)
    return series


async def _run_mcp(url: str, cases: list[Case], concurrency: int, way: str) -> dict[str, Series]:
    from mcp import Client

    series: dict[str, Series] = {}
    queue: asyncio.Queue[Case] = asyncio.Queue()
    for case in cases:
        queue.put_nowait(case)

    async def worker() -> None:
        async with Client(url) as client:
            while not queue.empty():
                case = queue.get_nowait()
                started = time.perf_counter()
                result = await client.call_tool(case.tool, case.arguments)
                elapsed = (time.perf_counter() - started) * 1000
                item = series.setdefault(case.mode, Series(case.mode, way, concurrency))
                item.latencies_ms.append(elapsed)
                item.errors += int(bool(result.is_error))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - started
    for item in series.values():
        item.wall_seconds = wall * len(item.latencies_ms) / len(cases)
    return series


def run_mcp(
    url: str, cases: list[Case], concurrency: int, way: str = "mcp_http"
) -> dict[str, Series]:
    return asyncio.run(_run_mcp(url, cases, concurrency, way))


# --- embeddings ------------------------------------------------------------------------------


def embedding_figures(samples: int = 20) -> dict[str, Any]:
    embedder = get_embedder()
    misses, hits = [], []
    for index in range(samples):
        text = f"{QUERIES[index % len(QUERIES)]} варіант {index} {time.monotonic_ns()}"
        started = time.perf_counter()
        embedder.embed_query(text)
        misses.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        embedder.embed_query(text)
        hits.append((time.perf_counter() - started) * 1000)
    return {
        "embedder": embedder.name,
        "miss_p50_ms": round(statistics.median(misses), 3),
        "hit_p50_ms": round(statistics.median(hits), 4),
    }


def interpretation_figures(rounds: int = 5) -> dict[str, Any]:
    """What reading a request into filters adds to a search call (issue 14: <= 2 ms p50):
    listings.search.read_query over the benchmark's queries and bench_quality's labelled
    requests, after one untimed pass that builds the place index."""
    from bench.quality import load_requests
    from listings.search.understood import read_query

    texts = [*QUERIES, *(str(request["query"]) for request in load_requests())]
    for text in texts:
        read_query(text)
    times = []
    for _ in range(rounds):
        for text in texts:
            started = time.perf_counter()
            read_query(text)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "requests": len(texts),
        "p50_ms": round(statistics.median(times), 3),
        "p90_ms": round(times[int(len(times) * 0.9)], 3),
    }


def collapse_figures(rounds: int = 5) -> dict[str, Any]:
    """What collapsing duplicates, the search tools' default, adds to a search call:
    listings.market.collapse_duplicates on the semantic pages of the benchmark's queries
    under its filter mix (10 cards each), and how many of them had a pair of cards alike
    enough to be read from the table."""

    pages = [
        search.semantic_search(query=query, filters=filters, limit=10)
        for query in QUERIES
        for filters in FILTER_MIX
    ]
    read = sum(
        any(
            market._may_be_same(earlier, later)
            for position, later in enumerate(page.listings)
            for earlier in page.listings[:position]
        )
        for page in pages
    )
    times = []
    for _ in range(rounds):
        for page in pages:
            started = time.perf_counter()
            market.collapse_duplicates(page)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "pages": len(pages),
        "pages_read": read,
        "p50_ms": round(statistics.median(times), 3),
        "p90_ms": round(times[int(len(times) * 0.9)], 3),
    }


# --- recall of filtered vector search --------------------------------------------------------

BUCKET_CANDIDATES: list[dict[str, Any]] = [
    {"deal_type": "sale"},
    {"deal_type": "rent_long"},
    {"city": "Київ"},
    {"city": "Харків"},
    {"city": "Львів"},
    {"city": "Одеса", "deal_type": "sale"},
    {"city": "Київ", "rooms_count": 2, "deal_type": "sale"},
    {"city": "Львів", "rooms_count": 3, "deal_type": "rent_long"},
    {"city": "Дніпро", "rooms_count": 1, "deal_type": "rent_short"},
    {"city": "Київ", "district": "Печерський", "rooms_count": 2, "deal_type": "rent_long"},
    {"city": "Полтава", "rooms_count": 2, "deal_type": "sale"},
    {"city": "Ужгород", "rooms_count": 1, "deal_type": "rent_long"},
    {"city": "Вінниця", "rooms_count": 4},
    {"city": "Івано-Франківськ", "rooms_count": 3, "deal_type": "rent_long"},
]
TARGETS = (0.5, 0.1, 0.01, 0.001)


def _count(filters: dict[str, Any]) -> int:
    from listings.filters import parse_filters
    from listings.models import PropertyListing

    parsed = parse_filters(filters | {"listing_status": "any"})
    return int(
        PropertyListing.objects.filtered(parsed, settings.EXCHANGE_RATES).with_embedding().count()
    )


def _recall_runs(
    conn: psycopg.Connection, filters: dict[str, Any], matching: int, queries: int
) -> tuple[list[float], int, list[float], set[str]]:
    """Semantic search under `filters` for the first `queries` QUERIES, each against the
    exact top 10: (recall@10 of each, short pages, milliseconds of each, paths taken)."""
    recalls: list[float] = []
    times: list[float] = []
    paths: set[str] = set()
    short = 0
    for query in QUERIES[:queries]:
        started = time.perf_counter()
        page = search.semantic_search(query=query, filters=filters, limit=10)
        times.append((time.perf_counter() - started) * 1000)
        paths.add(str(page.index_used))
        got = [card.id for card in page.listings]
        vector = get_embedder().embed_query(query)
        exact = exact_top10(conn, vector, filters)
        recalls.append(recall(distances(conn, vector, got), exact))
        short += len(got) < min(10, matching)
    return recalls, short, times, paths


def recall_check(queries_per_bucket: int = 8) -> list[dict[str, Any]]:
    from listings.models import PropertyListing

    total = PropertyListing.objects.filter(embedding__isnull=False).count()
    measured = [(f, _count(f) / total) for f in BUCKET_CANDIDATES]
    results = []
    conn = raw_connection()
    try:
        for target in TARGETS:
            filters, share = min(measured, key=lambda item: abs(item[1] - target) / target)
            filters = filters | {"listing_status": "any"}
            matching = _count(filters)
            recalls, short, _, _ = _recall_runs(conn, filters, matching, queries_per_bucket)
            results.append(
                {
                    "target_share": target,
                    "filters": filters,
                    "share": round(share, 5),
                    "matching_rows": matching,
                    "queries": len(recalls),
                    "recall_at_10": round(statistics.mean(recalls), 4),
                    "short_pages": short,
                }
            )
    finally:
        conn.close()
    return results


# Filters on columns the source database has no index for (building type, renovation,
# rooms, deal type): the planner cannot narrow them through an index, so the exact scan
# reads the whole table, and above EXACT_VECTOR_SEARCH_MAX_ROWS matches they are ranked by
# the whole-table HNSW graph. At 1 000 000 listings they keep 1-7 % of them.
UNINDEXED_FILTERS: list[dict[str, Any]] = [
    {"building_type": "panel", "rooms_count": 1},
    {"building_type": "monolith", "renovation_status": "euro", "rooms_count": 2},
    {"building_type": "brick", "deal_type": "sale", "rooms_count": 2},
    {"deal_type": "rent_long", "rooms_count": 3, "renovation_status": "euro"},
    {"deal_type": "rent_short", "rooms_count": 1},
]


def recall_unindexed(queries: int = 8) -> list[dict[str, Any]]:
    """recall@10 by distance, the path taken and the search function's p50 under
    UNINDEXED_FILTERS, each against the exact top 10 of the same filter."""
    from listings.models import PropertyListing

    total = PropertyListing.objects.filter(embedding__isnull=False).count()
    results = []
    conn = raw_connection()
    try:
        for filters in UNINDEXED_FILTERS:
            filters = filters | {"listing_status": "any"}
            matching = _count(filters)
            recalls, short, times, paths = _recall_runs(conn, filters, matching, queries)
            results.append(
                {
                    "filters": filters,
                    "share": round(matching / total, 5) if total else 0.0,
                    "matching_rows": matching,
                    "paths": sorted(paths),
                    "p50_ms": round(statistics.median(times), 2),
                    "recall_at_10": round(statistics.mean(recalls), 4),
                    "recall_worst_query": min(recalls),
                    "short_pages": short,
                }
            )
    finally:
        conn.close()
    return results


def recall(got: Sequence[tuple[int, float]], exact: Sequence[tuple[int, float]]) -> float:
    """recall@k by distance, as ANN-benchmarks counts it: a listing found counts when it is
    as near as the exact k-th (1e-6 apart at most). Listings embedded from the same short
    text share a vector, and the exact order among equal distances is arbitrary: counted by
    id, a page of exactly as near listings would score 0.8 (measured at 100 000 listings)."""
    if not exact:
        return 1.0
    kth = max(distance for _, distance in exact) + 1e-6
    return min(sum(1 for _, distance in got if distance <= kth), len(exact)) / len(exact)


def distances(conn: psycopg.Connection, vector: Any, ids: Sequence[int]) -> list[tuple[int, float]]:
    """(id, cosine distance to `vector`) of the listings `ids`."""
    rows = conn.execute(
        "SELECT id, embedding <=> %s FROM property_listings WHERE id = ANY(%s)",
        [np.asarray(vector, dtype=np.float32), list(ids)],
    ).fetchall()
    return [(int(row[0]), float(row[1])) for row in rows]


def exact_top10(
    conn: psycopg.Connection, vector: Any, filters: dict[str, Any]
) -> list[tuple[int, float]]:
    """The true top 10 under the filters, (id, distance): a sequential scan and a full
    sort, no index."""
    clauses, params = ["embedding IS NOT NULL"], []
    for key in (
        "city",
        "district",
        "deal_type",
        "rooms_count",
        "building_type",
        "renovation_status",
    ):
        if key in filters:
            clauses.append(f"{key} = %s")
            params.append(filters[key])
    with conn.transaction():
        conn.execute("SET LOCAL enable_indexscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
        rows = conn.execute(
            f"SELECT id, embedding <=> %s FROM property_listings "  # noqa: S608
            f"WHERE {' AND '.join(clauses)} ORDER BY 2, id LIMIT 10",
            [np.asarray(vector, dtype=np.float32), *params],
        ).fetchall()
    return [(int(row[0]), float(row[1])) for row in rows]


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2, default=str)
