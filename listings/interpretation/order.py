"""The order a person asks for: "найдешевші квартири" (cheapest first), "самые большие",
"the most expensive", "нові оголошення" (newest first), read with `interpret(orders=True)`
(the search layer always asks; where its search ranks by relevance alone, semantic and
hybrid, the order is named as not applied: listings.understanding.unsorted)."""

from __future__ import annotations

from .request import Request, dropped_if_negated
from .words import (
    LISTING_NOUNS,
    MOST_WORDS,
    ORDER_AFTER_MOST,
    ORDER_OF_LISTINGS,
    ORDER_WORDS,
    RENOVATION_NOUNS,
)

ORDER_LABELS = {
    "price_asc": "спочатку дешевші",
    "price_desc": "спочатку дорожчі",
    "area_desc": "спочатку більші",
    "date_desc": "спочатку новіші",
}


def read_order(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.order is not None:
            return
        if r.kind(i) != "word" or not r.free(i):
            continue
        start, end, order = i, i + 1, None
        if r.has(i, ORDER_WORDS):
            order = str(r.value(i, ORDER_WORDS))
        elif r.has(i, ORDER_AFTER_MOST) and r.has(i - 1, MOST_WORDS) and r.free(i - 1):
            start, order = i - 1, str(r.value(i, ORDER_AFTER_MOST))  # "the most expensive"
        elif r.has(i, ORDER_OF_LISTINGS) and r.has(i + 1, LISTING_NOUNS) and r.free(i + 1):
            end, order = i + 2, str(r.value(i, ORDER_OF_LISTINGS))  # "нові оголошення"
        if order is None or r.has(end, RENOVATION_NOUNS):
            continue  # "з недорогим ремонтом": the renovation's price
        if r.has(end, LISTING_NOUNS) and r.free(end):
            end += 1  # "newest listings", "найсвіжіші оголошення"
        if start == i and r.has(i - 1, MOST_WORDS) and r.free(i - 1):
            start -= 1  # "самые дешевые", "самі дешеві"
        if r.low(start - 1) == "the" and r.free(start - 1):
            start -= 1
        if dropped_if_negated(r, start, end):
            continue  # "не найдешевші"
        r.order = order
        r.take(start, end, ORDER_LABELS[order], {}, names=("sort_by",))
