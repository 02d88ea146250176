"""A city's market from the shell: the price trend and the district table."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from listings import market, search, types

from ._output import add_filter_arguments, command_errors, filters_from, one_of, table


class Command(BaseCommand):
    help = "The price trend by month or quarter and the median prices by district."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--period", default="month", help=one_of(types.PERIODS))
        parser.add_argument(
            "--in-currency",
            dest="report_currency",
            default=None,
            help="currency of the figures, "
            + one_of(types.CURRENCIES)
            + "; by default the one most of the listings are priced in",
        )
        parser.add_argument("--json", action="store_true")
        add_filter_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        filters = filters_from(options)
        with command_errors():
            trend = market.price_trends(
                filters=filters, period=options["period"], currency=options["report_currency"]
            )
            # the table in the trend's currency (by default the one most listings have)
            districts = search.listing_stats(
                filters=filters, group_by="district", currency=trend.currency
            )
        if options["json"]:
            body = {
                "trend": trend.model_dump(mode="json"),
                "districts": districts.model_dump(mode="json"),
            }
            self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2))
            return
        points = [
            point.model_dump() | {"note": "мало даних" if point.low_sample else ""}
            for point in trend.series[0].points
        ]
        change = trend.series[0].change_pct
        self.stdout.write(
            f"Trend by {trend.period}, prices in {trend.currency}"
            + (f" (change {change:+.1f} %)" if change is not None else "")
            + "\n"
            + table(
                points,
                [
                    ("period", "period", 9),
                    ("count", "count", 7),
                    ("median_price", "median", 12),
                    ("median_price_per_m2", "median/m²", 10),
                    ("note", "", 10),
                ],
            )
            + f"\n\nDistricts ({districts.total} active listings)\n"
            + table(
                [row.model_dump() for row in districts.groups],
                [
                    ("group", "district", 22),
                    ("count", "count", 7),
                    ("median_price", "median", 12),
                    ("median_price_per_m2", "median/m²", 10),
                ],
            )
        )
        for warning in trend.warnings:
            self.stderr.write(f"note: {warning}")
