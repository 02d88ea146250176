"""Filter values as placeholders of compiled statements (listings.compiled).

A statement was compiled once per filter *values*: an agent's next call with another city or
price compiled its statements again, twice each (compile_statement builds with two
stand-ins), and at 100 000 listings a hybrid search spent 10.7 ms above its SQL on a new
price against 1.6 ms on one seen before. The values that reach the SQL as they are given —
the places, the whole numbers, the areas and each listing currency's price window — are
placeholders instead: a statement is compiled once per filter *names* (and the values that
do decide its text: enums, the currency, flags, the date), and each call sends its own
values. compile_statement still checks that each stand-in reaches the parameters as it is;
a statement where one does not is left to the ORM.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import models

from .compiled import Placeholder, typed_placeholder
from .filters import Filters
from .models import PropertyListing
from .querysets import PropertyListingQuerySet, price_windows
from .vocabulary import Vocabulary

# Sent as given: text and whole-number filters, and the areas (numeric columns: as the
# DecimalField makes a number, Decimal).
TEXT_VALUES = ("city", "district", "metro_station")
INT_VALUES = (
    "rooms_count",
    "min_rooms",
    "max_rooms",
    "max_metro_distance",
    "min_building_year",
    "max_building_year",
    "floor",
    "min_floor",
    "max_floor",
    "min_floors_count",
    "max_floors_count",
)
AREA_COLUMNS = {
    "min_area": "total_area",
    "max_area": "total_area",
    "min_kitchen_area": "kitchen_area",
    "max_kitchen_area": "kitchen_area",
    "min_living_area": "living_area",
    "max_living_area": "living_area",
}
# Placeholder numbers from here on: a statement's words take the first ones.
FIRST_NUMBER = 100
_PRICE = "price"


def _as_decimal(column: str, value: Any) -> Decimal:
    """`value` as the ORM sends it for a numeric `column` (its DecimalField's to_python)."""
    field = PropertyListing._meta.get_field(column)
    assert isinstance(field, models.DecimalField)
    found: Decimal = field.to_python(value)
    return found


@dataclass(frozen=True)
class FilterValues:
    """`filters` with the values above taken out: `key` is the rest (what decides the SQL),
    `names` and `values` the values taken out, in their placeholders' order."""

    filters: Filters
    key: str
    names: tuple[str, ...]
    values: tuple[Any, ...]

    @property
    def slots(self) -> list[tuple[Placeholder, Any]]:
        return [
            (typed_placeholder(type(value), FIRST_NUMBER + number), value)
            for number, value in enumerate(self.values)
        ]

    def given(self, values: tuple[Any, ...]) -> tuple[Filters, dict[str, tuple[Any, Any]] | None]:
        """The filters with `values` in place of theirs (stand-ins when a statement is
        compiled, the values themselves when it is not), and each listing currency's price
        window (None without a price bound)."""
        update: dict[str, Any] = {}
        windows: dict[str, list[Any]] = {}
        for name, value in zip(self.names, values, strict=True):
            if name.startswith(_PRICE + ":"):
                _, code, end = name.split(":")
                windows.setdefault(code, [None, None])[end == "high"] = value
            else:
                update[name] = value
        filters = self.filters.model_copy(update=update) if update else self.filters
        return filters, {code: (low, high) for code, (low, high) in windows.items()} or None

    def queryset(
        self,
        given: tuple[Any, ...],
        rates: Mapping[str, float],
        vocabulary: Vocabulary | None,
    ) -> PropertyListingQuerySet:
        """The filtered listings with `given` in place of the values (see `given`)."""
        filters, price = self.given(given)
        return PropertyListing.objects.filtered(filters, rates, vocabulary, windows=price)


def filter_values(filters: Filters, rates: Mapping[str, float]) -> FilterValues:
    """`filters` split into the key of its statements and the values sent with them."""
    names: list[str] = []
    values: list[Any] = []
    cleared: dict[str, Any] = {}
    for name in (*TEXT_VALUES, *INT_VALUES, *AREA_COLUMNS):
        value = getattr(filters, name)
        if value is None:
            continue
        if name in AREA_COLUMNS:
            value = _as_decimal(AREA_COLUMNS[name], value)
        names.append(name)
        values.append(value)
        cleared[name] = type(value).__name__
    if filters.min_price is not None or filters.max_price is not None:
        # each listing currency's window, as the price's numeric column takes it
        windows = price_windows(filters.min_price, filters.max_price, filters.currency, rates)
        for code, bounds in windows.items():
            for end, bound in zip(("low", "high"), bounds, strict=True):
                if bound is not None:
                    names.append(f"{_PRICE}:{code}:{end}")
                    values.append(_as_decimal(_PRICE, bound))
        cleared.update(
            min_price=None if filters.min_price is None else "Decimal",
            max_price=None if filters.max_price is None else "Decimal",
        )
    spellings = {"spellings": filters.spellings_key()}  # baked into the SQL
    key = json.dumps(filters.model_dump(mode="json") | cleared | spellings, sort_keys=True)
    return FilterValues(filters, key, tuple(names), tuple(values))
