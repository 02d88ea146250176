"""The benchmark's floor and what a call costs above it (issue 13).

The floor is the best known SQL for the same answer, not a replay of our statements: for
vector search an HNSW index scan at the lowest `ef_search` that reaches FLOOR_RECALL for
the call's filter (found by a recall sweep in the same run), or the exact scan where no
`ef_search` does, and the exact scan besides; for full text the same
ranked candidates in one statement, without our count estimate. `bench_search` times it
next to our own SQL, the search function and the MCP tool, and measures, per call, the
statements we send and our time above the database's own (the time inside the driver's
execute, from listings.statements; over MCP from the server's log line).
"""

from __future__ import annotations

import contextlib
import json
import re
import statistics
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from bench import workload as bench
from listings import statements
from listings.search import SearchError, Timings, collect_timings

FLOOR_RECALL = 0.95
EF_CANDIDATES = (10, 20, 40, 64, 100, 200, 400, 800)
VECTOR_OPTIONS = (
    "SELECT set_config('hnsw.ef_search', %s, true), "
    "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('enable_sort', 'off', true)"
)


def _vector(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    return np.asarray(getattr(value, "to_numpy", lambda: value)(), dtype=np.float32)


def _nearest_sql(where: str, limit: int) -> str:
    return (
        f"SELECT {bench.CARD_COLUMNS}, l.embedding <=> %s AS d FROM property_listings l "  # noqa: S608
        "LEFT JOIN property_types t ON t.id = l.property_type_id "
        f"WHERE {where} AND l.embedding IS NOT NULL ORDER BY l.embedding <=> %s LIMIT {limit}"
    )


def floor_index(
    conn: psycopg.Connection, vector: Any, filters: dict[str, Any], ef: int, limit: int = 10
) -> list[tuple[int, float]]:
    """The page through the HNSW index at `ef` (kept on it), in one statement: (id,
    distance)."""
    where, params = bench._where(filters)
    vector = _vector(vector)
    with conn.transaction():
        conn.execute(VECTOR_OPTIONS, [str(ef)])
        rows = conn.execute(_nearest_sql(where, limit), [vector, *params, vector]).fetchall()
    return [(row[0], row[-1]) for row in rows]


def floor_exact(
    conn: psycopg.Connection, vector: Any, filters: dict[str, Any], limit: int = 10
) -> list[tuple[int, float]]:
    """The page by an exact scan (filters through their btree indexes, then a top-N sort):
    (id, distance)."""
    where, params = bench._where(filters)
    vector = _vector(vector)
    # Its own statement text: psycopg prepares a statement run 5 times, and a plan made for
    # floor_index's identical text (on the HNSW index) would otherwise serve this one too.
    sql = "/* exact scan */ " + _nearest_sql(where, limit)
    with conn.transaction():
        conn.execute("SELECT set_config('enable_indexscan', 'off', true)")
        rows = conn.execute(sql, [vector, *params, vector]).fetchall()
    return [(row[0], row[-1]) for row in rows]


def floor_fulltext(conn: psycopg.Connection, text: str, filters: dict[str, Any]) -> int:
    """The same ranked candidates as listings.search, in one statement and nothing else."""
    where, params = bench._where(filters)
    config = bench.settings.FTS_CONFIG
    query = "plainto_tsquery(%s::regconfig, %s)"
    rows = conn.execute(
        f"SELECT {bench.CARD_COLUMNS}, ts_rank_cd(l.search_vector, {query}) AS r, "  # noqa: S608
        f"ts_headline(%s::regconfig, l.description, {query}) FROM property_listings l "
        "LEFT JOIN property_types t ON t.id = l.property_type_id "
        f"WHERE l.id IN (SELECT l.id FROM property_listings l WHERE {where} "
        f"AND l.search_vector @@ {query} ORDER BY l.id DESC LIMIT %s) "
        "ORDER BY r DESC, l.id LIMIT 10",
        [
            config,
            text,
            config,
            config,
            text,
            *params,
            config,
            text,
            bench.settings.FTS_RANK_CANDIDATES,
        ],
    ).fetchall()
    return len(rows)


# Per filter of the benchmark's mix (filter_key), the floor's ef_search, or None where no
# ef_search reaches FLOOR_RECALL and the exact scan is the floor. An int: one for all.
Efs = Mapping[str, int | None] | int


def filter_key(filters: Mapping[str, Any]) -> str:
    return json.dumps(dict(filters), sort_keys=True, ensure_ascii=False)


def ef_for(efs: Efs, filters: Mapping[str, Any]) -> int | None:
    if isinstance(efs, int):
        return efs
    return efs.get(filter_key(filters), max((ef for ef in efs.values() if ef), default=40))


def _nearest(
    conn: psycopg.Connection, vector: Any, filters: dict[str, Any], ef: int | None, limit: int
) -> list[tuple[int, float]]:
    """The floor's page: the index scan at `ef`, or the exact scan where ef is None."""
    if ef is None:
        return floor_exact(conn, vector, filters, limit)
    return floor_index(conn, vector, filters, ef, limit)


def _similar(
    conn: psycopg.Connection, listing_id: int, filters: dict[str, Any], ef: int | None
) -> int:
    row = conn.execute("SELECT embedding FROM property_listings WHERE id = %s", [listing_id])
    found = row.fetchone()
    if not found or found[0] is None:
        return 0
    return len(_nearest(conn, found[0], filters, ef, 10))


def _hybrid(
    conn: psycopg.Connection, vector: Any, text: str, filters: dict[str, Any], ef: int | None
) -> int:
    return len(_nearest(conn, vector, filters, ef, 50)) + floor_fulltext(conn, text, filters)


def floors_of(case: bench.Case, efs: Efs) -> list[tuple[str, Callable[[psycopg.Connection], Any]]]:
    """(way, callable) of the floor for a case: "floor" (the best) and, for semantic search,
    "floor_exact" as well. Vector floors scan the index at their filter's ef_search (efs),
    or exactly where no ef_search reaches the target."""
    raw = case.raw
    func = getattr(raw, "func", None)
    kw = getattr(raw, "keywords", {})
    ef = ef_for(efs, kw["filters"]) if "filters" in kw else None
    if func is bench.raw_semantic:
        return [
            (
                "floor",
                partial(_nearest, vector=kw["vector"], filters=kw["filters"], ef=ef, limit=10),
            ),
            ("floor_exact", partial(floor_exact, vector=kw["vector"], filters=kw["filters"])),
        ]
    if func is bench.raw_similar:
        return [
            ("floor", partial(_similar, listing_id=kw["listing_id"], filters=kw["filters"], ef=ef))
        ]
    if func is bench.raw_fulltext:
        return [("floor", partial(floor_fulltext, text=kw["text"], filters=kw["filters"]))]
    if func is bench.raw_hybrid:
        return [
            (
                "floor",
                partial(
                    _hybrid, vector=kw["vector"], text=kw["text"], filters=kw["filters"], ef=ef
                ),
            )
        ]
    return [("floor", raw)]


# --- the recall sweep: the lowest ef_search that reaches the target --------------------------


def ef_sweep(
    conn: psycopg.Connection, vectors: dict[str, Any], filter_mix: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """recall@10 (by distance, bench.recall) of the index scan at each EF_CANDIDATES value
    against the exact scan, over every query and filter of the benchmark's mix (mean, worst
    filter's mean, worst single query of the filters reaching FLOOR_RECALL), with its median
    time."""
    exact = {
        (query, index): floor_exact(conn, vector, filters)
        for query, vector in vectors.items()
        for index, filters in enumerate(filter_mix)
    }
    rows = []
    for ef in EF_CANDIDATES:
        recalls: dict[int, list[float]] = {}
        times = []
        for (query, index), truth in exact.items():
            started = time.perf_counter()
            got = floor_index(conn, vectors[query], filter_mix[index], ef)
            times.append((time.perf_counter() - started) * 1000)
            recalls.setdefault(index, []).append(bench.recall(got, truth))
        every = [recall for values in recalls.values() for recall in values]
        by_filter = {
            filter_key(filter_mix[index]): round(statistics.mean(values), 4)
            for index, values in sorted(recalls.items())
        }
        rows.append(
            {
                "ef_search": ef,
                "recall_mean": round(statistics.mean(every), 4),
                # the filter of the mix whose queries fare worst, on average
                "recall_worst_filter": min(by_filter.values()),
                # the worst single query under the filters whose mean reaches FLOOR_RECALL at
                # this ef_search (those the floor sends through the index at it): the tail a
                # mean hides (100 000 listings, Київ at 200: 0.965 over 40 queries, one 0.0)
                "recall_worst_query": min(
                    (
                        recall
                        for values in recalls.values()
                        if statistics.mean(values) >= FLOOR_RECALL
                        for recall in values
                    ),
                    default=None,
                ),
                "recall_by_filter": by_filter,
                "p50_ms": round(statistics.median(times), 2),
            }
        )
    return rows


def lowest_efs(sweep: list[dict[str, Any]], target: float = FLOOR_RECALL) -> dict[str, int | None]:
    """Per filter of the mix, the lowest ef_search at which its mean recall@10 reaches
    `target`; None where none does (its floor is then the exact scan)."""
    efs: dict[str, int | None] = {}
    for key in sweep[0]["recall_by_filter"]:
        reaching = [row["ef_search"] for row in sweep if row["recall_by_filter"][key] >= target]
        efs[key] = int(min(reaching)) if reaching else None
    return efs


def run_floor(cases: list[bench.Case], concurrency: int, efs: Efs) -> dict[str, bench.Series]:
    """The floor of every case, timed like bench.run_raw (one connection per thread)."""
    floor_cases = []
    for case in cases:
        for way, call in floors_of(case, efs):
            floor_cases.append(
                bench.Case(f"{case.mode}\t{way}", call, case.function, case.tool, case.arguments)
            )
    found = bench.run_raw(floor_cases, concurrency)
    series: dict[str, bench.Series] = {}
    for key, item in found.items():
        mode, way = key.split("\t")
        item.mode, item.way = mode, way
        series[key] = item
    return series


# --- per call: statements and our time above the database's own ---------------------------


def per_call_costs(cases: list[bench.Case]) -> list[dict[str, Any]]:
    """Per mode, medians over its calls of the statements sent to the listings database and
    of the search function's time above the time inside the driver's execute."""
    by_mode: dict[str, dict[str, list[float]]] = {}
    for case in cases:
        timings = Timings()
        started = time.perf_counter()
        with (
            collect_timings(timings),
            statements.counting() as count,
            contextlib.suppress(SearchError),
        ):
            case.function()
        elapsed = (time.perf_counter() - started) * 1000
        bench.close_old_connections()
        item = by_mode.setdefault(case.mode, {"statements": [], "above": [], "sql": []})
        item["statements"].append(count.statements)
        item["sql"].append(count.sql_ms)
        item["above"].append(elapsed - count.sql_ms - timings.embedding_ms)
    return [
        {
            "mode": mode,
            "statements_p50": statistics.median(values["statements"]),
            "sql_p50_ms": round(statistics.median(values["sql"]), 2),
            "function_above_sql_p50_ms": round(statistics.median(values["above"]), 2),
        }
        for mode, values in sorted(by_mode.items())
    ]


LOG_LINE = re.compile(
    r"tool=(?P<tool>\S+) ms=(?P<ms>[\d.]+) embedding_ms=(?P<embedding>[\d.]+) "
    r"db_ms=[\d.]+ sql_ms=(?P<sql>[\d.]+) statements=(?P<statements>\d+) rows=\d+"
    r"(?: audit_ms=(?P<audit>[\d.]+))?"
)


def server_lines(log: Path, start: int = 0) -> list[dict[str, Any]]:
    """The server's per-call log lines from byte `start` of its log, in order."""
    with log.open("rb") as handle:
        handle.seek(start)
        text = handle.read().decode("utf-8", errors="replace")
    return [
        {
            "tool": found["tool"],
            "ms": float(found["ms"]),
            "embedding_ms": float(found["embedding"]),
            "sql_ms": float(found["sql"]),
            "statements": int(found["statements"]),
            "audit_ms": float(found["audit"] or 0.0),
        }
        for found in LOG_LINE.finditer(text)
    ]


def mcp_above_sql(
    cases: list[bench.Case], series: dict[str, bench.Series], lines: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per mode at concurrency 1: the client's time above the server's SQL time, and the
    server's own, matching calls to log lines by order (one client, calls in case order)."""
    if len(lines) != len(cases):
        return []
    seen: dict[str, int] = {}
    by_mode: dict[str, dict[str, list[float]]] = {}
    for case, line in zip(cases, lines, strict=True):
        if line["tool"] != case.tool:
            return []
        position = seen.get(case.mode, 0)
        seen[case.mode] = position + 1
        client_ms = series[case.mode].latencies_ms[position]
        item = by_mode.setdefault(
            case.mode, {"client": [], "server": [], "audit": [], "statements": []}
        )
        item["client"].append(client_ms - line["sql_ms"] - line["embedding_ms"])
        item["server"].append(line["ms"] - line["sql_ms"] - line["embedding_ms"])
        item["audit"].append(line["audit_ms"])
        item["statements"].append(line["statements"])
    return [
        {
            "mode": mode,
            "mcp_above_sql_p50_ms": round(statistics.median(values["client"]), 2),
            "server_above_sql_p50_ms": round(statistics.median(values["server"]), 2),
            # of the server's time, the audit row written before the answer (AUDIT_WAIT_SEC)
            "audit_p50_ms": round(statistics.median(values["audit"]), 2),
            "statements_p50": statistics.median(values["statements"]),
        }
        for mode, values in sorted(by_mode.items())
    ]
