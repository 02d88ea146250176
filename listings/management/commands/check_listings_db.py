"""Check the configured listings database against what the project needs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from listings.checks import run_checks

MARKS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


class Command(BaseCommand):
    help = (
        "Check tables and columns, vector dimension, HNSW and GIN indexes, the text search "
        "configuration, read-only sessions, pgvector and embedding coverage."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        checks = run_checks()
        for check in checks:
            self.stdout.write(f"[{MARKS[check.status]}] {check.name}: {check.detail}")
        failed = [check.name for check in checks if check.status == "fail"]
        if failed:
            raise CommandError(f"{len(failed)} check(s) failed: {', '.join(failed)}")
        self.stdout.write("The listings database has everything the project needs.")
