"""Delete audit log rows older than the retention period."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcpserver import audit

PRUNED = "Deleted {count} audit log rows older than {days} days."


class Command(BaseCommand):
    help = "Delete tool calls older than --days (default: AUDIT_RETENTION_DAYS) from the audit log."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=settings.AUDIT_RETENTION_DAYS,
            help="Keep this many days (default: AUDIT_RETENTION_DAYS = %(default)s).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        count = audit.prune(older_than_days=days)
        self.stdout.write(PRUNED.format(count=count, days=days))
