"""Search listings from the shell, in any mode, with the same filters as the MCP tools."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from listings import market, search, types

from ._output import (
    add_filter_arguments,
    command_errors,
    dump_json,
    filters_from,
    one_of,
    page_table,
)


class Command(BaseCommand):
    help = "Search listings: semantic, full-text (text) or hybrid, with filters."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", nargs="?", default=None, help="Ukrainian search text")
        parser.add_argument("--mode", choices=types.SEARCH_MODES, default="hybrid")
        parser.add_argument("--sort", default="relevance", help=one_of(types.SORT_ORDERS, "text"))
        parser.add_argument("--limit", type=int, default=10)
        parser.add_argument("--offset", type=int, default=0)
        parser.add_argument("--min-similarity", type=float, default=None)
        parser.add_argument(
            "--metric", default="cosine", help=one_of(types.DISTANCE_METRICS, "semantic")
        )
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
        parser.add_argument(
            "--no-interpret",
            dest="interpret",
            action="store_false",
            help="search the query as it is: do not read filters from it",
        )
        parser.add_argument(
            "--no-collapse",
            dest="collapse",
            action="store_false",
            help="list every listing: do not fold duplicates (the same property re-posted) "
            "into one row",
        )
        add_filter_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        filters = filters_from(options)
        common = {
            "filters": filters,
            "limit": options["limit"],
            "offset": options["offset"],
            "interpret": options["interpret"],
        }
        # duplicates folded into one row, as the tools fold them, unless --no-collapse
        fold = market.collapsing if options["collapse"] else (lambda run: run)
        with command_errors():
            if options["mode"] == "semantic":
                page = fold(search.semantic_search)(
                    query=options["query"] or "",
                    min_similarity=options["min_similarity"],
                    distance_metric=options["metric"],
                    **common,
                )
            elif options["mode"] == "hybrid":
                page = fold(search.hybrid_search)(query=options["query"] or "", **common)
            else:
                page = fold(search.fulltext_search)(
                    query=options["query"], sort_by=options["sort"], **common
                )
        self.stdout.write(dump_json(page) if options["json"] else page_table(page))
