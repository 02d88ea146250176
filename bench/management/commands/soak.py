"""Soak test: N concurrent MCP clients making mixed tool calls for a while, on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from typing import Any

import psutil
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from bench.localserver import ServerDidNotStart, serving
from bench.mix import EXPECTED_ERRORS, MIX
from vmkproject.pgbackend.base import APPLICATION_NAME
from vmkproject.routers import LISTINGS_ALIAS


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values) or [0.0]
    return round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 1)


def _server_connections(server_pid: int | None) -> int:
    """Database connections held by the server process (all servers' with --url)."""
    name = f"{APPLICATION_NAME}:{server_pid}" if server_pid else f"{APPLICATION_NAME}:%"
    with connections[LISTINGS_ALIAS].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s "
            "AND pid <> pg_backend_pid()",
            [name],
        )
        row = cursor.fetchone()
    connections[LISTINGS_ALIAS].close()
    return int(row[0]) if row else 0


class Command(BaseCommand):
    help = (
        "Run N concurrent MCP clients with mixed tool calls against a server on 127.0.0.1 "
        "(started here unless --url) and report calls, errors, p50/p99 at the start and the "
        "end, server memory and database connections at the start and the end."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--clients", type=int, default=32)
        parser.add_argument("--seconds", type=float, default=300.0)
        parser.add_argument("--url", default="", help="a running server's /mcp URL")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with serving(options["url"]) as (url, server):
                process = psutil.Process(server.process.pid) if server else None
                soaking = self._soak(url, options["clients"], options["seconds"], process)
                report = asyncio.run(soaking)
        except ServerDidNotStart:
            raise CommandError("The soak server did not start.") from None
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for key, value in report.items():
                self.stdout.write(f"{key:28} {value}")
        if report["unexpected_errors"]:
            raise CommandError(f"{report['unexpected_errors']} calls failed unexpectedly")

    async def _soak(
        self, url: str, clients: int, seconds: float, process: psutil.Process | None
    ) -> dict[str, Any]:
        from mcp import Client

        records: list[tuple[float, float, str]] = []  # (started, ms, outcome)
        started = time.monotonic()
        deadline = started + seconds
        rss_start = process.memory_info().rss if process else None
        server_pid = process.pid if process else None
        conns_start = await asyncio.to_thread(_server_connections, server_pid)

        async def client_loop(index: int) -> None:
            rng = random.Random(index)  # noqa: S311 - a reproducible mix
            async with Client(url) as client:
                while time.monotonic() < deadline:
                    tool, arguments = rng.choice(MIX)
                    begun = time.monotonic()
                    try:
                        result = await client.call_tool(tool, arguments)
                        outcome = "ok"
                        if result.is_error:
                            text = getattr(result.content[0], "text", "{}")
                            outcome = json.loads(text).get("code", "error")
                    except Exception as exc:  # noqa: BLE001 - counted, reported
                        outcome = f"exception:{type(exc).__name__}"
                    records.append((begun - started, (time.monotonic() - begun) * 1000, outcome))

        await asyncio.gather(*(client_loop(i) for i in range(clients)))
        rss_end = process.memory_info().rss if process else None
        conns_end = await asyncio.to_thread(_server_connections, server_pid)
        window = max(seconds * 0.2, 1.0)
        first = [ms for at, ms, _ in records if at < window]
        last = [ms for at, ms, _ in records if at >= seconds - window]
        unexpected = [o for _, _, o in records if o != "ok" and o not in EXPECTED_ERRORS]
        return {
            "clients": clients,
            "seconds": seconds,
            "calls": len(records),
            "calls_per_s": round(len(records) / seconds, 1),
            "unexpected_errors": len(unexpected),
            "error_kinds": sorted(set(unexpected)),
            "p50_ms_first_window": round(statistics.median(first), 1) if first else None,
            "p99_ms_first_window": _pct(first, 99),
            "p50_ms_last_window": round(statistics.median(last), 1) if last else None,
            "p99_ms_last_window": _pct(last, 99),
            "server_rss_mb_start": round(rss_start / 2**20, 1) if rss_start else None,
            "server_rss_mb_end": round(rss_end / 2**20, 1) if rss_end else None,
            "db_connections_start": conns_start,
            "db_connections_end": conns_end,
        }
