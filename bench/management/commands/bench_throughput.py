"""Calls per second of single tools under concurrency, on one worker and on several.

Issue 13's throughput targets (one worker, concurrency 8: get ≥ 300 calls/s, semantic ≥ 100;
get back to back through the SDK client, one session: p50 ≤ 3 ms;
two workers at least as fast as one at every concurrency, within the noise of rounds run in
turns) as a command that prints figures.
The server is started as an operator starts it (`manage.py serve --workers N`); a bare MCP
SDK server sending our recorded answers (bench.baresdk) shows what the SDK, uvicorn and the
same clients reach on this machine with no code of ours and no database.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from django.core.management.base import BaseCommand, CommandError, CommandParser
from prometheus_client.parser import text_string_to_metric_families

from bench import baresdk, throughput, workload
from bench.localserver import LocalServer, as_deployed, free_port, start_serve
from bench.output import add_out_argument, result_path
from bench.peer import BareSdk
from listings.errors import SearchError
from listings.models import PropertyListing

# The modes of bench_search's mix this command can load one at a time.
MODES = (
    "get",
    "semantic",
    "semantic_unfiltered",
    "similar",
    "fulltext_rare",
    "hybrid",
    "market_context",
)
# Modes that are another mode's cases narrowed: semantic search without filters (the index
# path only; the mix's selective filters are ranked by exact scans).
NARROWED = {"semantic_unfiltered": ("semantic", lambda arguments: not arguments.get("filters"))}
# Issue 13: calls/s at concurrency 8 on one worker.
TARGETS = {"get": 300.0, "semantic": 100.0}
TARGET_CONCURRENCY = 8
# Untimed calls before each tool and concurrency is timed on a server, in slices of WARM_SEC
# until the server's listings pool has stopped growing (at most WARM_MAX_SEC): psycopg_pool
# opens one connection at a time, and each new one costs the database about 0.3 s of CPU
# (the Ukrainian dictionary) at 100 000 listings, so a single 2 s slice left the first timed
# round at 8 sessions 23 % slower than the rest (semantic, 94.2 calls/s against 122.6).
# Not at the highest concurrency first: psycopg_pool lends its idle connections in turn
# (first in, first out), and after a burst of 8 sessions `get` back to back took 3.17 ms
# instead of 2.90; nor with DB_POOL_MIN raised, for the same reason (8 connections open from
# the start: 2.96 and 3.08 ms against 2.89 and 2.86 with 2).
WARM_SEC = 2.0
WARM_MAX_SEC = 20.0
# get_listing_by_id back to back through the SDK client, one session: p50 at most this.
GET_P50_TARGET_MS = 3.0


def _levels(text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CommandError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not levels or min(levels) < 1:
        raise CommandError(f"expected whole numbers of at least 1, got {text!r}")
    return levels


class Command(BaseCommand):
    help = (
        "Call one tool at a time back to back from N kept-alive MCP SDK sessions for a fixed "
        "time, on `serve --workers` 1 and 2 and on a bare SDK server sending the same answers; "
        "print calls/s, p50/p90 and CPU per call; write JSON to bench/results/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--tools", default="get,semantic", help=f"comma-separated, of: {', '.join(MODES)}"
        )
        parser.add_argument("--concurrency", default="1,8", help="sessions, default 1,8")
        parser.add_argument("--workers", default="1,2", help="serve --workers, default 1,2")
        parser.add_argument(
            "--seconds",
            type=float,
            default=10.0,
            help="per tool, concurrency and worker count, default 10",
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=4,
            help="rounds the seconds are split into, the worker counts taking turns (default 4)",
        )
        parser.add_argument(
            "--client-processes",
            type=int,
            default=2,
            help="processes the sessions are spread over (default 2)",
        )
        parser.add_argument(
            "--no-bare-sdk", action="store_true", help="skip the bare SDK server's runs"
        )
        parser.add_argument("--seed", type=int, default=7)
        add_out_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        modes = [m.strip() for m in str(options["tools"]).split(",") if m.strip()]
        unknown = sorted(set(modes) - set(MODES))
        if unknown:
            raise CommandError(f"unknown tools {unknown}; choose from {', '.join(MODES)}")
        levels = _levels(str(options["concurrency"]))
        worker_counts = _levels(str(options["workers"]))
        seconds = float(options["seconds"])
        if seconds <= 0:
            raise CommandError("--seconds must be positive")
        rounds = int(options["rounds"])
        if rounds < 1:
            raise CommandError("--rounds must be at least 1")
        try:
            cases = workload.seeded_cases(options["seed"], 40)
        except SearchError as exc:
            raise CommandError(exc.message) from None
        calls = {}
        for mode in modes:
            source, keep = NARROWED.get(mode, (mode, lambda arguments: True))
            calls[mode] = [
                (case.tool, case.arguments)
                for case in cases
                if case.mode == source and keep(case.arguments)
            ]
            if not calls[mode]:
                raise CommandError(f"the benchmark's mix has no {mode} case")
        listings = PropertyListing.objects.count()
        deployed = as_deployed()
        rows: list[dict[str, Any]] = []
        answers: dict[str, list[Any]] = {}
        work_dir = Path(tempfile.mkdtemp(prefix="bench-throughput-"))

        def timed(url: str, pid: int | None, mode_calls: Any, level: int, share: float) -> Any:
            return throughput.run(
                url,
                mode_calls,
                concurrency=level,
                seconds=seconds * share,
                client_processes=options["client_processes"],
                server_pid=pid,
            )

        # Every worker count's server runs for the whole measurement (an idle one takes
        # 0.4 % of a core), and each concurrency is measured in rounds that take the worker
        # counts in turns, the order reversed every round: the comparison of worker counts
        # is not the machine's load drifting between two halves of the run.
        servers: dict[int, LocalServer] = {}
        try:
            for workers in worker_counts:
                servers[workers] = start_serve(workers, log_dir=work_dir)
            for mode in modes:
                for server in servers.values():
                    # Untimed: warms the plans, the embedding cache and every worker's pool.
                    recorded = asyncio.run(_answers(server.mcp_url, calls[mode]))
                    failed = next((a for a in recorded if a.is_error), None)
                    if failed is not None:  # timing errors would say nothing
                        raise CommandError(f"{mode} fails: {failed.content[0].text[:300]}")
                    answers.setdefault(mode, recorded)
                for level in levels:
                    # Untimed too, at this concurrency: each worker's pool has opened (and
                    # warmed) the connections it will use before the clock runs.
                    pools = {
                        workers: _warmed(server, timed, calls[mode], level, WARM_SEC / seconds)
                        for workers, server in servers.items()
                    }
                    self.stderr.write(
                        f"  ours {mode} concurrency {level}, {rounds} round(s) "
                        f"(pool connections: {pools}) ..."
                    )
                    parts: dict[int, list[throughput.Outcome]] = {w: [] for w in worker_counts}
                    for turn in range(rounds):
                        for workers in worker_counts[:: -1 if turn % 2 else 1]:
                            server = servers[workers]
                            parts[workers].append(
                                timed(
                                    server.mcp_url,
                                    server.process.pid,
                                    calls[mode],
                                    level,
                                    1 / rounds,
                                )
                            )
                    for workers in worker_counts:
                        row = throughput.summary(parts[workers])
                        row["pool_connections"] = pools[workers]
                        rows.append({"who": "ours", "workers": workers, "mode": mode, **row})
        finally:
            for server in servers.values():
                server.stop()
        for server in servers.values():
            _report_errors(server, self.stderr)
        if not options["no_bare_sdk"]:
            for mode in modes:
                bare = BareSdk([baresdk.record(a) for a in answers[mode]], work_dir, free_port())
                keys = [(baresdk.TOOL, {"key": key}) for key in range(len(answers[mode]))]
                try:
                    for level in levels:
                        self.stderr.write(f"  bare SDK {mode} concurrency {level} ...")
                        row = throughput.summary(
                            [timed(bare.url, bare.process.pid, keys, level, 1)]
                        )
                        rows.append({"who": "sdk", "workers": 1, "mode": mode, **row})
                finally:
                    bare.stop()
        report = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "listings": listings,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "seconds_per_run": seconds,
            "rounds": rounds,
            "client_processes": options["client_processes"],
            "server": deployed,
            "rows": rows,
            "checks": _checks(rows),
        }
        self._print(report)
        path = result_path(options["out"], f"throughput-{listings}")
        path.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
        self.stdout.write(f"\nwritten to {path}")

    def _print(self, report: dict[str, Any]) -> None:
        w = self.stdout.write
        w(
            f"throughput, {report['listings']} listings, {report['seconds_per_run']} s per run "
            f"(worker counts in {report['rounds']} rounds, in turns), "
            f"sessions over {report['client_processes']} client processes; audit log on, "
            f"answers wait for their rows (AUDIT_WAIT_SEC={report['server']['audit_wait_sec']})"
        )
        w(
            f"{'mode':15} {'server':8} {'wkrs':>4} {'conc':>4} {'calls':>6} {'calls/s':>8} "
            f"{'p50 ms':>7} {'p90 ms':>7} {'errors':>6} {'srv cpu':>8} {'cli cpu':>8}"
        )
        for r in report["rows"]:
            w(
                f"{r['mode']:15} {r['who']:8} {r['workers']:>4} {r['concurrency']:>4} "
                f"{r['calls']:>6} {r['calls_per_s']:>8} {r['p50_ms']:>7} {r['p90_ms']:>7} "
                f"{r['errors']:>6} {r['server_cpu_ms_per_call']!s:>8} "
                f"{r['client_cpu_ms_per_call']!s:>8}"
            )
            if r["first_error"]:
                w(f"{'':15} first error: {r['first_error']}")
        w("(srv cpu / cli cpu: ms of CPU per call in the server's Python processes / the clients)")
        w("\nchecks")
        for check in report["checks"]:
            w(f"  {'met' if check['met'] else 'NOT met':8} {check['what']}: {check['figure']}")


def pool_connections(server: LocalServer) -> int | None:
    """The connections the server's listings pool holds, over all its workers (its /metrics,
    vmk_db_pool_connections{state="size"}); None where /metrics does not say."""
    try:
        response = httpx.get(f"{server.url}/metrics", timeout=5)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    for family in text_string_to_metric_families(response.text):
        if family.name == "vmk_db_pool_connections":
            for sample in family.samples:
                if sample.labels.get("state") == "size":
                    return int(sample.value)
    return None


def _warmed(server: LocalServer, timed: Callable[..., Any], *args: Any) -> int | None:
    """Untimed calls on the server (`timed` without a process to measure, WARM_SEC a time)
    until its pool has stopped growing, or for WARM_MAX_SEC; the pool's connections then."""
    size = pool_connections(server)
    spent = 0.0
    while True:
        timed(server.mcp_url, None, *args)
        spent += WARM_SEC
        grown = pool_connections(server)
        if grown is None or size is None or grown <= size or spent >= WARM_MAX_SEC:
            return grown
        size = grown


