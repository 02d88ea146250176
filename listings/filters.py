"""The filter whitelist shared by every search: parse, validate, explain errors."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date
from typing import Any

from django.conf import settings
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from . import vocabulary
from .errors import InvalidArgument
from .meant import bracketed, close_names
from .models import (
    BathroomType,
    BuildingType,
    Currency,
    DealType,
    HeatingType,
    ListingStatus,
    ParkingType,
    RenovationStatus,
    WindowView,
)
from .vocabulary import STATUS_ANY, STATUS_UNKNOWN, Vocabulary

MAX_TEXT_FILTER = 200
MAX_NUMBER = 1e12

UNKNOWN_FILTER = "Unknown filter '{key}'{meant}. Allowed filters: {allowed}."
BAD_FILTER_VALUE = "Filter '{key}': {problem}."
FILTERS_NOT_OBJECT = "'filters' must be an object (JSON dictionary) of filter names to values."
MIN_OVER_MAX = "Filter '{low}' ({low_value}) is greater than '{high}' ({high_value})."


def configured_currency(value: str) -> str | None:
    """The code of a currency as it is spelled ("usd", "грн", "$"): the built-in spellings and
    CURRENCY_ALIASES, among the currencies EXCHANGE_RATES has; None for any other."""
    codes = list(settings.EXCHANGE_RATES)
    return vocabulary.currency_code(
        value, vocabulary.currency_aliases(settings.CURRENCY_ALIASES, codes)
    )


class Filters(BaseModel):
    """Structured filters, AND-ed. Text values match exactly (as in describe_schema)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    city: str | None = Field(None, description="City in Ukrainian, e.g. 'Київ', 'Львів'.")
    district: str | None = Field(None, description="District in Ukrainian, e.g. 'Печерський'.")
    metro_station: str | None = Field(
        None, description="Metro station in Ukrainian, e.g. 'Лук'янівська'."
    )
    # Every value present of the same words as a place filter's, where the table spells one
    # place several ways ("Палац спорту" in Київ, "Палац Спорту" in Харків): set when place
    # names are resolved (understanding.resolve_places), matched with the value; never
    # given by a caller, and replaced, not changed.
    _spellings: dict[str, tuple[str, ...]] = PrivateAttr(default_factory=dict)
    # Enum filters are plain strings here: the values present in the database and the
    # synonyms are checked in the search layer (resolve_filters), which may read the database.
    deal_type: str | None = Field(
        None,
        description="sale, rent_long (monthly rent) or rent_short (daily rent); values present "
        "in the database and synonyms (describe_schema) are accepted too.",
        examples=DealType.values,
    )
    property_type_id: int | None = Field(None, ge=1, description="Property type id.")
    property_type: str | None = Field(
        None,
        description="Property type slug, e.g. 'apartment', 'house' (see describe_schema); "
        "its name or a word for it ('квартира') is read as the slug.",
    )
    listing_status: str = Field(
        "active",
        description="active, sold, rented, removed or archived; default 'active', which also "
        "keeps listings with no recorded status; 'unknown': only those; 'any' lifts the filter.",
        examples=[*ListingStatus.values, STATUS_ANY, STATUS_UNKNOWN],
    )
    min_price: float | None = Field(None, ge=0, description="Lowest price, in `currency`.")
    max_price: float | None = Field(None, ge=0, description="Highest price, in `currency`.")
    min_price_per_m2: float | None = Field(
        None, ge=0, description="Lowest price per m² of total area, in `currency`."
    )
    max_price_per_m2: float | None = Field(
        None, ge=0, description="Highest price per m² of total area, in `currency`."
    )
    currency: str = Field(
        "USD",
        description="Currency of the prices (per m² too): USD, EUR or UAH (spellings such as грн, "
        "$, € too); listings in every currency match through the exchange rates in "
        "describe_schema.",
        examples=Currency.values,
    )
    rooms_count: int | None = Field(None, ge=0, le=100, description="Exact number of rooms.")
    min_rooms: int | None = Field(None, ge=0, le=100, description="At least this many rooms.")
    max_rooms: int | None = Field(None, ge=0, le=100, description="At most this many rooms.")
    min_area: float | None = Field(None, ge=0, description="Smallest total area, m².")
    max_area: float | None = Field(None, ge=0, description="Largest total area, m².")
    min_kitchen_area: float | None = Field(None, ge=0, description="Smallest kitchen, m².")
    max_kitchen_area: float | None = Field(None, ge=0, description="Largest kitchen, m².")
    min_living_area: float | None = Field(None, ge=0, description="Smallest living area, m².")
    max_living_area: float | None = Field(None, ge=0, description="Largest living area, m².")
    floor: int | None = Field(None, ge=-5, le=200, description="Exact floor.")
    min_floor: int | None = Field(None, ge=-5, le=200, description="Lowest floor.")
    max_floor: int | None = Field(None, ge=-5, le=200, description="Highest floor.")
    not_top_floor: bool | None = Field(
        None, description="true: not on the building's top floor (floor below floors_count)."
    )
    top_floor: bool | None = Field(
        None,
        description="true: on the building's top floor (floor equal to floors_count); false: "
        "below it, as not_top_floor.",
    )
    min_floors_count: int | None = Field(
        None, ge=1, le=200, description="At least this many storeys in the building."
    )
    max_floors_count: int | None = Field(
        None, ge=1, le=200, description="At most this many storeys in the building."
    )
    max_metro_distance: int | None = Field(
        None,
        ge=0,
        le=100_000,
        description="Farthest from a metro station, metres (listings with a recorded distance).",
    )
    has_balcony: bool | None = Field(None, description="true: at least one balcony; false: none.")
    building_type: str | None = Field(
        None,
        description="brick, panel, monolith, gas_block or wood (or a value present, a synonym).",
        examples=BuildingType.values,
    )
    renovation_status: str | None = Field(
        None,
        description="cosmetic, euro, designer, none or construction; renovated: any of the "
        "first three (or a value present, a synonym: 'euro' also matches 'euro_repair', "
        "'Євроремонт').",
        examples=RenovationStatus.values,
    )
    heating_type: str | None = Field(
        None,
        description="central, autonomous, floor (underfloor) or none (or a value present, a "
        "synonym: 'individual' is autonomous).",
        examples=HeatingType.values,
    )
    bathroom_type: str | None = Field(
        None,
        description="separate, combined or multiple (or a value present, a synonym).",
        examples=BathroomType.values,
    )
    parking_type: str | None = Field(
        None,
        description="ground, underground, garage or none (or a value present, a synonym).",
        examples=ParkingType.values,
    )
    has_parking: bool | None = Field(
        None, description="true: a parking of any kind recorded; false: none."
    )
    window_view: str | None = Field(
        None,
        description="yard, street, park, water or forest (or a value present, a synonym: "
        "'sea', 'river' are water).",
        examples=WindowView.values,
    )
    min_building_year: int | None = Field(
        None, ge=1000, le=2100, description="Built in this year or later."
    )
    max_building_year: int | None = Field(
        None, ge=1000, le=2100, description="Built in this year or earlier."
    )
    published_after: date | None = Field(
        None, description="Only listings published on or after this date (YYYY-MM-DD)."
    )
    published_before: date | None = Field(
        None, description="Only listings published on or before this date (YYYY-MM-DD)."
    )

    @field_validator(
        "city", "district", "metro_station", "property_type", *vocabulary.FILTERED_ENUMS
    )
    @classmethod
    def _clean_text(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be empty")
        if len(value) > MAX_TEXT_FILTER:
            raise ValueError(f"must be at most {MAX_TEXT_FILTER} characters")
        if any(ord(ch) < 32 for ch in value):
            raise ValueError("must not contain control characters")
        return value

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        code = configured_currency(value)
        if code is None:
            allowed = ", ".join(settings.EXCHANGE_RATES)
            raise ValueError(vocabulary.CURRENCY_NOT_ALLOWED.format(allowed=allowed))
        return code

    @field_validator(
        "min_price",
        "max_price",
        "min_price_per_m2",
        "max_price_per_m2",
        "min_area",
        "max_area",
        "min_kitchen_area",
        "max_kitchen_area",
        "min_living_area",
        "max_living_area",
    )
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and (math.isnan(value) or math.isinf(value) or value > MAX_NUMBER):
            raise ValueError(f"must be a finite number up to {MAX_NUMBER:.0e}")
        return value

    @model_validator(mode="after")
    def _ranges(self) -> Filters:
        for low, high in (
            ("min_price", "max_price"),
            ("min_price_per_m2", "max_price_per_m2"),
            ("min_rooms", "max_rooms"),
            ("min_area", "max_area"),
            ("min_kitchen_area", "max_kitchen_area"),
            ("min_living_area", "max_living_area"),
            ("min_floor", "max_floor"),
            ("min_floors_count", "max_floors_count"),
            ("min_building_year", "max_building_year"),
            ("published_after", "published_before"),
        ):
            low_value, high_value = getattr(self, low), getattr(self, high)
            if low_value is not None and high_value is not None and low_value > high_value:
                raise ValueError(
                    MIN_OVER_MAX.format(
                        low=low, low_value=low_value, high=high, high_value=high_value
                    )
                )
        return self

    def enums(self) -> dict[str, str]:
        """The enum filters set (vocabulary.FILTERED_ENUMS), by name."""
        values = {name: getattr(self, name) for name in vocabulary.FILTERED_ENUMS}
        return {name: value for name, value in values.items() if value is not None}

    def spelled(self, name: str, value: Any) -> list[Any]:
        """The values a place filter `name` holding `value` matches: it, and the other
        spellings present of the same place."""
        return [value, *(other for other in self._spellings.get(name, ()) if other != value)]

    def with_spellings(self, spellings: Mapping[str, tuple[str, ...]]) -> Filters:
        """A copy that matches these spellings of its place filters too."""
        copied = self.model_copy()
        copied._spellings = {name: tuple(found) for name, found in spellings.items()}
        return copied

    def spellings_key(self) -> list[tuple[str, tuple[str, ...]]]:
        """The spellings, for the key of a statement they are part of."""
        return sorted(self._spellings.items())

    def key(self) -> str:
        """What the filters match, as a key of what is remembered of a search (its row
        estimate, its path): the values and the places' spellings."""
        dumped = self.model_dump_json()
        return f"{dumped}{self.spellings_key()}" if self._spellings else dumped

    def active(self) -> dict[str, Any]:
        """The filters that were set (for echoing back to the caller)."""
        return self.model_dump(exclude_defaults=True, mode="json") | {
            "listing_status": self.listing_status
        }


FILTER_NAMES: tuple[str, ...] = tuple(Filters.model_fields)
# The bounds given in `currency`: a price, or a price per m² of total area.
PRICE_FILTERS = frozenset({"min_price", "max_price", "min_price_per_m2", "max_price_per_m2"})

# The documented values of the enum filters (the models' TextChoices), the listing status's
# two words and the currencies.
ENUMS_FROM_MODELS = {
    **{name: vocabulary.ENUM_CHOICES[name].values for name in vocabulary.FILTERED_ENUMS},
    "listing_status": [*ListingStatus.values, STATUS_ANY, STATUS_UNKNOWN],
    "currency": Currency.values,
}


# Words agents put for a filter's name that no filter's name has as one of its words (those
# are found by it: "price" is min_price or max_price), and the filters they mean.
FILTER_WORDS: dict[str, tuple[str, ...]] = {
    "town": ("city",),
    "bedrooms": ("rooms_count", "min_rooms", "max_rooms"),
    "type": ("property_type",),
    "area": ("min_area", "max_area"),
    "price_per_m2": ("min_price_per_m2", "max_price_per_m2"),
    "price_per_sqm": ("min_price_per_m2", "max_price_per_m2"),
    "storeys": ("min_floors_count", "max_floors_count"),
    "year_built": ("min_building_year", "max_building_year"),
    "building_year": ("min_building_year", "max_building_year"),
}


def meant_filters(key: str) -> list[str]:
    """The filters an unknown name probably means (meant.close_names)."""
    return close_names(key, FILTER_NAMES, FILTER_WORDS)


def explain_filter_error(error: Mapping[str, Any]) -> str:
    location = [str(part) for part in error.get("loc", ()) if part != "__root__"]
    key = location[0] if location else ""
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        meant = bracketed(meant_filters(key))
        return UNKNOWN_FILTER.format(key=key, meant=meant, allowed=", ".join(FILTER_NAMES))
    if not key:
        message = str(error.get("msg", "invalid filters"))
        return message.removeprefix("Value error, ").rstrip(".") + "."
    if kind == "literal_error":
        allowed = ", ".join(ENUMS_FROM_MODELS.get(key, []))
        return BAD_FILTER_VALUE.format(key=key, problem=f"must be one of {allowed}")
    problem = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return BAD_FILTER_VALUE.format(key=key, problem=problem[:1].lower() + problem[1:])


def resolve_filters(filters: Filters, vocab: Vocabulary) -> Filters:
    """Enum filters checked against the live vocabulary and put in their documented form
    ("Євроремонт" -> "euro"); raises InvalidArgument naming the allowed values."""
    resolved: dict[str, str] = {}
    for name in vocabulary.FILTERED_ENUMS:
        value = getattr(filters, name)
        if value is None:
            continue
        if name == "listing_status" and vocabulary.key(value) in {STATUS_ANY, STATUS_UNKNOWN}:
            resolved[name] = vocabulary.key(value)
            continue
        try:
            resolved[name] = vocab.resolve(name, value)
        except ValueError as exc:
            raise InvalidArgument(BAD_FILTER_VALUE.format(key=name, problem=str(exc))) from None
    return filters.model_copy(update=resolved)


def parse_filters(raw: Filters | Mapping[str, Any] | None) -> Filters:
    """Validate untrusted filters; raises InvalidArgument naming what is allowed."""
    if raw is None:
        return Filters.model_validate({})
    if isinstance(raw, Filters):
        return raw
    if not isinstance(raw, Mapping):
        raise InvalidArgument(FILTERS_NOT_OBJECT)
    cleaned = {key: value for key, value in raw.items() if value is not None}
    try:
        return Filters.model_validate(cleaned)
    except ValidationError as exc:
        raise InvalidArgument(explain_filter_error(exc.errors()[0])) from None
