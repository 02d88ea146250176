"""Prices: with a currency, a multiplier, a range ("до 60 тисяч доларів", "$60k",
"30-40 тис. у.о."), and a bare number where a price is the likely reading."""

from __future__ import annotations

from typing import Any

from .request import Quantity, Request, either_side, number_text, range_label
from .rooms import rooms_k
from .words import (
    APPROX,
    DEAL_WORDS,
    MONTH_NOUNS,
    NOT_PRICE_AFTER,
    PRICE_CUES,
    SHORT_NOUNS,
    YEAR_WORDS,
)

# A price said as approximate ("приблизно 60 тисяч") is taken as this share either side.
BARE_PRICE_SPREAD = 0.1


def read_price(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) not in {"num", "cur"} or "min_price" in r.filters or "max_price" in r.filters:
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
        currency = quantity.currency or "{currency}"
        if approx and op is None:  # "приблизно 60 тисяч": either side of it
            start -= 1
            low, high = either_side(quantity.low, BARE_PRICE_SPREAD)
            label = f"≈ {number_text(quantity.low)} {currency}"
        else:
            label = range_label(low, high, currency)
        values: dict[str, Any] = {}
        if low is not None:
            values["min_price"] = low
        if high is not None:
            values["max_price"] = high
        values["currency"] = quantity.currency
        r.take(start, end, label, values)


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
