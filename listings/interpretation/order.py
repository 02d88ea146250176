"""The order a person asks for: "найдешевші квартири" (cheapest first), "самые большие",
"the most expensive", "нові оголошення" (newest first), read with `interpret(orders=True)`
(the search layer always asks; where its search ranks by relevance alone, semantic and
hybrid, the order is named as not applied: listings.understanding.unsorted)."""

from __future__ import annotations

from .request import Request, dropped_if_negated
from .words import (
    FIRST_WORDS,
    LISTING_NOUNS,
    MOST_WORDS,
    ORDER_AFTER_MOST,
    ORDER_COMPARATIVES,
    ORDER_NOUNS,
    ORDER_OF_LISTINGS,
    ORDER_WORDS,
    RENOVATION_NOUNS,
    SORT_DIRECTIONS,
    SORT_KEYS,
    SORT_PREPOSITIONS,
    SORT_VERBS,
)

ORDER_LABELS = {
    "price_asc": "спочатку дешевші",
    "price_desc": "спочатку дорожчі",
    "area_desc": "спочатку більші",
    "date_desc": "спочатку новіші",
}
# Orders people ask for that no sort_by gives, as staff read them.
UNAVAILABLE_ORDER_LABELS = {"date_asc": "спочатку старіші", "area_asc": "спочатку менші"}


# An order named by its key alone ("sort by price"): the direction people mean by it.
KEY_DIRECTIONS = {"price": "asc", "date": "desc", "area": "desc"}


def read_order(r: Request) -> None:
    """The first order said; the same order said again goes with it ("sorted by size, largest
    first"), another stays in the text."""
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or not r.free(i):
            continue
        said = _sort_command(r, i) or _order_words(r, i)
        if said is None:
            continue
        start, end, order = said
        if order not in ORDER_LABELS:  # "sort by date ascending": out of the text, refused
            if r.order is None and r.order_unavailable in (None, order):
                r.order_unavailable = order
                for k in range(start, end):
                    r.used[k] = True
            continue
        if r.order not in (None, order):
            continue
        if r.order is None:
            r.order = order
            r.take(start, end, ORDER_LABELS[order], {}, names=("sort_by",))
        else:  # said again: out of the text, under the first one's chip
            for k in range(start, end):
                r.used[k] = True


def _order_words(r: Request, i: int) -> tuple[int, int, str] | None:
    """(start, end, order) of an order said by its words at token i: "найдешевші",
    "the most expensive", "нові оголошення", "спочатку дешевші", "newest first"."""
    start, end, order = i, i + 1, None
    if r.has(i, ORDER_WORDS):
        order = str(r.value(i, ORDER_WORDS))
    elif r.has(i, ORDER_AFTER_MOST) and r.has(i - 1, MOST_WORDS) and r.free(i - 1):
        start, order = i - 1, str(r.value(i, ORDER_AFTER_MOST))  # "the most expensive"
    elif r.has(i, ORDER_OF_LISTINGS) and r.has(i + 1, LISTING_NOUNS) and r.free(i + 1):
        end, order = i + 2, str(r.value(i, ORDER_OF_LISTINGS))  # "нові оголошення"
    elif r.has(i, ORDER_COMPARATIVES) and (r.has(i - 1, FIRST_WORDS) or r.has(i + 1, FIRST_WORDS)):
        order = str(r.value(i, ORDER_COMPARATIVES))  # "спочатку дешевші", "cheaper first"
    if order is None or r.has(end, RENOVATION_NOUNS):
        return None  # "з недорогим ремонтом": the renovation's price
    if r.has(end, LISTING_NOUNS) and r.free(end):
        end += 1  # "newest listings", "найсвіжіші оголошення"
    if r.has(end, FIRST_WORDS):
        end += 1  # "newest first", "cheapest first"
    elif start == i and r.has(i - 1, FIRST_WORDS):
        start -= 1  # "спочатку дешевші"
    if start == i and r.has(i - 1, MOST_WORDS) and r.free(i - 1):
        start -= 1  # "самые дешевые", "самі дешеві"
    if r.low(start - 1) == "the" and r.free(start - 1):
        start -= 1
    if dropped_if_negated(r, start, end):
        return None  # "не найдешевші"
    return start, end, order


def _sort_command(r: Request, i: int) -> tuple[int, int, str] | None:
    """(start, end, order) of an order said as a command at token i: a sort verb, then what
    by ("sort by price", "відсортувати за ціною", "отсортировать по цене"), with or without
    a direction after it ("price descending", "за ціною за спаданням") or before it ("за
    зростанням ціни", "по убыванию цены"); without the verb only with a direction ("by
    price ascending"): "за ціною" alone may be anything. An order no sort_by gives (the
    oldest first, the smallest first) is returned too: the caller refuses it."""
    j = i
    verb = r.has(j, SORT_VERBS)
    j += verb
    if r.has(j, SORT_PREPOSITIONS):
        j += 1
    key = direction = None
    if r.has(j, SORT_DIRECTIONS):
        direction = str(r.value(j, SORT_DIRECTIONS))
        j += 1
        if r.has(j, ORDER_NOUNS):
            j += 1 + (r.low(j + 1) == "of" and r.free(j + 1))  # "in ascending order of price"
        if not r.has(j, SORT_KEYS):
            return None
        key, j = str(r.value(j, SORT_KEYS)), j + 1
    elif r.has(j, SORT_KEYS):
        key, j = str(r.value(j, SORT_KEYS)), j + 1
        k = j + r.has(j, SORT_PREPOSITIONS)
        if r.has(k, SORT_DIRECTIONS):
            direction, j = str(r.value(k, SORT_DIRECTIONS)), k + 1
            j += r.has(j, ORDER_NOUNS)  # "in ascending order"
    if key is None or (not verb and direction is None):
        return None
    order = f"{key}_{direction or KEY_DIRECTIONS[key]}"
    if dropped_if_negated(r, i, j):
        return None
    return i, j, order
