"""Time the staff admin pages over HTTP, logged in, on the configured listings database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import admin_pages
from bench.localserver import start_local_server
from bench.output import add_out_argument, result_path
from listings.models import PropertyListing
from listings.search import estimated_count


class Command(BaseCommand):
    help = (
        "Load each admin page (changelist, filters, searches, a detail page, the semantic "
        "search page) as a logged-in superuser over HTTP and print the median and slowest "
        "load. A temporary superuser is created for the run and deleted after it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loads", type=int, default=7, help="timed loads per page (default 7)")
        parser.add_argument(
            "--url",
            default="",
            help="a running server's base URL (http://host:port) sharing this default "
            "database; by default the command starts its own",
        )
        add_out_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["loads"] < 1:
            raise CommandError("--loads must be 1 or more")
        call_command("migrate", verbosity=0)  # the default database holds the user
        listings = estimated_count(PropertyListing.objects.all())
        server = None
        url = options["url"].rstrip("/")
        if not url:
            try:
                server = start_local_server()
            except RuntimeError:
                raise CommandError("The server did not start.") from None
            url = server.url
        try:
            with admin_pages.temporary_superuser() as (username, password):
                results = admin_pages.time_pages(url, username, password, options["loads"])
        except (RuntimeError, OSError) as exc:
            raise CommandError(f"The admin benchmark failed: {exc}") from None
        finally:
            if server is not None:
                server.stop()
        text = admin_pages.format_table(results, listings)
        self.stdout.write(text)
        out = result_path(options["out"], f"admin-{listings}")
        report = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "listings_estimate": listings,
            "loads_per_page": options["loads"],
            "pages": results,
            "printed": text,
        }
        out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
        self.stdout.write(f"\nwritten to {out}")
