"""bench_throughput: single tools under concurrency on 1 and 2 workers and the bare SDK."""

from __future__ import annotations

import json
import statistics
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.management.commands import bench_throughput
from bench.management.commands.bench_throughput import scale_out


@pytest.mark.slow  # 60-70 s (three servers, warm-ups, rounds): make test-slow. That two
# workers answer a kept-alive client as fast as one is checked in test_serve_workers.
def test_get_on_one_and_two_workers_and_the_bare_sdk(listings_db, tmp_path, monkeypatch):
    # The servers' pools start with one connection: the warm-up grows them before the clock.
    monkeypatch.setenv("DB_POOL_MIN", "1")
    out = tmp_path / "throughput.json"
    printed = StringIO()
    call_command(
        "bench_throughput",
        *("--tools", "get", "--concurrency", "2", "--workers", "1,2", "--seconds", "3"),
        *("--rounds", "3", "--out", str(out)),
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
    # each worker count in 3 rounds of 1 s, taken in turns; the bare SDK in one run of 3 s
    ones, twos = rows["ours", 1]["rounds_calls_per_s"], rows["ours", 2]["rounds_calls_per_s"]
    assert len(ones) == len(twos) == 3 and min(ones + twos) > 0
    assert "rounds_calls_per_s" not in rows["sdk", 1]
    # one worker's pool had grown to the 2 sessions (from /metrics) before the rounds ran
    assert rows["ours", 1]["pool_connections"] >= 2
    assert rows["ours", 2]["pool_connections"] >= 2
    [check] = report["checks"]
    assert check["what"] == "get, concurrency 2: 2 workers ≥ 1 worker (within the run's noise)"
    ratio, noise = scale_out(rows["ours", 1], rows["ours", 2])
    assert ratio == statistics.median(two / one for one, two in zip(ones, twos, strict=True))
    assert check["met"] == (ratio >= 1.0 - noise)
    assert f"× {ratio:.2f}" in check["figure"]
    assert "calls/s" in printed.getvalue() and "checks" in printed.getvalue()


def test_scale_out_is_the_median_ratio_of_rounds_within_one_workers_noise():
    one = {"calls_per_s": 100.0, "rounds_calls_per_s": [100.0, 90.0, 110.0, 104.0]}
    more = {"calls_per_s": 98.0, "rounds_calls_per_s": [95.0, 90.0, 105.0, 100.0]}
    ratio, noise = scale_out(one, more)
    assert ratio == statistics.median([0.95, 1.0, 105 / 110, 100 / 104])
    # one worker's rounds: median 102, deviations 2, 12, 8, 2 -> median 5 -> 4.9 %
    assert noise == statistics.median([2 / 102, 12 / 102, 8 / 102, 2 / 102])
    # a whole-run comparison (one round each) has no noise to allow
    assert scale_out({"calls_per_s": 100.0}, {"calls_per_s": 99.0}) == (0.99, 0.0)


def test_the_warm_up_runs_until_the_pool_stops_growing(monkeypatch):
    sizes = iter([2, 4, 7, 7, 9])
    monkeypatch.setattr(bench_throughput, "pool_connections", lambda server: next(sizes))
    slices = []
    server = SimpleNamespace(mcp_url="http://127.0.0.1:1/mcp")
    warmed = bench_throughput._warmed(server, lambda *args: slices.append(args), "calls", 8, 0.2)
    # grown 2 -> 4 -> 7, then a slice without growth: three slices, no process timed
    assert warmed == 7 and slices == [(server.mcp_url, None, "calls", 8, 0.2)] * 3


def test_the_warm_up_stops_after_its_longest_time(monkeypatch):
    sizes = iter(range(100))
    monkeypatch.setattr(bench_throughput, "pool_connections", lambda server: next(sizes))
    slices = []
    bench_throughput._warmed(SimpleNamespace(mcp_url=""), lambda *args: slices.append(args))
    assert len(slices) == bench_throughput.WARM_MAX_SEC / bench_throughput.WARM_SEC


def test_get_back_to_back_is_checked_against_three_ms(listings_db, tmp_path):
    out = tmp_path / "throughput.json"
    call_command(
        "bench_throughput",
        *("--tools", "get", "--concurrency", "1", "--workers", "1", "--seconds", "1.5"),
        *("--rounds", "1"),
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