async def _answers(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp import Client

    async with Client(url) as client:
        return [await client.call_tool(tool, arguments) for tool, arguments in calls]


def _checks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Issue 13's targets against this run's rows."""
    ours = {(r["mode"], r["workers"], r["concurrency"]): r for r in rows if r["who"] == "ours"}
    bare_sdk = {(r["mode"], r["concurrency"]): r for r in rows if r["who"] == "sdk"}
    checks = []
    for mode, target in TARGETS.items():
        row = ours.get((mode, 1, TARGET_CONCURRENCY))
        if row is not None:
            checks.append(
                {
                    "what": f"{mode}, 1 worker, concurrency {TARGET_CONCURRENCY}: "
                    f"≥ {target:g} calls/s",
                    "figure": f"{row['calls_per_s']} calls/s, {row['errors']} errors",
                    "met": row["calls_per_s"] >= target and not row["errors"],
                }
            )
    bare = bare_sdk[("get", 1)]["p50_ms"] if ("get", 1) in bare_sdk else None
    for workers in sorted({w for (mode, w, level) in ours if mode == "get" and level == 1}):
        row = ours[("get", workers, 1)]
        checks.append(
            {
                "what": f"get, {workers} worker(s), one session back to back: "
                f"p50 ≤ {GET_P50_TARGET_MS:g} ms",
                "figure": f"p50 {row['p50_ms']} ms (bare SDK: {bare if bare else '-'} ms)",
                "met": row["p50_ms"] <= GET_P50_TARGET_MS and not row["errors"],
            }
        )
    for (mode, workers, level), row in sorted(ours.items()):
        one = ours.get((mode, 1, level))
        if workers == 1 or one is None:
            continue
        ratio, noise = scale_out(one, row)
        checks.append(
            {
                "what": f"{mode}, concurrency {level}: {workers} workers ≥ 1 worker "
                "(within the run's noise)",
                "figure": f"{row['calls_per_s']} against {one['calls_per_s']} calls/s, "
                f"× {ratio:.2f} (median of the rounds' ratios; 1 worker's rounds vary "
                f"± {100 * noise:.1f} %), p50 {row['p50_ms']} against {one['p50_ms']} ms",
                "met": ratio >= 1.0 - noise and not row["errors"],
            }
        )
    return checks


def scale_out(one: dict[str, Any], more: dict[str, Any]) -> tuple[float, float]:
    """How many times one worker's calls/s more workers reach: the median of the ratios of
    rounds run side by side (the whole runs' ratio with one round), and the noise: the
    median relative deviation of one worker's rounds from their median (0 with fewer than
    3 rounds). Two workers cannot beat one where a single session keeps one busy, so at 1.0
    a strict ≥ is a coin toss; a shortfall within the noise is not a slower server."""
    ones = one.get("rounds_calls_per_s") or [one["calls_per_s"]]
    mores = more.get("rounds_calls_per_s") or [more["calls_per_s"]]
    ratios = [m / o if o else 0.0 for o, m in zip(ones, mores, strict=True)]
    middle = statistics.median(ones)
    noise = (
        statistics.median(abs(o - middle) / middle for o in ones)
        if len(ones) >= 3 and middle
        else 0.0
    )
    return statistics.median(ratios), noise


def _report_errors(server: LocalServer, stream: Any) -> None:
    """Anything the server logged as a warning, an error or a traceback during the runs (an
    audit row that could not be written, a pool that ran dry)."""
    lines = [
        line
        for line in server.log_text().splitlines()
        if "Traceback" in line
        or " ERROR " in line
        or " WARNING " in line
        or "internal_error" in line
    ]
    for line in lines[:10]:
        stream.write(f"  server log: {line}")
