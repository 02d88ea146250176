"""The filter whitelist shared by every search: parse, validate, explain errors."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import InvalidArgument
from .models import BuildingType, Currency, DealType, ListingStatus, RenovationStatus

DealTypeValue = Literal["sale", "rent_long", "rent_short"]
StatusValue = Literal["active", "sold", "rented", "removed", "archived", "any"]
CurrencyValue = Literal["USD", "EUR", "UAH"]
BuildingTypeValue = Literal["brick", "panel", "monolith", "gas_block", "wood"]
RenovationValue = Literal["cosmetic", "euro", "designer", "none", "construction"]

MAX_TEXT_FILTER = 200
MAX_NUMBER = 1e12

UNKNOWN_FILTER = "Unknown filter '{key}'. Allowed filters: {allowed}."
BAD_FILTER_VALUE = "Filter '{key}': {problem}."
FILTERS_NOT_OBJECT = "'filters' must be an object (JSON dictionary) of filter names to values."
MIN_OVER_MAX = "Filter '{low}' ({low_value}) is greater than '{high}' ({high_value})."


class Filters(BaseModel):
    """Structured filters, AND-ed. Text values match exactly (as in describe_schema)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    city: str | None = Field(None, description="City in Ukrainian, e.g. 'Київ', 'Львів'.")
    district: str | None = Field(None, description="District in Ukrainian, e.g. 'Печерський'.")
    metro_station: str | None = Field(
        None, description="Metro station in Ukrainian, e.g. 'Лук'янівська'."
    )
    deal_type: DealTypeValue | None = Field(
        None, description="sale, rent_long (monthly rent) or rent_short (daily rent)."
    )
    property_type_id: int | None = Field(None, ge=1, description="Property type id.")
    property_type: str | None = Field(
        None, description="Property type slug, e.g. 'apartment', 'house' (see describe_schema)."
    )
    listing_status: StatusValue = Field(
        "active", description="Listing status; default 'active'; 'any' lifts the filter."
    )
    min_price: float | None = Field(None, ge=0, description="Lowest price, in `currency`.")
    max_price: float | None = Field(None, ge=0, description="Highest price, in `currency`.")
    currency: CurrencyValue = Field(
        "USD",
        description="Currency of min_price/max_price; listings in every currency match "
        "through the exchange rates in describe_schema.",
    )
    rooms_count: int | None = Field(None, ge=0, le=100, description="Exact number of rooms.")
    min_rooms: int | None = Field(None, ge=0, le=100, description="At least this many rooms.")
    max_rooms: int | None = Field(None, ge=0, le=100, description="At most this many rooms.")
    min_area: float | None = Field(None, ge=0, description="Smallest total area, m².")
    max_area: float | None = Field(None, ge=0, description="Largest total area, m².")
    floor: int | None = Field(None, ge=-5, le=200, description="Exact floor.")
    min_floor: int | None = Field(None, ge=-5, le=200, description="Lowest floor.")
    max_floor: int | None = Field(None, ge=-5, le=200, description="Highest floor.")
    has_balcony: bool | None = Field(None, description="true: at least one balcony; false: none.")
    building_type: BuildingTypeValue | None = Field(
        None, description="brick, panel, monolith, gas_block or wood."
    )
    renovation_status: RenovationValue | None = Field(
        None, description="cosmetic, euro, designer, none or construction."
    )
    published_after: date | None = Field(
        None, description="Only listings published on or after this date (YYYY-MM-DD)."
    )

    @field_validator("city", "district", "metro_station", "property_type")
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

    @field_validator("min_price", "max_price", "min_area", "max_area")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and (math.isnan(value) or math.isinf(value) or value > MAX_NUMBER):
            raise ValueError(f"must be a finite number up to {MAX_NUMBER:.0e}")
        return value

    @model_validator(mode="after")
    def _ranges(self) -> Filters:
        for low, high in (
            ("min_price", "max_price"),
            ("min_rooms", "max_rooms"),
            ("min_area", "max_area"),
            ("min_floor", "max_floor"),
        ):
            low_value, high_value = getattr(self, low), getattr(self, high)
            if low_value is not None and high_value is not None and low_value > high_value:
                raise ValueError(
                    MIN_OVER_MAX.format(
                        low=low, low_value=low_value, high=high, high_value=high_value
                    )
                )
        return self

    def active(self) -> dict[str, Any]:
        """The filters that were set (for echoing back to the caller)."""
        return self.model_dump(exclude_defaults=True, mode="json") | {
            "listing_status": self.listing_status
        }


FILTER_NAMES: tuple[str, ...] = tuple(Filters.model_fields)

# The documented enums (kept in sync with the model choices by a test).
ENUMS_FROM_MODELS = {
    "deal_type": DealType.values,
    "listing_status": [*ListingStatus.values, "any"],
    "currency": Currency.values,
    "building_type": BuildingType.values,
    "renovation_status": RenovationStatus.values,
}


def explain_filter_error(error: Mapping[str, Any]) -> str:
    location = [str(part) for part in error.get("loc", ()) if part != "__root__"]
    key = location[0] if location else ""
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        return UNKNOWN_FILTER.format(key=key, allowed=", ".join(FILTER_NAMES))
    if not key:
        message = str(error.get("msg", "invalid filters"))
        return message.removeprefix("Value error, ").rstrip(".") + "."
    if kind == "literal_error":
        allowed = ", ".join(ENUMS_FROM_MODELS.get(key, []))
        return BAD_FILTER_VALUE.format(key=key, problem=f"must be one of {allowed}")
    problem = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return BAD_FILTER_VALUE.format(key=key, problem=problem[:1].lower() + problem[1:])


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
