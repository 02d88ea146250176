"""bench_throughput: single tools under concurrency on 1 and 2 workers and the bare SDK."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def test_get_on_one_and_two_workers_and_the_bare_sdk(listings_db, tmp_path):
    out = tmp_path / "throughput.json"
    printed = StringIO()
    call_command(
        "bench_throughput",
        *("--tools", "get", "--concurrency", "2", "--workers", "1,2", "--seconds", "1.5"),
        *("--out", str(out)),
        stdout=printed,
        stderr=StringIO(),
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = {(r["who"], r["workers"]): r for r in report["rows"]}
    assert set(rows) == {("ours", 1), ("ours", 2), ("sdk", 1)}
    for row in rows.values():
        assert row["mode"] == "get" and row["concurrency"] == 2
        assert row["calls"] > 5 and row["errors"] == 0, row
        assert row["calls_per_s"] > 0 and row["p50_ms"] > 0
        # the server's own CPU was read from its processes (the workers' too)
        assert row["server_cpu_ms_per_call"] > 0 and row["client_cpu_ms_per_call"] > 0
    [check] = report["checks"]
    assert check["what"] == "get, concurrency 2: 2 workers ≥ 1 worker"
    assert check["met"] == (rows["ours", 2]["calls_per_s"] >= rows["ours", 1]["calls_per_s"])
    assert "calls/s" in printed.getvalue() and "checks" in printed.getvalue()


def test_get_back_to_back_is_checked_against_three_ms(listings_db, tmp_path):
    out = tmp_path / "throughput.json"
    call_command(
        "bench_throughput",
        *("--tools", "get", "--concurrency", "1", "--workers", "1", "--seconds", "1.5"),
        *("--out", str(out)),
        stdout=StringIO(),
        stderr=StringIO(),
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["who"]: r for r in report["rows"]}
    [check] = report["checks"]
    assert check["what"] == "get, 1 worker(s), one session back to back: p50 ≤ 3 ms"
    assert check["met"] == (rows["ours"]["p50_ms"] <= 3.0)
    assert f"bare SDK: {rows['sdk']['p50_ms']} ms" in check["figure"]


def test_unknown_tools_and_levels_are_refused(listings_db):
    with pytest.raises(CommandError, match="unknown tools"):
        call_command("bench_throughput", "--tools", "get,teleport")
    with pytest.raises(CommandError, match="at least 1"):
        call_command("bench_throughput", "--concurrency", "0")
