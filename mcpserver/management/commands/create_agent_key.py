"""Create an agent key for /mcp and print it (the only time it is shown)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mcpserver import keys

CREATED = "Agent key '{name}' created ({expiry}). It is shown only now; store it safely:"
USAGE = "Agents send it on every /mcp request as the header:  Authorization: Bearer {key}"


class Command(BaseCommand):
    help = "Create an API key an agent sends to /mcp as a bearer token; prints it once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="A unique name for the agent (shown in the audit log).")
        parser.add_argument(
            "--expires-days",
            type=int,
            default=None,
            help="Days the key stays valid (default: until revoked).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["expires_days"]
        if days is not None and days < 1:
            raise CommandError("--expires-days must be at least 1.")
        try:
            key, plain = keys.create_key(name=options["name"], expires_at=keys.expires_in(days))
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        expiry = "no expiry"
        if key.expires_at is not None:
            expiry = f"expires {timezone.localtime(key.expires_at):%Y-%m-%d %H:%M %Z}"
        self.stdout.write(CREATED.format(name=key.name, expiry=expiry))
        self.stdout.write("")
        self.stdout.write(plain)
        self.stdout.write("")
        self.stdout.write(USAGE.format(key=plain))
