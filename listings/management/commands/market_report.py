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
        period, currency = options["period"], options["report_currency"]
        with command_errors():
            deals: list[str | None] = [None]
            if "deal_type" not in filters:
                # sales and rents apart, each in its own currency: mixed, a median means nothing
                by_deal = market.price_trends(
                    filters=filters, period=period, currency=currency, group_by="deal_type"
                )
                deals = [s.group for s in by_deal.series if isinstance(s.group, str)] or [None]
            sections = []
            for deal in deals:
                scoped = filters if deal is None else {**filters, "deal_type": deal}
                trend = market.price_trends(filters=scoped, period=period, currency=currency)
                # the table in the trend's currency (by default the one most listings have)
                districts = search.listing_stats(
                    filters=scoped, group_by="district", currency=trend.currency
                )
                sections.append((deal, trend, districts))
        if options["json"]:
            bodies = [
                {
                    "trend": trend.model_dump(mode="json"),
                    "districts": districts.model_dump(mode="json"),
                }
                for _, trend, districts in sections
            ]
            body: Any = bodies[0]
            if deals != [None]:
                body = {
                    "by_deal_type": [
                        {"deal_type": d, **b} for d, b in zip(deals, bodies, strict=True)
                    ]
                }
            self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2))
            return
        for number, (deal, trend, districts) in enumerate(sections):
            gap = "\n" if number else ""
            heading = "" if deal is None else f"{gap}== {deal} ==\n"
            self.stdout.write(heading + _report(trend, districts))
            for warning in trend.warnings:
                self.stderr.write(f"note: {warning}")


def _report(trend: Any, districts: Any) -> str:
    """One deal type's trend (or the filters' whole) and its district table."""
    points = [
        point.model_dump() | {"note": "мало даних" if point.low_sample else ""}
        for point in trend.series[0].points
    ]
    change = trend.series[0].change_pct
    return (
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
