"""Benchmark every search mode three ways (raw SQL, search function, MCP over HTTP)."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import workload
from bench.localserver import start_local_server
from listings.errors import SearchError
from listings.models import PropertyListing

RESULTS_DIR = Path(settings.BASE_DIR) / "bench" / "results"


class Command(BaseCommand):
    help = (
        "Run a fixed, seeded mix of Ukrainian queries per mode as raw SQL, through "
        "listings.search and through the MCP tools over HTTP; print p50/p90/p99, calls/s, "
        "the ratios to raw SQL and recall of filtered vector search; write JSON to bench/results/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--calls", type=int, default=30, help="cases per mode (default 30)")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--concurrency", default="1,8", help="comma-separated, default 1,8")
        parser.add_argument(
            "--url",
            default="",
            help="a running server's /mcp URL; by default "
            "the command starts one on a free 127.0.0.1 port",
        )
        parser.add_argument("--skip-mcp", action="store_true", help="only raw SQL and functions")
        parser.add_argument("--skip-recall", action="store_true")
        parser.add_argument(
            "--out", default="", help="JSON file (default bench/results/<time>.json)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        levels = [int(x) for x in str(options["concurrency"]).split(",") if x]
        listings = PropertyListing.objects.count()
        try:
            cases = workload.seeded_cases(options["seed"], options["calls"])
        except SearchError as exc:
            raise CommandError(exc.message) from None
        report: dict[str, Any] = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "listings": listings,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "calls_per_mode": options["calls"],
            "embedding": workload.embedding_figures(),
            "series": [],
        }
        server = None
        url = options["url"]
        if not url and not options["skip_mcp"]:
            try:
                server = start_local_server()
            except RuntimeError:
                raise CommandError("The benchmark server did not start.") from None
            url = server.mcp_url
        try:
            # One untimed pass warms caches, pools and the server.
            workload.run_function(cases[: len(cases) // 4], 1)
            workload.run_raw(cases[: len(cases) // 4], 1)
            if url:
                workload.run_mcp(url, cases[: len(cases) // 4], 1)
            for level in levels:
                for runner, way in ((workload.run_raw, "raw"), (workload.run_function, "function")):
                    self.stderr.write(f"  {way} at concurrency {level} ...")
                    for item in runner(cases, level).values():
                        report["series"].append(item.summary())
                if url:
                    self.stderr.write(f"  mcp at concurrency {level} ...")
                    for item in workload.run_mcp(url, cases, level).values():
                        report["series"].append(item.summary())
        finally:
            if server is not None:
                server.stop()
        report["ratios"] = ratios(report["series"])
        if not options["skip_recall"]:
            self.stderr.write("  recall of filtered semantic search ...")
            report["recall"] = workload.recall_check()
        text = render(report)
        self.stdout.write(text)
        out = (
            Path(options["out"])
            if options["out"]
            else RESULTS_DIR / (f"bench-{listings}-{datetime.now(UTC):%Y%m%dT%H%M%S}.json")
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        report["printed"] = text
        out.write_text(workload.to_json(report), encoding="utf-8")
        self.stdout.write(f"\nwritten to {out}")


def ratios(series: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key = {(s["mode"], s["way"], s["concurrency"]): s for s in series}
    rows = []
    for (mode, way, level), item in sorted(by_key.items()):
        if way != "raw_sql":
            continue
        floor = item["p50_ms"] or 1e-9
        function = by_key.get((mode, "search_function", level))
        mcp = by_key.get((mode, "mcp_http", level))
        rows.append(
            {
                "mode": mode,
                "concurrency": level,
                "function_over_raw_p50": round(function["p50_ms"] / floor, 2) if function else None,
                "mcp_over_raw_p50": round(mcp["p50_ms"] / floor, 2) if mcp else None,
            }
        )
    return rows


def render(report: dict[str, Any]) -> str:
    lines = [
        f"listings: {report['listings']}   cases per mode: {report['calls_per_mode']}   "
        f"cpus: {report['machine']['cpus']}",
        f"embedding ({report['embedding']['embedder']}): miss p50 "
        f"{report['embedding']['miss_p50_ms']} ms, "
        f"cache hit p50 {report['embedding']['hit_p50_ms']} ms",
        "",
        f"{'mode':16} {'way':16} {'conc':>4} {'calls':>6} {'err':>4} {'p50 ms':>8} "
        f"{'p90 ms':>8} {'p99 ms':>8} {'calls/s':>8}",
    ]
    for s in sorted(report["series"], key=lambda s: (s["concurrency"], s["mode"], s["way"])):
        lines.append(
            f"{s['mode']:16} {s['way']:16} {s['concurrency']:>4} {s['calls']:>6} {s['errors']:>4} "
            f"{s['p50_ms']:>8} {s['p90_ms']:>8} {s['p99_ms']:>8} {s['calls_per_s']:>8}"
        )
    lines += ["", f"{'mode':16} {'conc':>4} {'function/raw':>13} {'mcp/raw':>8}"]
    for r in report["ratios"]:
        lines.append(
            f"{r['mode']:16} {r['concurrency']:>4} {r['function_over_raw_p50']!s:>13} "
            f"{r['mcp_over_raw_p50']!s:>8}"
        )
    if report.get("recall"):
        lines += [
            "",
            f"{'target':>7} {'share':>8} {'rows':>7} {'recall@10':>10} {'short':>6}  filters",
        ]
        for r in report["recall"]:
            lines.append(
                f"{r['target_share']:>7} {r['share']:>8} {r['matching_rows']:>7} "
                f"{r['recall_at_10']:>10} {r['short_pages']:>6}  {r['filters']}"
            )
    return "\n".join(lines)
