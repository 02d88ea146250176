from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench import floor as benchfloor
from bench import workload as bench

pytestmark = pytest.mark.usefixtures("listings_access")


def test_bench_search_prints_the_table_and_writes_the_same_json(tmp_path):
    out = tmp_path / "bench.json"
    stdout = StringIO()
    call_command(
        "bench_search",
        "--calls",
        "2",
        "--skip-mcp",
        "--concurrency",
        "1",
        "--out",
        str(out),
        stdout=stdout,
        stderr=StringIO(),
    )
    report = json.loads(out.read_text())
    assert report["printed"] in stdout.getvalue()
    collapse = report["collapse"]
    assert collapse["pages"] == len(bench.QUERIES) * len(bench.FILTER_MIX)
    assert 0 <= collapse["pages_read"] <= collapse["pages"]
    assert 0 < collapse["p50_ms"] <= collapse["p90_ms"]
    modes = {s["mode"] for s in report["series"]}
    assert modes == {
        "semantic",
        "fulltext_common",
        "fulltext_rare",
        "fulltext_absent",
        "hybrid",
        "similar",
        "stats",
        "get",
        "market_context",
        "duplicates",
        "trends_city",
    }
    assert {s["way"] for s in report["series"]} == {
        "raw_sql",
        "search_function",
        "floor",
        "floor_exact",
    }
    # Each filter's floor ef_search is the lowest reaching the target for it (None: none does).
    sweep = {row["ef_search"]: row for row in report["ef_sweep"]}
    efs = report["floor_ef_search"]
    assert set(efs) == {benchfloor.filter_key(f) for f in bench.FILTER_MIX}
    for key, floor_ef in efs.items():
        recalls = {ef: row["recall_by_filter"][key] for ef, row in sweep.items()}
        reaching = [ef for ef, recall in recalls.items() if recall >= benchfloor.FLOOR_RECALL]
        assert floor_ef == (min(reaching) if reaching else None)
    for row in sweep.values():  # one query's recall is at most its filter's mean
        served = [
            recall
            for recall in row["recall_by_filter"].values()
            if recall >= benchfloor.FLOOR_RECALL
        ]
        if not served:
            assert row["recall_worst_query"] is None
        else:
            assert 0 <= row["recall_worst_query"] <= min(served)
    per_call = {row["mode"]: row for row in report["per_call"]}
    assert per_call["get"]["statements_p50"] == 1
    # at least the page's statement; how many more depends on whether an earlier test has
    # already planned the same filters in this process (a cold plan adds an EXPLAIN)
    assert per_call["semantic"]["statements_p50"] >= 1
    assert all(row["function_above_sql_p50_ms"] > 0 for row in per_call.values())
    # each case's first call, before the warm-up, is reported apart from the steady state
    first = {row["mode"]: row for row in report["per_call_first"]}
    assert set(first) == set(per_call)
    assert all(row["function_above_sql_p50_ms"] > 0 for row in first.values())
    assert "fn first" in report["printed"]
    assert all(r["mcp_over_floor_p50"] is None for r in report["ratios"])
    calls = {s["mode"]: s["calls"] for s in report["series"]}
    assert calls.pop("fulltext_absent") == 1  # one round in ABSENT_EVERY
    assert set(calls.values()) == {2}
    assert all(s["errors"] == 0 for s in report["series"])
    assert all(r["function_over_raw_p50"] > 0 for r in report["ratios"])
    buckets = [r["target_share"] for r in report["recall"]]
    assert buckets == [0.5, 0.1, 0.01, 0.001]
    assert all(r["short_pages"] == 0 for r in report["recall"])
    assert all(r["recall_at_10"] >= 0.9 for r in report["recall"])
    # Filters no index serves: each against its exact top 10; on the test database they keep
    # few enough listings for the exact scan, whose recall is 1.0 by definition.
    unindexed = report["recall_unindexed"]
    assert [r["filters"] for r in unindexed] == [
        f | {"listing_status": "any"} for f in bench.UNINDEXED_FILTERS
    ]
    assert all(r["matching_rows"] > 0 and r["short_pages"] == 0 for r in unindexed)
    assert all(r["paths"] == ["exact (pre-filtered scan)"] for r in unindexed)
    assert all(r["recall_at_10"] == r["recall_worst_query"] == 1.0 for r in unindexed)
    assert "recall@10 under filters on columns no index serves" in report["printed"]


