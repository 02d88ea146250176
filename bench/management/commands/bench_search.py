"""Benchmark every search mode three ways (raw SQL, search function, MCP over HTTP)."""

from __future__ import annotations

import os
import platform
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import floor as benchfloor
from bench import peer as benchpeer
from bench import workload
from bench.localserver import as_deployed, start_local_server
from bench.output import add_out_argument, result_path
from listings.errors import SearchError
from listings.models import PropertyListing


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
            "--peer",
            choices=["toolbox"],
            default="",
            help="also time MCP Toolbox for Databases (installed from npm under the data "
            "directory) running the same statements, and a bare MCP SDK server sending our "
            "recorded answers, interleaved with our MCP calls",
        )
        add_out_argument(parser)

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
            "interpretation": workload.interpretation_figures(),
            "series": [],
        }
        # The floor's ef_search: the lowest that reaches FLOOR_RECALL on this database.
        floor_conn = workload.raw_connection()
        try:
            vectors = {q: workload.get_embedder().embed_query(q) for q in workload.QUERIES}
            report["ef_sweep"] = benchfloor.ef_sweep(floor_conn, vectors, workload.FILTER_MIX)
        finally:
            floor_conn.close()
        ef = report["floor_ef_search"] = benchfloor.lowest_efs(report["ef_sweep"])
        server = None
        url = options["url"]
        log_dir = Path(tempfile.mkdtemp(prefix="bench-server-"))
        if not url and not options["skip_mcp"]:
            report["server"] = as_deployed()
            try:
                server = start_local_server({"LOG_LEVEL": "INFO"}, log_dir=log_dir)
            except RuntimeError:
                raise CommandError("The benchmark server did not start.") from None
            url = server.mcp_url
        try:
            # The first call of each case, before anything is warm: a filter combination's
            # statements are compiled the first time a process meets it (then kept, LRU).
            report["per_call_first"] = benchfloor.per_call_costs(cases)
            # One untimed pass of every case warms caches, pools and the server: the timed
            # calls below measure the steady state. (A quarter of them warmed before
            # 2026-12-06: the rest were compiled inside the timed calls, and the medians of
            # per-call time above SQL took in 2-8 ms of compiling for hybrid and full text.)
            workload.run_function(cases, 1)
            workload.run_raw(cases, 1)
            if url:
                workload.run_mcp(url, cases, 1)
                workload.run_mcp(url, workload.with_agents_defaults(cases), 1)
            report["per_call"] = benchfloor.per_call_costs(cases)
            for level in levels:
                for runner, way in ((workload.run_raw, "raw"), (workload.run_function, "function")):
                    self.stderr.write(f"  {way} at concurrency {level} ...")
                    for item in runner(cases, level).values():
                        report["series"].append(item.summary())
                self.stderr.write(f"  floor at concurrency {level} ...")
                for item in benchfloor.run_floor(cases, level, ef).values():
                    report["series"].append(item.summary())
                if url:
                    self.stderr.write(f"  mcp at concurrency {level} ...")
                    start = server.log.stat().st_size if server and server.log else 0
                    mcp_series = workload.run_mcp(url, cases, level)
                    for item in mcp_series.values():
                        report["series"].append(item.summary())
                    if level == 1 and server is not None and server.log is not None:
                        time.sleep(0.5)  # the last call's log line
                        lines = benchfloor.server_lines(server.log, start)
                        report["mcp_per_call"] = benchfloor.mcp_above_sql(cases, mcp_series, lines)
                    if level == 1:
                        # What an agent's call costs: the same cases with the tools'
                        # defaults (not the same answer: the filters read narrow it).
                        self.stderr.write("  mcp with the tools' defaults at concurrency 1 ...")
                        agents = workload.with_agents_defaults(cases)
                        for item in workload.run_mcp(url, agents, 1, "mcp_defaults").values():
                            report["series"].append(item.summary())
            if options["peer"] == "toolbox" and url:
                self.stderr.write("  mcp and toolbox interleaved at concurrency 1 ...")
                try:
                    report["peer"] = benchpeer.run_peer(url, cases, ef, log_dir)
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    raise CommandError(f"The Toolbox peer could not run: {exc}") from None
        finally:
            if server is not None:
                server.stop()
        report["ratios"] = ratios(report["series"])
        # After the series: its searches would warm the plans the series' first calls make.
        report["collapse"] = workload.collapse_figures()
        if not options["skip_recall"]:
            self.stderr.write("  recall of filtered semantic search ...")
            report["recall"] = workload.recall_check()
            self.stderr.write("  recall under filters no index serves ...")
            report["recall_unindexed"] = workload.recall_unindexed()
        text = render(report)
        self.stdout.write(text)
        out = result_path(options["out"], f"bench-{listings}")
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
        best = by_key.get((mode, "floor", level))
        best_ms = (best["p50_ms"] or 1e-9) if best else None
        rows.append(
            {
                "mode": mode,
                "concurrency": level,
                "function_over_raw_p50": round(function["p50_ms"] / floor, 2) if function else None,
                "mcp_over_raw_p50": round(mcp["p50_ms"] / floor, 2) if mcp else None,
                "our_sql_over_floor_p50": round(item["p50_ms"] / best_ms, 2) if best_ms else None,
                "mcp_over_floor_p50": round(mcp["p50_ms"] / best_ms, 2)
                if mcp and best_ms
                else None,
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
        f"interpretation (the request read into filters, {report['interpretation']['requests']} "
        f"requests): p50 {report['interpretation']['p50_ms']} ms, "
        f"p90 {report['interpretation']['p90_ms']} ms",
        f"collapsing duplicates (the search tools' default, {report['collapse']['pages']} "
        f"pages of semantic results, {report['collapse']['pages_read']} with cards alike "
        f"enough to read their rows): p50 {report['collapse']['p50_ms']} ms, "
        f"p90 {report['collapse']['p90_ms']} ms",
        *(
            [
                "MCP server as `make run` starts it: audit log on, answers wait for their rows "
                f"(AUDIT_WAIT_SEC={report['server']['audit_wait_sec']})"
            ]
            if "server" in report
            else []
        ),
        "",
        f"{'mode':16} {'way':16} {'conc':>4} {'calls':>6} {'err':>4} {'p50 ms':>8} "
        f"{'p90 ms':>8} {'p99 ms':>8} {'calls/s':>8}",
    ]
    for s in sorted(report["series"], key=lambda s: (s["concurrency"], s["mode"], s["way"])):
        lines.append(
            f"{s['mode']:16} {s['way']:16} {s['concurrency']:>4} {s['calls']:>6} {s['errors']:>4} "
            f"{s['p50_ms']:>8} {s['p90_ms']:>8} {s['p99_ms']:>8} {s['calls_per_s']:>8}"
        )
    lines += [
        "",
        "raw_sql = our statements replayed; floor = the best SQL for the same answer "
        f"(vector: HNSW at the lowest ef_search reaching recall@10 {benchfloor.FLOOR_RECALL} "
        "for the call's filter, the exact scan where none does; floor_exact: the exact scan)",
        "floor's ef_search per filter: "
        + "; ".join(
            f"{key} {'exact' if ef is None else ef}"
            for key, ef in (report.get("floor_ef_search") or {}).items()
        ),
        f"{'mode':16} {'conc':>4} {'function/raw':>13} {'mcp/raw':>8} {'raw/floor':>10} "
        f"{'mcp/floor':>10}",
    ]
    for r in report["ratios"]:
        lines.append(
            f"{r['mode']:16} {r['concurrency']:>4} {r['function_over_raw_p50']!s:>13} "
            f"{r['mcp_over_raw_p50']!s:>8} {r.get('our_sql_over_floor_p50')!s:>10} "
            f"{r.get('mcp_over_floor_p50')!s:>10}"
        )
    if report.get("ef_sweep"):
        lines += [
            "",
            "recall@10 (by distance) of the HNSW scan against the exact scan, "
            "the benchmark's queries x filters",
            f"{'ef_search':>9} {'recall mean':>12} {'worst filter':>13} {'worst query':>12} "
            f"{'p50 ms':>8}   (worst query: of the filters whose mean reaches "
            f"{benchfloor.FLOOR_RECALL})",
        ]
        for r in report["ef_sweep"]:
            lines.append(
                f"{r['ef_search']:>9} {r['recall_mean']:>12} {r['recall_worst_filter']:>13} "
                f"{r['recall_worst_query']!s:>12} {r['p50_ms']:>8}"
            )
    if report.get("peer"):
        lines += [
            "",
            "ours, MCP Toolbox for Databases (postgres-sql tools running the floor's "
            "statement; semantic and similar get the query vector as a parameter, it cannot "
            "embed) and a bare MCP SDK server sending our recorded answer (no database, no "
            "code of ours: the protocol's own cost), one SDK client, calls interleaved, "
            "concurrency 1",
            f"{'mode':16} {'ours p50':>9} {'toolbox':>8} {'ours/toolbox':>13} {'sdk':>6} "
            f"{'ours/sdk':>9}",
        ]
        for r in report["peer"]["rows"]:
            lines.append(
                f"{r['mode']:16} {r['ours_p50_ms']:>9} {r['toolbox_p50_ms']!s:>8} "
                f"{r['ours_over_toolbox_p50']!s:>13} {r.get('sdk_p50_ms')!s:>6} "
                f"{r.get('ours_over_sdk_p50')!s:>9}"
            )
    mcp_costs = {r["mode"]: r for r in report.get("mcp_per_call") or []}
    if report.get("per_call"):
        lines += [
            "",
            "per call (concurrency 1, p50): statements sent, SQL time inside the driver, our "
            "time above it (function; MCP client; MCP server, and the audit row's share of it), "
            "every case warmed; 'fn first': the function's time above SQL on each case's first "
            "call, its statements compiled then",
            f"{'mode':16} {'stmts':>6} {'sql ms':>8} {'fn above':>9} {'fn first':>9} "
            f"{'mcp above':>10} {'server above':>13} {'audit':>6}",
        ]
        first = {r["mode"]: r for r in report.get("per_call_first") or []}
        for r in report["per_call"]:
            mcp_row = mcp_costs.get(r["mode"], {})
            first_above = first.get(r["mode"], {}).get("function_above_sql_p50_ms", "-")
            lines.append(
                f"{r['mode']:16} {r['statements_p50']!s:>6} {r['sql_p50_ms']:>8} "
                f"{r['function_above_sql_p50_ms']:>9} {first_above!s:>9} "
                f"{mcp_row.get('mcp_above_sql_p50_ms', '-')!s:>10} "
                f"{mcp_row.get('server_above_sql_p50_ms', '-')!s:>13} "
                f"{mcp_row.get('audit_p50_ms', '-')!s:>6}"
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
    if report.get("recall_unindexed"):
        lines += [
            "",
            "recall@10 under filters on columns no index serves (the exact scan reads the table; "
            "above EXACT_VECTOR_SEARCH_MAX_ROWS matches the whole-table HNSW graph ranks them)",
            f"{'share':>8} {'rows':>7} {'recall@10':>10} {'worst':>6} {'short':>6} "
            f"{'p50 ms':>8}  path / filters",
        ]
        for r in report["recall_unindexed"]:
            lines.append(
                f"{r['share']:>8} {r['matching_rows']:>7} {r['recall_at_10']:>10} "
                f"{r['recall_worst_query']:>6} {r['short_pages']:>6} {r['p50_ms']:>8}  "
                f"{', '.join(r['paths'])} / {r['filters']}"
            )
    return "\n".join(lines)
