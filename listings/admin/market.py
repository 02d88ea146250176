"""The staff market dashboard ("Ринок") and the market block of a listing's detail page.

Everything comes from listings.market and listings.search; the charts are drawn in the
browser by Chart.js (vendored in static files, so the page works offline) from JSON the
view embeds with json_script.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse

from .. import market, search
from ..errors import SearchError
from ..models import DealType
from .formatting import format_amount

MARKET_TITLE = "Ринок"
MARKET_TEMPLATE = "admin/listings/propertylisting/market.html"
MARKET_FAILED = "Дані ринку не отримано: {message}"
CONTEXT_FAILED = "Не вдалося порівняти з ринком: {message}"
DUPLICATES_FAILED = "Не вдалося перевірити дублікати: {message}"
ROOMS = (1, 2, 3, 4, 5)


class MarketForm(forms.Form):
    city = forms.ChoiceField(label="Місто", required=False)
    deal_type = forms.ChoiceField(label="Тип угоди", choices=DealType.choices, initial="sale")
    rooms_count = forms.TypedChoiceField(
        label="Кімнат",
        required=False,
        coerce=int,
        empty_value=None,
        choices=[("", "будь-скільки"), *((n, str(n)) for n in ROOMS)],
    )

    def __init__(self, *args: Any, cities: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        city = self.fields["city"]
        assert isinstance(city, forms.ChoiceField)
        city.choices = [("", "усі міста"), *((name, name) for name in cities)]


def _charts(filters: dict[str, Any]) -> dict[str, Any]:
    """The three charts' data, from the search layer."""
    # the three in one currency: the one most of these listings are priced in (a rent in
    # UAH, a sale in USD), as listing_stats reads it
    districts = search.listing_stats(
        filters=filters, group_by="district" if filters.get("city") else "city"
    )
    currency = districts.currency
    trend = market.price_trends(filters=filters, period="month", currency=currency)
    distribution = market.price_distribution(filters=filters, currency=currency)
    points = trend.series[0].points if trend.series else []
    return {
        "by_place": {
            "label": "район" if filters.get("city") else "місто",
            "labels": [str(row.group or "—") for row in districts.groups],
            "values": [row.median_price_per_m2 for row in districts.groups],
            "counts": [row.count for row in districts.groups],
        },
        "trend": {
            "labels": [point.period for point in points],
            "values": [point.median_price_per_m2 for point in points],
            "counts": [point.count for point in points],
            "low_sample": [point.low_sample for point in points],
            "change_pct": trend.series[0].change_pct if trend.series else None,
        },
        "distribution": {
            "labels": [f"{band.low:,.0f}–{band.high:,.0f}" for band in distribution.bands],
            "values": [band.count for band in distribution.bands],
            "below": distribution.below,
            "above": distribution.above,
            "total": distribution.total,
        },
        "currency": trend.currency,
    }


def market_view(model_admin: Any, request: HttpRequest) -> TemplateResponse:
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    from .choices import cached_cities

    data = request.GET if "deal_type" in request.GET else {"deal_type": "sale"}
    form = MarketForm(data, cities=cached_cities())
    charts = None
    if form.is_valid():
        filters = {key: value for key, value in form.cleaned_data.items() if value}
        try:
            charts = _charts(filters)
        except SearchError as exc:
            messages.error(request, MARKET_FAILED.format(message=exc.message))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": MARKET_TITLE,
        "form": form,
        "charts": charts,
    }
    return TemplateResponse(request, MARKET_TEMPLATE, context)


def listing_market(listing_id: int) -> dict[str, Any]:
    """The detail page's market block: the verdict with its numbers, and the duplicates."""
    block: dict[str, Any] = {}
    try:
        context = block["market"] = market.market_context(listing_id=listing_id)
        block["amounts"] = {
            name: format_amount(getattr(context, name))
            for name in ("median_price", "median_price_per_m2", "price", "price_per_m2")
        }
    except SearchError as exc:
        block["market_note"] = CONTEXT_FAILED.format(message=exc.message)
    try:
        found = market.find_duplicates(listing_id=listing_id)
        block["duplicates"] = [
            {
                "match": match,
                "url": reverse("admin:listings_propertylisting_change", args=[match.id]),
            }
            for match in found.duplicates
        ]
        block["duplicate_group"] = found.duplicate_group
    except SearchError as exc:
        block["duplicates_note"] = DUPLICATES_FAILED.format(message=exc.message)
    return block
