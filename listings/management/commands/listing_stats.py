"""Price statistics from the shell."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from listings import search, types

from ._output import add_filter_arguments, command_errors, dump_json, filters_from, one_of, table

GROUP_WIDTH = (18, 32)  # the group column: at least, at most ("Святошинський (Київ)")


def _group_width(rows: list[dict[str, Any]]) -> int:
    longest = max((len(str(row["group"])) + 1 for row in rows), default=0)
    return min(max(longest, GROUP_WIDTH[0]), GROUP_WIDTH[1])


class Command(BaseCommand):
    help = "Counts and price figures (min, median, max, per m²), overall or grouped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group-by", default=None, help=one_of(types.GROUP_BY))
        parser.add_argument(
            "--in-currency",
            dest="stats_currency",
            default=None,
            help="currency of the figures, "
            + one_of(types.CURRENCIES)
            + " or a spelling; by default the one most of the listings are priced in",
        )
        parser.add_argument("--json", action="store_true")
        add_filter_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        with command_errors():
            result = search.listing_stats(
                filters=filters_from(options),
                group_by=options["group_by"],
                currency=options["stats_currency"],
            )
        if options["json"]:
            self.stdout.write(dump_json(result))
            return
        # a group of listings with no value recorded: "—", as a listing with no price
        rows = [
            row.model_dump() | ({"group": "—"} if result.group_by and row.group is None else {})
            for row in result.groups
        ]
        # by deal type each group may be in its own currency (a sale in USD, a rent in UAH)
        own = {row.currency for row in result.groups} - {result.currency}
        in_currency = "in each group's currency" if own else f"in {result.currency}"
        self.stdout.write(
            f"{result.total} listings, prices {in_currency}\n"
            + table(
                rows,
                [
                    ("group", result.group_by or "all", _group_width(rows)),
                    ("count", "count", 7),
                    *([("currency", "currency", 9)] if own else []),
                    ("min_price", "min", 12),
                    ("median_price", "median", 12),
                    ("max_price", "max", 12),
                    ("median_price_per_m2", "median/m²", 10),
                ],
            )
        )
        for warning in result.warnings:
            self.stderr.write(f"note: {warning}")
