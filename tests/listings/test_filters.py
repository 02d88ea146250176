from __future__ import annotations

import math

import pytest

from listings.errors import InvalidArgument
from listings.filters import ENUMS_FROM_MODELS, FILTER_NAMES, Filters, parse_filters
from listings.models import BuildingType, DealType, RenovationStatus


def test_defaults_to_active_listings_in_usd():
    filters = parse_filters(None)
    assert filters.listing_status == "active"
    assert filters.currency == "USD"
    assert filters.active() == {"listing_status": "active"}


def test_unknown_key_names_every_allowed_filter():
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filters({"colour": "red"})
    message = excinfo.value.message
    assert message.startswith("Unknown filter 'colour'. Allowed filters: city, district")
    assert all(name in message for name in FILTER_NAMES)


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("price_max", "'max_price'"),
        ("Max-Price", "'max_price'"),
        ("floors_count_max", "'max_floors_count'"),
        ("max_prise", "'max_price'"),
        ("floors_max", "'max_floor'"),
        ("kitchen_max", "'max_kitchen_area'"),
        ("town", "'city'"),
        ("rooms", "'rooms_count' or 'min_rooms' or 'max_rooms'"),
        ("year_built", "'min_building_year' or 'max_building_year'"),
        ("price_per_m2", "'min_price_per_m2' or 'max_price_per_m2'"),
        ("max_price_per_sqm", "'max_price_per_m2'"),
    ],
)
def test_an_unknown_key_says_which_filter_it_probably_means(key, meant):
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filters({key: 1})
    message = excinfo.value.message
    assert message.startswith(f"Unknown filter '{key}' (did you mean {meant}?). Allowed filters: ")
    assert all(name in message for name in FILTER_NAMES)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {"currency": "GBP"},
            "Filter 'currency': must be one of USD, EUR, UAH (or a spelling such as грн, $, €).",
        ),
        ({"deal_type": " "}, "Filter 'deal_type': must not be empty."),
        ({"min_price": -1}, "Filter 'min_price': input should be greater than or equal to 0."),
        (
            {"rooms_count": "two"},
            "Filter 'rooms_count': input should be a valid integer, unable to parse string as an integer.",
        ),
        (
            {"min_price": 10, "max_price": 5},
            "Filter 'min_price' (10.0) is greater than 'max_price' (5.0).",
        ),
        (
            {"min_rooms": 4, "max_rooms": 2},
            "Filter 'min_rooms' (4) is greater than 'max_rooms' (2).",
        ),
        (
            {"published_after": "2026-11-01", "published_before": "2026-10-01"},
            "Filter 'published_after' (2026-11-01) is greater than 'published_before' "
            "(2026-10-01).",
        ),
        (
            {"published_before": "вчора"},
            "Filter 'published_before': input should be a valid date or datetime, invalid "
            "character in year.",
        ),
        ({"city": "   "}, "Filter 'city': must not be empty."),
        ({"city": "Ки\x00їв"}, "Filter 'city': must not contain control characters."),
        ({"max_price": math.inf}, "Filter 'max_price': must be a finite number up to 1e+12."),
    ],
)
def test_bad_values_are_explained(raw, expected):
    with pytest.raises(InvalidArgument) as excinfo:
        parse_filters(raw)
    assert excinfo.value.message == expected
    assert excinfo.value.code == "invalid_argument"


def test_filters_must_be_an_object():
    with pytest.raises(InvalidArgument, match="must be an object"):
        parse_filters(["city", "Київ"])


def test_text_values_are_trimmed_and_none_means_unset():
    filters = parse_filters({"city": "  Київ ", "district": None})
    assert filters.city == "Київ"
    assert filters.district is None


def test_documented_enums_match_the_model_choices():
    assert ENUMS_FROM_MODELS["deal_type"] == DealType.values
    assert ENUMS_FROM_MODELS["building_type"] == BuildingType.values
    assert ENUMS_FROM_MODELS["renovation_status"] == RenovationStatus.values
    # Plain strings in the schema (values present and synonyms are checked in the search
    # layer), with the documented values as the examples an agent sees.
    for name in ("deal_type", "listing_status", "building_type", "renovation_status", "currency"):
        schema = Filters.model_json_schema()["properties"][name]
        assert schema["examples"] == ENUMS_FROM_MODELS[name]
        assert "enum" not in str(schema)


def test_listing_status_any_is_allowed():
    assert parse_filters({"listing_status": "any"}).listing_status == "any"
