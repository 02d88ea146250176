"""Soak the scaled-out layout: server processes behind HAProxy, one SIGKILLed mid-soak."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from bench import fleet
from demo import embedded as db
from vmkproject.routers import LISTINGS_ALIAS

NEEDS_EMBEDDED = (
    "soak_fleet builds its layout (a standby, an app database) on the embedded demo database: "
    "run it without LISTINGS_DATABASE_URL and DB_HOST."
)

QUOTA_NEGATIVE = "--quota must be 0 (skip the quota check) or more."


class Command(BaseCommand):
    help = (
        "Start N server processes on a PostgreSQL `default` database behind HAProxy (optionally "
        "through PgBouncer, reading from a streaming standby), soak them with M MCP clients, "
        "SIGKILL server 1 (and stop the standby) mid-soak, and report what the clients saw: "
        "calls, failed calls, p50/p99, the balancer's retries and the audit rows; first, a "
        "key's per-minute quota counted across the processes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--clients", type=int, default=16)
        parser.add_argument("--seconds", type=float, default=300.0)
        parser.add_argument("--servers", type=int, default=2)
        parser.add_argument(
            "--kill-at", type=float, default=0.5, help="share of the run when server 1 dies"
        )
        parser.add_argument(
            "--standby-stop-at",
            type=float,
            default=None,
            help="read from a standby and stop it at this share of the run",
        )
        parser.add_argument("--pgbouncer", action="store_true", help="through PgBouncer")
        parser.add_argument(
            "--quota",
            type=int,
            default=6,
            help="first, 2 x N calls through the balancer with a key allowed N per minute "
            "(0: skip)",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        embedded = settings.DATABASES[LISTINGS_ALIAS].get("EMBEDDED")
        if not embedded:
            raise CommandError(NEEDS_EMBEDDED)
        seconds = options["seconds"]
        stop_at = options["standby_stop_at"]
        quota = options["quota"]
        if quota < 0:
            raise CommandError(QUOTA_NEGATIVE)

        def quota_check(layout: fleet.Fleet) -> dict[str, Any]:
            return fleet.quota_through_balancer(layout, fleet.QUOTA_KEY, quota)

        # The demo database made (on a fresh machine) before anything copies or reads it:
        # the standby is a copy, and the servers must not race to create it.
        connections[LISTINGS_ALIAS].ensure_connection()
        connections[LISTINGS_ALIAS].close()
        try:
            report = fleet.run_fleet_soak(
                primary=db.configured_server(),
                base_env={},
                base_dir=settings.BASE_DIR,
                log_dir=Path(tempfile.mkdtemp(prefix="vmk-soak-fleet-")),
                clients=options["clients"],
                seconds=seconds,
                servers=options["servers"],
                kill_at=options["kill_at"] * seconds,
                standby_stop_at=None if stop_at is None else stop_at * seconds,
                pgbouncer=options["pgbouncer"],
                agent_keys={fleet.QUOTA_KEY: quota} if quota else None,
                before=quota_check if quota else None,
            )
        except (fleet.ToolMissing, RuntimeError) as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for key, value in report.items():
                self.stdout.write(f"{key:32} {value}")
        if report["failed_calls"]:
            raise CommandError(f"{report['failed_calls']} calls failed as the clients saw them")
        if quota and (report["quota_ok"], report["quota_rate_limited"]) != (quota, quota):
            raise CommandError(
                f"the quota of {quota} calls per minute let {report['quota_ok']} of "
                f"{report['quota_calls']} calls through"
            )
