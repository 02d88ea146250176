"""The deal: its words ("оренда", "подобово", "купити"), and what a price says of it and
of its currency when neither is said."""

from __future__ import annotations

from ..models import DealType
from .request import Chip, Request, dropped_if_negated
from .words import (
    DEAL_WORDS,
    MONTH_NOUNS,
    MONTH_PREPS,
    RENT_TERMS,
    SHORT_NOUNS,
    SHORT_PREPS,
    TERM_NOUNS,
)

# Prices from which a request is a purchase, not a rent, in each currency.
SALE_PRICE_FLOOR = {"USD": 10_000, "EUR": 10_000, "UAH": 400_000}
# A price said without a currency is in the one it is a likely price in: a month's rent
# under 2 000 is dollars (no flat lets for 2 000 грн a month), from it hryvnias; a day's rent
# under 200 dollars, from it hryvnias; with no deal said, 2 000 up to a purchase's dollar
# floor is a month's rent in hryvnias ("квартира до 8 тис"), and the rest dollars.
RENT_IN_DOLLARS_BELOW = {"rent_long": 2_000, "rent_short": 200}
# With a currency said and no deal, an upper price from this up to a purchase's floor is a
# month's rent ("квартира до 8 тис грн", "до 900 євро"); under it, a day's rent or anything.
MONTHLY_RENT_FROM = {"USD": 200, "EUR": 200, "UAH": 2_000}
# Prices per m² from which a request is a purchase: no month's rent of a metre reaches them
# (an office in Kyiv lets for $15-40 a metre).
SALE_PRICE_PER_M2_FLOOR = {"USD": 100, "EUR": 100, "UAH": 4_000}
# Types bought more often than let at such prices (a garage for $8 000, a plot for $5 000):
# a price alone says no rent for them, and a bare one is in dollars.
BOUGHT_AT_RENT_PRICES = frozenset({"land", "garage"})


def read_deal(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word":
            continue
        deal = None
        start = i - 1 if r.low(i - 1) in {"for", "на", "в", "під"} and r.free(i - 1) else i
        end = i + 1
        if r.low(i) in SHORT_PREPS and r.has(i + 1, SHORT_NOUNS):
            deal, end = "rent_short", i + 2
        elif r.has(i, MONTH_NOUNS) and r.free(i - 1) and r.low(i - 1) in MONTH_PREPS:
            deal, start, end = "rent_long", i - 1, r.skip_dot(i + 1)
        elif r.has(i, TERM_NOUNS) and r.has(i - 1, RENT_TERMS):
            deal = r.value(i - 1, RENT_TERMS)  # "на длительный срок", "short term"
            start = i - 2 if r.low(i - 2) in {"на", "for", "a"} and r.free(i - 2) else i - 1
        elif r.has(i, DEAL_WORDS):
            deal = r.value(i, DEAL_WORDS)
        if deal is None or dropped_if_negated(r, min(start, i), end):
            continue
        if r.filters.get("deal_type") == "rent_long" and deal == "rent_short":
            r.filters.pop("deal_type")
            r.chips = [chip for chip in r.chips if chip.filters != ("deal_type",)]
        if "deal_type" not in r.filters:
            r.take(start, end, str(DealType(deal).label), {"deal_type": deal})
        else:  # said already ("оренда ... на місяць"): the words are not searched for
            for k in range(start, end):
                r.used[k] = True


def _amount(r: Request, per: str = "") -> float:
    """The price read (`per`: "_per_m2", the price per m²): its upper bound, else its lower
    one."""
    return float(r.filters.get(f"max_price{per}") or r.filters.get(f"min_price{per}") or 0)


def likely_currency(r: Request, deal: str | None) -> str:
    """The currency of a price said without one (RENT_IN_DOLLARS_BELOW)."""
    amount = _amount(r)
    if deal in RENT_IN_DOLLARS_BELOW:
        return "USD" if amount < RENT_IN_DOLLARS_BELOW[deal] else "UAH"
    if r.filters.get("property_type") in BOUGHT_AT_RENT_PRICES:
        return "USD"
    month = RENT_IN_DOLLARS_BELOW["rent_long"]
    return "UAH" if deal is None and month <= amount < SALE_PRICE_FLOOR["USD"] else "USD"


def _monthly_rent_price(r: Request, currency_said: bool) -> bool:
    """A price that says a month's rent: taken in hryvnias with no currency said ("квартира
    до 8 тис"), or an upper one from MONTHLY_RENT_FROM with it ("до 8 тис грн")."""
    currency = r.filters["currency"]
    if r.filters.get("property_type") in BOUGHT_AT_RENT_PRICES:
        return False
    if not currency_said:
        return currency == "UAH"
    top = r.filters.get("max_price")
    return top is not None and currency in MONTHLY_RENT_FROM and top >= MONTHLY_RENT_FROM[currency]


def deal_by_price(r: Request, currency_said: bool) -> None:
    """A price no rent reaches ("до 60 тисяч доларів") means a purchase; one under it that
    only a month's rent reaches (_monthly_rent_price), a long rent."""
    if "deal_type" in r.filters:
        return
    amount = _amount(r)
    floor = SALE_PRICE_FLOOR.get(r.filters["currency"])
    per_m2_floor = SALE_PRICE_PER_M2_FLOOR.get(r.filters["currency"])
    if per_m2_floor is not None and _amount(r, "_per_m2") >= per_m2_floor:
        deal, label = "sale", "продаж (за ціною)"  # "до 1000 $ за метр"
    elif floor is not None and amount >= floor:
        deal, label = "sale", "продаж (за ціною)"
    elif _monthly_rent_price(r, currency_said):
        deal, label = "rent_long", "довгострокова оренда (за ціною)"
    else:
        return
    price = next(chip for chip in r.chips if "currency" in chip.filters)
    r.filters["deal_type"] = deal
    r.chips.append(Chip(label, ("deal_type",), price.start, price.end))
