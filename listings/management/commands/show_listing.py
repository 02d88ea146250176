"""One listing's full card from the shell, contacts masked unless --show-contacts."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from listings import search

from ._output import command_errors, dump_json


class Command(BaseCommand):
    help = (
        "Print a listing's full card as JSON. contact_phone and contact_name are masked "
        "unless --show-contacts (they are third parties' personal data)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("listing_id", type=int)
        parser.add_argument(
            "--show-contacts", action="store_true", help="print contact phone and name in clear"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        with command_errors():
            listing = search.get_listing(listing_id=options["listing_id"])
        self.stdout.write(dump_json(listing, show_contacts=options["show_contacts"]))
