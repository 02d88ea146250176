"""The listings' vocabulary as data_collector really writes it: one synonym table, one
currency map, and the values present in the database mapped onto the documented ones.

Pure: nothing here reads the database or the settings. search.py reads the values present
(one query, cached a minute) and builds a Vocabulary; the query builders take `__in` lists
of raw spellings from it, so no function ever wraps an indexed column.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from .apostrophes import AS_ASCII
from .models import (
    BathroomType,
    BuildingType,
    DealType,
    HeatingType,
    LayoutType,
    ListingStatus,
    MetroDistanceType,
    ParkingType,
    RenovationStatus,
    WindowView,
)

# Every enum column and its documented values (the models' TextChoices are the one source).
ENUM_CHOICES: dict[str, type[models.TextChoices]] = {
    "deal_type": DealType,
    "listing_status": ListingStatus,
    "metro_distance_type": MetroDistanceType,
    "building_type": BuildingType,
    "renovation_status": RenovationStatus,
    "bathroom_type": BathroomType,
    "parking_type": ParkingType,
    "heating_type": HeatingType,
    "layout_type": LayoutType,
    "window_view": WindowView,
}
# The enum columns a search filter exists for.
FILTERED_ENUMS = (
    "deal_type",
    "listing_status",
    "building_type",
    "renovation_status",
    "heating_type",
    "bathroom_type",
    "parking_type",
    "window_view",
)
# Filter values that stand for several documented ones: "renovated" ("з ремонтом") is any
# renovation done. A filter matches the spellings of each; no raw value is read as one.
RENOVATED = "renovated"
VALUE_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "renovation_status": {RENOVATED: ("cosmetic", "euro", "designer")},
}
GROUP_LABELS = {RENOVATED: "з ремонтом"}
# listing_status words that are not values: lift the filter, or only listings without one.
STATUS_ANY = "any"
STATUS_UNKNOWN = "unknown"
NULL_STATUS_POLICY = (
    "listing_status 'active' (the default) also keeps listings whose status is not recorded "
    "(NULL): a listing nobody marked sold or removed is most likely live. 'unknown' selects "
    "only those, 'any' lifts the filter."
)

# Spellings scrapers use for the documented values, beyond the values themselves and their
# Ukrainian labels (both matched automatically), case- and whitespace-insensitive.
SYNONYMS: dict[str, dict[str, str]] = {
    "deal_type": {
        "sell": "sale",
        "selling": "sale",
        "продаж": "sale",
        "продажа": "sale",
        "rent": "rent_long",
        "long_rent": "rent_long",
        "long_term_rent": "rent_long",
        "monthly": "rent_long",
        "оренда": "rent_long",
        "аренда": "rent_long",
        "довгострокова": "rent_long",
        "daily": "rent_short",
        "short_rent": "rent_short",
        "short_term_rent": "rent_short",
        "подобово": "rent_short",
        "посуточно": "rent_short",
        "подобова": "rent_short",
    },
    "listing_status": {
        "активне": "active",
        "активний": "active",
        "активно": "active",
        "published": "active",
        "активное": "active",
        "продано": "sold",
        "продана": "sold",
        "здано": "rented",
        "орендовано": "rented",
        "сдано": "rented",
        "deleted": "removed",
        "знято": "removed",
        "видалено": "removed",
        "archive": "archived",
        "архів": "archived",
        "архив": "archived",
    },
    "metro_distance_type": {
        "walking": "walk",
        "on_foot": "walk",
        "foot": "walk",
        "пішки": "walk",
        "пешком": "walk",
        "by_transport": "transport",
        "public_transport": "transport",
        "транспорт": "transport",
        "транспортом": "transport",
    },
    "building_type": {
        "цегляний": "brick",
        "цегла": "brick",
        "кирпич": "brick",
        "кирпичный": "brick",
        "панельний": "panel",
        "панельный": "panel",
        "панелька": "panel",
        "monolithic": "monolith",
        "монолітний": "monolith",
        "монолит": "monolith",
        "монолитный": "monolith",
        "gasblock": "gas_block",
        "aerated_concrete": "gas_block",
        "газобетон": "gas_block",
        "wooden": "wood",
        "timber": "wood",
        "дерев'яний": "wood",
        "деревянный": "wood",
    },
    "renovation_status": {
        "euro_repair": "euro",
        "eurorepair": "euro",
        "євроремонт": "euro",
        "євро": "euro",
        "евроремонт": "euro",
        "евро": "euro",
        "cosmetic_repair": "cosmetic",
        "косметичний": "cosmetic",
        "косметический": "cosmetic",
        "designer_repair": "designer",
        "дизайнерський": "designer",
        "авторський": "designer",
        "дизайнерский": "designer",
        "no_repair": "none",
        "without_repair": "none",
        "без_ремонту": "none",
        "без_ремонта": "none",
        "будівельний": "construction",
        "after_builders": "construction",
    },
    "bathroom_type": {
        "суміщений": "combined",
        "совмещенный": "combined",
        "раздельный": "separate",
        "several": "multiple",
    },
    "parking_type": {
        "підземний_паркінг": "underground",
        "подземный": "underground",
        "no_parking": "none",
    },
    "heating_type": {
        "centralized": "central",
        "централізоване_опалення": "central",
        "центральное": "central",
        "individual": "autonomous",
        "автономне_опалення": "autonomous",
        "автономное": "autonomous",
        "underfloor": "floor",
    },
    "layout_type": {"студія": "studio", "студия": "studio"},
    "window_view": {
        "courtyard": "yard",
        "двір": "yard",
        "во_двор": "yard",
        "вулиця": "street",
        "на_улицу": "street",
        "парк": "park",
        "river": "water",
        "lake": "water",
        "sea": "water",
        "річка": "water",
        "ліс": "forest",
    },
}

# The default of the EXCHANGE_RATES setting (units per US dollar), and the rates the demo
# generator prices its listings with.
DEFAULT_EXCHANGE_RATES: dict[str, float] = {"USD": 1.0, "EUR": 0.92, "UAH": 41.5}

# Currency spellings (case- and whitespace-insensitive) onto the three codes; the setting
# CURRENCY_ALIASES is merged over these. "у.о."/"у.е." (conventional units) mean US dollars.
CURRENCY_ALIASES: dict[str, str] = {
    "usd": "USD",
    "$": "USD",
    "us$": "USD",
    "дол": "USD",
    "дол.": "USD",
    "долар": "USD",
    "долари": "USD",
    "доларів": "USD",
    "доллар": "USD",
    "долларов": "USD",
    "dollar": "USD",
    "у.о.": "USD",
    "у.е.": "USD",
    "у.о": "USD",
    "у.е": "USD",
    "уо": "USD",
    "уе": "USD",
    "eur": "EUR",
    "€": "EUR",
    "euro": "EUR",
    "євро": "EUR",
    "евро": "EUR",
    "uah": "UAH",
    "₴": "UAH",
    "грн": "UAH",
    "грн.": "UAH",
    "гривня": "UAH",
    "гривні": "UAH",
    "гривень": "UAH",
    "гривна": "UAH",
    "гривен": "UAH",
    "hrn": "UAH",
    "grn": "UAH",
}

# The problem part of "Filter '<name>': <problem>." (filters.BAD_FILTER_VALUE).
ENUM_VALUE_NOT_ALLOWED = "must be one of {allowed} (or a synonym listed in describe_schema)"
CURRENCY_NOT_ALLOWED = "must be one of {allowed} (or a spelling such as грн, $, €)"


def key(text: str) -> str:
    """The form values are compared in: case, spacing, dashes and apostrophes ignored."""
    text = text.casefold().translate(AS_ASCII)
    return "_".join(text.replace("-", " ").replace("_", " ").split())


def currency_key(text: str) -> str:
    """Currencies compare without any spacing: "у. о." is "у.о.", "US $" is "us$"."""
    return key(text).replace("_", "")


def currency_aliases(extra: Mapping[str, str], codes: Sequence[str]) -> dict[str, str]:
    """The built-in spellings with `extra` (the CURRENCY_ALIASES setting) merged over them."""
    merged = {currency_key(code): code for code in codes}
    merged |= {
        currency_key(spelling): code for spelling, code in CURRENCY_ALIASES.items() if code in codes
    }
    merged |= {currency_key(spelling): code.upper() for spelling, code in extra.items()}
    return merged


def currency_code(value: str, aliases: Mapping[str, str]) -> str | None:
    return aliases.get(currency_key(value))


def _synonym_table() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for column, choices in ENUM_CHOICES.items():
        mapping = {key(str(label)): str(value) for value, label in choices.choices}
        mapping |= {key(spelling): target for spelling, target in SYNONYMS.get(column, {}).items()}
        mapping |= {key(str(value)): str(value) for value in choices.values}
        table[column] = mapping
    return table


SYNONYM_TABLE = _synonym_table()


def documented(column: str) -> list[str]:
    return [str(value) for value in ENUM_CHOICES[column].values]


def canonical(column: str, value: str) -> str | None:
    """The documented value `value` stands for, or None for a value outside the enum."""
    return SYNONYM_TABLE[column].get(key(value))


@dataclass(frozen=True)
class Vocabulary:
    """What the listings table holds: raw values per enum column with their counts, NULLs,
    and the currency spellings of priced rows, with the mapping onto the documented values."""

    present: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    nulls: Mapping[str, int] = field(default_factory=dict)
    # Raw currency value (None = NULL) -> how many rows with a price carry it.
    priced_currencies: Mapping[str | None, int] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    null_currency: str | None = None
    # Property type slug -> the ids of property_types carrying it (empty: not read).
    property_types: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    @functools.cached_property
    def statement_key(self) -> tuple[Any, ...]:
        """What of it decides a statement's SQL (the values and currencies present, which
        columns hold NULLs, the aliases, the property types' ids), without the counts: a
        statement compiled with one vocabulary serves another of the same key. Keyed by the
        object's id, every statement was compiled again each minute, when the vocabulary is
        read again (its counts move as listings come)."""
        return (
            tuple(sorted((column, tuple(sorted(found))) for column, found in self.present.items())),
            tuple(sorted(column for column, count in self.nulls.items() if count)),
            tuple(sorted(self.priced_currencies, key=lambda code: (code is None, code or ""))),
            tuple(sorted(self.aliases.items())),
            self.null_currency,
            tuple(sorted(self.property_types.items())),
        )

    def property_type_ids(self, slug: str) -> tuple[int, ...]:
        """The ids a property type filter matches; empty when the slug is not known."""
        return self.property_types.get(slug, ())

    # --- enums ----------------------------------------------------------------------------

    def spellings(self, column: str, value: str) -> list[str]:
        """Raw values to match for `value` (documented, a synonym, a group of documented values
        or a value present)."""
        members = VALUE_GROUPS.get(column, {}).get(key(value))
        if members is not None:
            own = {v for v in self.present.get(column, {}) if key(v) == key(value)}
            return sorted(own.union(*(self.spellings(column, m) for m in members)))
        target = canonical(column, value)
        present = self.present.get(column, {})
        if target is not None:
            raw = {target} | {v for v in present if canonical(column, v) == target}
        else:
            raw = {v for v in present if key(v) == key(value)}
        return sorted(raw)

    def resolve(self, column: str, value: str) -> str:
        """The value a filter stands for: documented, or a present raw value outside the enum.

        Raises ValueError with the allowed values when it is neither.
        """
        target = canonical(column, value)
        if target is not None:
            return target
        if key(value) in VALUE_GROUPS.get(column, {}):
            return key(value)
        for raw in self.present.get(column, {}):
            if key(raw) == key(value) and canonical(column, raw) is None:
                return raw
        raise ValueError(ENUM_VALUE_NOT_ALLOWED.format(allowed=", ".join(self.allowed(column))))

    def allowed(self, column: str) -> list[str]:
        """Documented values (and any/unknown for the status, the groups), then unknown values
        present."""
        values = documented(column) + list(VALUE_GROUPS.get(column, {}))
        if column == "listing_status":
            values += [STATUS_ANY, STATUS_UNKNOWN]
        extra = sorted(v for v in self.present.get(column, {}) if canonical(column, v) is None)
        return values + extra

    def kinds(self, column: str) -> set[str]:
        """The values present, each spelling of a documented value counted as that value
        ("Продаж" and "sale": one)."""
        return {canonical(column, raw) or raw for raw in self.present.get(column, {})}

    def describe(self, column: str) -> dict[str, object]:
        present = self.present.get(column, {})
        return {
            "documented": documented(column),
            "present": dict(present),
            "maps_to": {raw: canonical(column, raw) for raw in present},
            "null_count": self.nulls.get(column, 0),
            "synonyms": {
                spelling: target
                for spelling, target in sorted(SYNONYM_TABLE[column].items())
                if spelling != target
            },
            **({"groups": dict(VALUE_GROUPS[column])} if column in VALUE_GROUPS else {}),
        }

    # --- currencies -----------------------------------------------------------------------

    def currency_spellings(self, code: str) -> list[str]:
        """Raw currency values that mean `code`: the code itself and the spellings present."""
        raw = {code} | {
            v
            for v in self.priced_currencies
            if v is not None and self.aliases.get(currency_key(v)) == code
        }
        return sorted(raw)

    def currency_of(self, raw: str | None) -> str | None:
        if raw is None:
            return self.null_currency
        return self.aliases.get(currency_key(raw))

    def prices_without_currency(self) -> int:
        """Priced rows whose currency is NULL (with no DEFAULT_CURRENCY) or not recognised."""
        return sum(n for raw, n in self.priced_currencies.items() if self.currency_of(raw) is None)

    def unusable_currencies(self) -> list[str | None]:
        """Raw currency values of priced rows that no price comparison can use."""
        return [raw for raw in self.priced_currencies if self.currency_of(raw) is None]
