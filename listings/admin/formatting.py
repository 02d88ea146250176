"""Ukrainian number, price, area and date formatting, and enum labels, for the admin's pages."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from functools import wraps
from typing import Any

from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format

from .. import vocabulary

NBSP = "\u00a0"


def _decimal(value: Decimal | float | int | None) -> Decimal | None:
    """A finite Decimal from any numeric column type (numeric, double precision, real,
    integer), or None: float and Decimal mix safely through it."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _number(value: Decimal | float | int, places: int) -> str:
    """'65 000', '71,6': Ukrainian separators, no trailing zero decimals."""
    text = f"{_decimal(value) or Decimal(0):,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(",", NBSP).replace(".", ",")


def format_price(price: Decimal | float | None, currency: str | None) -> str | None:
    number = _decimal(price)
    if number is None:
        return None
    return f"{_number(number, 2)}{NBSP}{currency}" if currency else _number(number, 2)


# Market figures from this up are whole numbers (format_amount).
AMOUNT_WHOLE_FROM = 100


def format_amount(value: Decimal | float | None) -> str | None:
    """A market figure: '4 800' from 100 up, '0,24' below (a daily rent per m² is a fraction
    of a dollar, which whole numbers showed as 0), as the market chart's axis shows them."""
    number = _decimal(value)
    if number is None:
        return None
    return _number(number, 0 if abs(number) >= AMOUNT_WHOLE_FROM else 2)


def format_area(area: Decimal | float | None) -> str | None:
    number = _decimal(area)
    return None if number is None else f"{_number(number, 2)}{NBSP}м²"


def price_per_m2(price: Decimal | float | None, area: Decimal | float | None) -> Decimal | None:
    """Price over total area, whatever numeric types the two columns have; None without
    both (or with a zero, negative or non-finite area)."""
    price_number, area_number = _decimal(price), _decimal(area)
    if price_number is None or area_number is None or area_number <= 0:
        return None
    per_m2 = price_number / area_number
    # Cents matter for a monthly rent per m², not for a sale price per m².
    return per_m2.quantize(Decimal(1 if abs(per_m2) >= 100 else "0.01"))


def local_date(value: dt.datetime | dt.date | None) -> dt.date | None:
    """The calendar date of a `timestamp with time zone`, `timestamp without time zone` or
    `date` column in TIME_ZONE. A naive timestamp is taken as UTC, as PostgreSQL takes it in
    our sessions (Django sets their time zone to UTC), so the date shown agrees with what
    the `published_after` filter compares."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if timezone.is_naive(value):
            value = value.replace(tzinfo=dt.UTC)
        return timezone.localtime(value).date()
    return value


def format_moment(value: dt.datetime | dt.date | None) -> str | None:
    """'05.03.2025 14:30' in TIME_ZONE (a naive timestamp taken as UTC), or '05.03.2025' for
    a `date` column."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if timezone.is_naive(value):
            value = value.replace(tzinfo=dt.UTC)
        return date_format(timezone.localtime(value), "d.m.Y H:i")
    return date_format(value, "d.m.Y")


_UK_ALPHABET = {letter: i for i, letter in enumerate("абвгґдеєжзиіїйклмнопрстуфхцчшщьюя")}


def _ukrainian_order(text: str) -> list[int]:
    # Code points put 'І' and 'Є' before 'А'; staff expect the alphabet.
    return [_UK_ALPHABET.get(ch, 100 + ord(ch)) for ch in text.lower()]


NULL_CHOICE = "unknown"


NULL_LABEL = "не вказано"


EMPTY = "—"


def shown_or_dash(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """admin.display whose missing value shows as EMPTY: the detail page prints a None that a
    read-only callable returns as the text "None"."""

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(method)
        def shown(self: Any, obj: Any) -> Any:
            value = method(self, obj)
            return EMPTY if value is None else value

        return admin.display(**options)(shown)

    return decorate


def enum_label(column: str, value: str | None) -> str:
    """A documented value by its Ukrainian label, a synonym by the label of what it means
    (with the raw value), anything else as itself, NULL as "—" (a method's None would show
    as the text "None" on the detail page)."""
    if value is None:
        return EMPTY
    choices = dict(vocabulary.ENUM_CHOICES[column].choices)
    if value in choices:
        return str(choices[value])
    target = vocabulary.canonical(column, value)
    if target is None:
        return value
    return f"{choices[target]} ({value})"
