from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

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
    assert {s["way"] for s in report["series"]} == {"raw_sql", "search_function"}
    calls = {s["mode"]: s["calls"] for s in report["series"]}
    assert calls.pop("fulltext_absent") == 1  # one round in ABSENT_EVERY
    assert set(calls.values()) == {2}
    assert all(s["errors"] == 0 for s in report["series"])
    assert all(r["function_over_raw_p50"] > 0 for r in report["ratios"])
    buckets = [r["target_share"] for r in report["recall"]]
    assert buckets == [0.5, 0.1, 0.01, 0.001]
    assert all(r["short_pages"] == 0 for r in report["recall"])
    assert all(r["recall_at_10"] >= 0.9 for r in report["recall"])
