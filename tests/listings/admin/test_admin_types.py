"""The admin's display code takes every column type a foreign database may use."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from listings.admin import format_area, format_moment, format_price, local_date, price_per_m2

NBSP = "\u00a0"
KYIV = ZoneInfo("Europe/Kyiv")


@pytest.mark.parametrize(
    ("price", "area", "expected"),
    [
        (Decimal("65000"), Decimal("50"), Decimal("1300")),
        (65000.0, Decimal("50"), Decimal("1300")),  # double precision price, numeric area
        (Decimal("65000"), 50.0, Decimal("1300")),
        (65000, 50, Decimal("1300")),  # integer columns
        (12000.0, 48.5, Decimal("247")),  # real / float both
        (500.0, 40.0, Decimal("12.50")),  # a rent: cents kept
        (1.0, 3.0, Decimal("0.33")),
        (Decimal("65000"), None, None),
        (None, Decimal("50"), None),
        (Decimal("65000"), 0.0, None),
        (Decimal("65000"), -5, None),
        (float("nan"), 50.0, None),
        (65000.0, float("inf"), None),
    ],
)
def test_price_per_m2_mixes_float_and_decimal(price, area, expected):
    assert price_per_m2(price, area) == expected


def test_format_price_and_area_of_any_numeric_type():
    assert format_price(65000.0, "USD") == f"65{NBSP}000{NBSP}USD"
    assert format_price(Decimal("65000.50"), "EUR") == f"65{NBSP}000,5{NBSP}EUR"
    assert format_price(65000, None) == f"65{NBSP}000"
    assert format_price(float("nan"), "USD") is None
    assert format_area(71.6) == f"71,6{NBSP}м²"
    assert format_area(float("inf")) is None


def test_market_amounts_are_whole_from_100_and_fractions_below():
    from listings.admin.formatting import format_amount

    assert format_amount(Decimal("4800.4")) == f"4{NBSP}800"
    assert format_amount(100.0) == "100"
    assert format_amount(0.2417) == "0,24"
    assert format_amount(10.0) == "10"
    assert format_amount(6.5) == "6,5"
    assert format_amount(float("nan")) is None
    assert format_amount(None) is None


def test_naive_timestamps_are_taken_as_utc_and_shown_in_time_zone(settings):
    settings.TIME_ZONE = "Europe/Kyiv"
    late = dt.datetime(2025, 3, 4, 23, 30)  # 01:30 on the 5th in Kyiv (UTC+2 in March)
    assert local_date(late) == dt.date(2025, 3, 5)
    assert format_moment(late) == "05.03.2025 01:30"
    aware = dt.datetime(2025, 3, 4, 23, 30, tzinfo=dt.UTC)
    assert local_date(aware) == local_date(late)
    assert format_moment(aware.astimezone(KYIV)) == "05.03.2025 01:30"


def test_a_date_column_is_shown_as_a_date():
    assert local_date(dt.date(2025, 3, 4)) == dt.date(2025, 3, 4)
    assert format_moment(dt.date(2025, 3, 4)) == "04.03.2025"
    assert local_date(None) is None
    assert format_moment(None) is None
