"""Check the configured listings database against what the project needs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from listings.checks import run_checks
from listings.management.commands._output import printable
from mcpserver.probes import interface_checks

ADVICE_UNAVAILABLE = "The listings database is not reachable: no advice could be read."
MARKS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


class Command(BaseCommand):
    help = (
        "Check tables and columns, vector dimension, HNSW and GIN indexes, the text search "
        "configuration, read-only sessions and role, pgvector, embedding and search_vector "
        "coverage, the configured embedder; then run every tool, resource and admin page "
        "read-only against the database and report what failed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--catalog-only",
            action="store_true",
            help="only the catalog checks and the embedder, not the tools and pages",
        )
        parser.add_argument(
            "--advise",
            action="store_true",
            help="print the index DDL that would lift recall and speed, for the database's "
            "owners (nothing is created)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["advise"]:
            from listings import advise

            try:
                found = advise.advise()
            except DatabaseError:
                raise CommandError(ADVICE_UNAVAILABLE) from None
            for line in advise.render(found).splitlines():
                self.stdout.write(printable(line))
            return
        checks = run_checks(interfaces=None if options["catalog_only"] else interface_checks)
        for check in checks:
            line = f"[{MARKS[check.status]}] {check.name}: {check.detail}"
            self.stdout.write(printable(line))
        failed = [check.name for check in checks if check.status == "fail"]
        if failed:
            raise CommandError(f"{len(failed)} check(s) failed: {', '.join(failed)}")
        self.stdout.write("The listings database has everything the project needs.")
