"""Create an agent key for /mcp and print it (the only time it is shown)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mcpserver import keys

CREATED = "Agent key '{name}' created ({expiry}). It is shown only now; store it safely:"
NEGATIVE_LIMIT = "--calls-per-minute and --calls-per-day must be 0 (no limit) or more."
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
        for window, setting in (("minute", "MCP_CALLS_PER_MINUTE"), ("day", "MCP_CALLS_PER_DAY")):
            parser.add_argument(
                f"--calls-per-{window}",
                type=int,
                default=None,
                help=f"The key's own limit of calls per {window} (default: {setting}; 0: none).",
            )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["expires_days"]
        if days is not None and days < 1:
            raise CommandError("--expires-days must be at least 1.")
        limits = {name: options[name] for name in ("calls_per_minute", "calls_per_day")}
        if any(limit is not None and limit < 0 for limit in limits.values()):
            raise CommandError(NEGATIVE_LIMIT)
        try:
            key, plain = keys.create_key(
                name=options["name"], expires_at=keys.expires_in(days), **limits
            )
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
