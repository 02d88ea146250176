"""'More like this' from the shell."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from listings import market, search

from ._output import add_filter_arguments, command_errors, dump_json, filters_from, page_table


class Command(BaseCommand):
    help = (
        "Listings most similar to the given listing (its stored embedding), without its own "
        "re-posts; duplicates among them fold into one card, as find_similar_to_listing does."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("listing_id", type=int)
        parser.add_argument("--limit", type=int, default=10)
        parser.add_argument("--offset", type=int, default=0)
        parser.add_argument("--json", action="store_true")
        add_filter_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        with command_errors():
            page = market.collapsing(search.similar_to_listing)(
                listing_id=options["listing_id"],
                filters=filters_from(options),
                limit=options["limit"],
                offset=options["offset"],
            )
        self.stdout.write(dump_json(page) if options["json"] else page_table(page))
