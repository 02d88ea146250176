"""The "Пошук за змістом" page's form and result rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.http import QueryDict
from django.urls import reverse

from .. import types
from ..errors import InvalidArgument
from ..interpretation.order import ORDER_LABELS, UNAVAILABLE_ORDER_LABELS
from ..models import DealType, PropertyListing
from ..results import SearchPage
from ..search.understood import read_query
from .formatting import enum_label, format_area, format_price

SEMANTIC_LIMITS = (10, 20, 50)

# What was read from the query and not applied, as staff read it (`interpreted.refused`
# tells agents, in English): an order this page's ranking does not sort by, a value outside
# a filter's bounds ("на 300 поверсі").
ORDER_NOT_APPLIED = "{order}: пошук за змістом ранжує за схожістю і не сортує"
ORDER_UNAVAILABLE = "{order}: такого порядку пошук не дає"
VALUE_NOT_APPLIED = "{field}: значення поза межами, які приймає фільтр"
# The column a filter bounds, by its name less min_/max_; its verbose name names it.
FILTERED_COLUMNS = {
    "area": "total_area",
    "rooms": "rooms_count",
    "metro_distance": "metro_distance_meters",
    "published_after": "publish_date",
    "published_before": "publish_date",
}


DEFAULT_SEMANTIC_LIMIT = 20


SEMANTIC_TITLE = "Пошук за змістом"


SEMANTIC_TEMPLATE = "admin/listings/propertylisting/semantic_search.html"


def understood_chips(query: QueryDict, page: SearchPage | None) -> list[dict[str, Any]]:
    """The filters read from the query as chips; each one's link searches again without the
    words it was read from."""
    if page is None or page.interpreted is None:
        return []
    text = query.get("query", "")
    chips = []
    for chip in page.interpreted.chips:
        if set(chip.filters) <= set(page.interpreted.overridden):
            continue
        without = query.copy()
        without["query"] = " ".join((text[: chip.start] + " " + text[chip.end :]).split())
        without.pop("offset", None)  # another search: from its first page
        chips.append(
            {
                "label": chip.label,
                "remove": "?" + without.urlencode(),
                "if_removed": _if_removed(page, chip.filters),
            }
        )
    return chips


def not_applied(page: SearchPage | None) -> list[str]:
    """What was read from the query and not applied, in Ukrainian, one line per filter or
    range (a range's two ends are one line)."""
    if page is None or page.interpreted is None:
        return []
    lines: list[str] = []
    for name in page.interpreted.refused:
        if name == "sort_by":
            line = _order_line(page)
        else:
            line = VALUE_NOT_APPLIED.format(field=_filter_field(name))
        if line not in lines:
            lines.append(line)
    return lines


def _order_line(page: SearchPage) -> str:
    """Why the order the query asked for was not applied, as its chip would name it
    ("спочатку дешевші": this page ranks by similarity; "спочатку старіші": no sort gives
    it): the query read again (a fraction of a millisecond), not the agents' English
    reason."""
    reading = read_query(page.query) if page.query else None
    unavailable = reading.order_unavailable if reading else None
    if unavailable in UNAVAILABLE_ORDER_LABELS:
        return ORDER_UNAVAILABLE.format(order=f"«{UNAVAILABLE_ORDER_LABELS[unavailable]}»")
    order = reading.order if reading else None
    asked = f"«{ORDER_LABELS[order]}»" if order in ORDER_LABELS else "порядок"
    return ORDER_NOT_APPLIED.format(order=asked)


def _filter_field(name: str) -> str:
    """The Ukrainian name of what filter `name` bounds ("min_floor": "поверх")."""
    if name.endswith("price_per_m2"):
        return "ціна за м²"
    base = name.removeprefix("min_").removeprefix("max_")
    column = FILTERED_COLUMNS.get(base, base)
    try:
        return str(cast(Any, PropertyListing._meta.get_field(column)).verbose_name)
    except FieldDoesNotExist:
        return name


def _if_removed(page: SearchPage, names: Sequence[str]) -> str | None:
    """On an empty page: how many listings match without the filters a chip set (the group
    of filters dropped together that holds them, SearchPage.if_dropped); None when none."""
    for dropped in page.if_dropped or ():
        if dropped.total and set(names) - {"currency"} <= set(dropped.dropped):
            return f"{dropped.total}" if dropped.total_exact else f"понад {dropped.total}"
    return None


def requested_offset(query: QueryDict) -> int:
    """The page's offset from the link that asked for it ("offset"); 0 when absent or not a
    whole number within the tools' range (a hand-edited link)."""
    raw = query.get("offset", "")
    return int(raw) if raw.isdigit() and int(raw) <= types.MAX_OFFSET else 0


def page_links(query: QueryDict, page: SearchPage | None) -> dict[str, Any] | None:
    """Which results the page shows ("21–40") and the links to the pages before and after
    it: the same search with another offset."""
    if page is None or not (page.listings or page.offset):
        return None
    _, next_offset = types.paging(
        offset=page.offset,
        limit=page.limit,
        total=page.total,
        total_exact=page.total_exact,
        rows=page.rows(),
    )

    def at(offset: int) -> str:
        moved = query.copy()
        moved["offset"] = str(offset)
        return "?" + moved.urlencode()

    return {
        "first": page.offset + 1,
        "last": page.offset + page.rows(),
        "previous": at(max(page.offset - page.limit, 0)) if page.offset else None,
        "next": at(next_offset) if next_offset is not None else None,
    }


def _with_defaults(query: QueryDict) -> QueryDict:
    data = query.copy()
    if not data.get("interpret"):
        data["interpret"] = "1"
    if not data.get("mode"):
        data["mode"] = "semantic"
    if not data.get("limit"):
        data["limit"] = str(DEFAULT_SEMANTIC_LIMIT)
    return data


def _result_rows(page: SearchPage) -> list[dict[str, Any]]:
    return [
        {
            "card": card,
            "url": reverse("admin:listings_propertylisting_change", args=[card.id]),
            "price": format_price(card.price, card.currency),
            "area": format_area(card.total_area),
            "deal": enum_label("deal_type", card.deal_type),
            "status": enum_label("listing_status", card.listing_status),
        }
        for card in page.listings
    ]


class SemanticSearchForm(forms.Form):
    query = forms.CharField(
        label="Запит",
        max_length=settings.MAX_QUERY_LENGTH,
        widget=forms.TextInput(
            attrs={"size": 70, "placeholder": "простора квартира біля парку з ремонтом"}
        ),
    )
    mode = forms.ChoiceField(
        label="Режим",
        choices=[
            ("semantic", "за змістом (семантичний)"),
            ("hybrid", "гібридний (зміст + слова)"),
        ],
    )
    interpret = forms.TypedChoiceField(
        label="Розуміти запит",
        coerce=lambda value: value == "1",
        choices=[
            ("1", "так: кімнати, ціну, місто тощо — у фільтри"),
            ("0", "ні: шукати текст як є"),
        ],
    )
    city = forms.ChoiceField(label="Місто", required=False)
    deal_type = forms.ChoiceField(
        label="Тип угоди", required=False, choices=[("", "будь-який"), *DealType.choices]
    )
    limit = forms.TypedChoiceField(
        label="Показати",
        coerce=int,
        choices=[(n, str(n)) for n in SEMANTIC_LIMITS],
        initial=DEFAULT_SEMANTIC_LIMIT,
    )

    def __init__(self, *args: Any, cities: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        city = cast(forms.ChoiceField, self.fields["city"])
        city.choices = [("", "усі міста"), *((name, name) for name in cities)]
        limit = cast(forms.TypedChoiceField, self.fields["limit"])
        limit.choices = [(n, str(n)) for n in SEMANTIC_LIMITS if n <= settings.MAX_LIMIT]

    def clean_query(self) -> str:
        """The query as the tools take it (listings.types.Query), refused with their message."""
        try:
            return types.query_text(self.cleaned_data["query"])
        except InvalidArgument as exc:
            raise forms.ValidationError(exc.message) from None