def test_mcp_costs_pair_calls_with_the_server_log_lines_in_order(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "INFO vmk.mcp warm-up\n"
        "tool=get_listing_by_id ms=4.0 embedding_ms=0.0 db_ms=2.0 sql_ms=1.50 statements=1 "
        "rows=1 code=ok\n"
        "tool=search_similar_listings ms=9.0 embedding_ms=0.5 db_ms=6.0 sql_ms=5.00 "
        "statements=3 rows=10 audit_ms=0.40 code=ok\n",
        encoding="utf-8",
    )
    cases = [
        bench.Case("get", print, print, "get_listing_by_id", {}),
        bench.Case("semantic", print, print, "search_similar_listings", {}),
    ]
    series = {
        "get": bench.Series("get", "mcp_http", 1, [6.0]),
        "semantic": bench.Series("semantic", "mcp_http", 1, [12.0]),
    }
    lines = benchfloor.server_lines(log)
    rows = {row["mode"]: row for row in benchfloor.mcp_above_sql(cases, series, lines)}
    assert rows["get"] == {
        "mode": "get",
        "mcp_above_sql_p50_ms": 4.5,
        "server_above_sql_p50_ms": 2.5,
        "audit_p50_ms": 0.0,  # a line from before audit_ms was logged
        "statements_p50": 1,
    }
    assert rows["semantic"]["mcp_above_sql_p50_ms"] == 6.5
    assert rows["semantic"]["audit_p50_ms"] == 0.4
    # A log that does not match the calls one to one gives no figures rather than wrong ones.
    assert benchfloor.mcp_above_sql(cases[:1], series, lines) == []


def test_the_agents_defaults_series_calls_the_search_tools_with_their_defaults():
    cases = bench.seeded_cases(7, 12)
    agents = bench.with_agents_defaults(cases)
    searching = [case for case in cases if case.tool in bench.AS_THE_FUNCTION]
    assert agents and len(agents) == len(searching) < len(cases)
    for mine, theirs in zip(searching, agents, strict=True):
        assert (
            mine.arguments["interpret"] is False and mine.arguments["collapse_duplicates"] is False
        )
        assert "interpret" not in theirs.arguments and "collapse_duplicates" not in theirs.arguments
        assert theirs.arguments == {
            key: value
            for key, value in mine.arguments.items()
            if key not in {"interpret", "collapse_duplicates"}
        }
        assert (theirs.mode, theirs.tool) == (mine.mode, mine.tool)


def test_the_agents_defaults_series_runs_through_a_real_server(tmp_path):
    from bench.localserver import start_local_server

    agents = bench.with_agents_defaults(bench.seeded_cases(7, 6))
    server = start_local_server(
        {"DJANGO_SETTINGS_MODULE": "tests.settings", "LOG_LEVEL": "INFO"}, log_dir=tmp_path
    )
    try:
        series = bench.run_mcp(server.mcp_url, agents, 1, "mcp_defaults")
    finally:
        server.stop()
    assert {item.way for item in series.values()} == {"mcp_defaults"}
    assert set(series) == {case.mode for case in agents}
    assert sum(len(item.latencies_ms) for item in series.values()) == len(agents)
    assert all(item.errors == 0 for item in series.values())
    # the calls reached the tools (one log line per call)
    assert server.log is not None and "tool=search_similar_listings" in server.log.read_text()


def test_the_market_context_floor_counts_the_comparables_market_context_counts():
    """The floor's one statement leaves the listing's re-posts out as market_context does:
    for a planted copy with a re-post among its comparables, and for plain listings, the
    counts of the city scope agree."""
    from listings import market
    from listings.models import PropertyListing
    from tests.reposts import OUR_SITE

    copies = PropertyListing.objects.exclude(url_source__startswith=OUR_SITE).order_by("id")
    others = PropertyListing.objects.filter(url_source__startswith=OUR_SITE).order_by("id")
    checked = reposted = 0
    conn = bench.raw_connection()
    try:
        for listing in [*copies[:30], *others[:30]]:
            found = market.market_context(listing_id=listing.id, currency="USD")
            if found.scope != "city":
                continue
            assert bench.raw_market_context(conn, listing.id) == found.comparables_count
            checked += 1
            reposted += bool(found.reposts_left_out)
    finally:
        conn.close()
    assert checked >= 10 and reposted >= 1, (checked, reposted)
