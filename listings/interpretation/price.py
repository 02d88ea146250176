"""Prices: with a currency, a multiplier, a range ("до 60 тисяч доларів", "$60k",
"30-40 тис. у.о."), and a bare number where a price is the likely reading."""

from __future__ import annotations

from typing import Any

from ..filters import PRICE_FILTERS
from .request import Quantity, Request, either_side, number_text, range_label
from .rooms import rooms_k
from .words import (
    APPROX,
    DEAL_WORDS,
    MONTH_NOUNS,
    NOT_PRICE_AFTER,
    PLOT_UNITS,
    PRICE_CUES,
    SHORT_NOUNS,
    SQUARE,
    YEAR_WORDS,
)

# A price said as approximate ("приблизно 60 тисяч") is taken as this share either side.
BARE_PRICE_SPREAD = 0.1
# Words for a price before "за метр": "ціна за м2", "вартість квадратного метра", "price per sqm".
PRICE_NOUNS = frozenset({"ціна", "цена", "вартість", "стоимость", "price", "cost"})


def read_price(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) not in {"num", "cur"} or PRICE_FILTERS & r.filters.keys():
            continue
        quantity = r.quantity(i)
        if quantity is None or quantity.unit is not None:
            continue
        op, start = r.operator(i)
        approx = op is None and quantity.high is None and r.has(start - 1, APPROX)
        said = op is None and r.has(start - 1, PRICE_CUES)  # "за 45000", "ціна 55 000"
        op, low, high, end = r.limits(quantity, op)  # "від 30 до 40 тисяч доларів": unit last
        if quantity.currency is None:
            if rooms_k(quantity) and op is None:
                continue  # "2к": rooms
            cued = (approx or said) and not r.has(end, NOT_PRICE_AFTER | YEAR_WORDS)
            if quantity.mult is None and not ((op or cued) and _bare_price(r, quantity)):
                continue
        if r.low(end) in PER and r.has(end + 1, PLOT_UNITS):
            continue  # "по 1000$ за сотку": a price per are, which no filter says
        per_m2_start, per_m2_end = _per_area_before(r, start), _per_area_after(r, end)
        if per_m2_start is not None or per_m2_end is not None:
            # "до 1000 $ за метр", "$1500/м²", "ціна за м2 до 1200 доларів": per m²
            start = start if per_m2_start is None else per_m2_start
            _take_per_m2(r, quantity, start, per_m2_end or end, low, high)
            continue
        currency = quantity.currency or "{currency}"
        if approx and op is None:  # "приблизно 60 тисяч": either side of it
            start -= 1
            low, high = either_side(quantity.low, BARE_PRICE_SPREAD)
            label = f"≈ {number_text(quantity.low)} {currency}"
        else:
            label = range_label(low, high, currency)
        r.take(start, end, label, {**_bounds(low, high), "currency": quantity.currency})


def _take_per_m2(
    r: Request, quantity: Quantity, start: int, end: int, low: float | None, high: float | None
) -> None:
    """A price per m² of total area; in dollars unless a currency is said (the market
    quotes metres in dollars)."""
    currency = quantity.currency or "USD"
    values = {"currency": currency, **_bounds(low, high, "_per_m2")}
    r.take(start, end, range_label(low, high, f"{currency}/м²"), values)


def _bounds(low: float | None, high: float | None, per: str = "") -> dict[str, Any]:
    """min_price and max_price (`per`: "_per_m2", the price per m²) of the bounds said."""
    bounds = {f"min_price{per}": low, f"max_price{per}": high}
    return {name: value for name, value in bounds.items() if value is not None}


PER = frozenset({"за", "per", "a", "/"})


def _area_word(r: Request, k: int) -> int | None:
    """The token past an area's unit at k ("м²", "метр", "кв.м", "квадрат", "square metre"),
    or None."""
    unit, end = r.area_unit(k)
    if unit in {"area", "metres"}:
        return end
    if r.has(k, SQUARE):
        return r.skip_dot(k + 1)  # "за квадрат"
    return None


def _per_area_after(r: Request, end: int) -> int | None:
    """The token past "за метр", "/м²", "per sqm" right after a price, or None."""
    if r.low(end) not in PER or not r.free(end):
        return None
    return _area_word(r, end + 1)


def _per_area_before(r: Request, start: int) -> int | None:
    """Where "ціна за м2", "price per sqm", "вартість квадратного метра" starts right before
    a price's operator at `start`, or None."""
    for k in (start - 1, start - 2):  # "метра", "квадратного метра"
        if k < 1 or _area_word(r, k) != start or not r.free(k):
            continue
        if r.low(k - 1) in PER - {"/"}:
            k -= 1
        elif not r.has(k - 1, PRICE_NOUNS):
            continue
        return k - 1 if r.has(k - 1, PRICE_NOUNS) else k
    return None


# Words after a number that make it no price: floors, rooms and other units ("до 20 хвилин",
# "до 5 років").


def _bare_price(r: Request, quantity: Quantity) -> bool:
    """Whether a number after "до", "under", "від" with no currency is a price: from 1 000,
    or from 10 in a request for a rent ("rent under 800", "подобово до 900") when no other
    unit follows it ("оренда до 20 хвилин від центру")."""
    if quantity.low >= 1000:
        return True
    following = quantity.end
    if quantity.low < 10 or r.has(following, NOT_PRICE_AFTER):
        return False
    return any(rent_word(r, i) for i in range(len(r.tokens)))


def rent_word(r: Request, i: int) -> bool:
    if r.kind(i) != "word":
        return False
    if r.has(i, MONTH_NOUNS) or r.has(i, SHORT_NOUNS):
        return True  # "per month", "на добу"
    return r.has(i, DEAL_WORDS) and r.value(i, DEAL_WORDS) in {"rent_long", "rent_short"}
