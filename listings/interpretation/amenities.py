"""What the flat has: its heating ("автономне опалення", "тепла підлога"), its bathroom
("роздільний санвузол", "2 санвузли"), its parking ("з паркінгом", "підземний паркінг",
"будинок з гаражем") and the view from its windows ("з видом на парк", "вікна у двір")."""

from __future__ import annotations

from typing import Any

from .request import Request, dropped_if_negated
from .words import (
    BATHROOM_NOUNS,
    BATHROOM_WORDS,
    FLOOR_SURFACE,
    GARAGE_NOUNS,
    HEATING_ALONE,
    HEATING_NOUNS,
    HEATING_WORDS,
    PARKING_NOUNS,
    PARKING_SPACES,
    PARKING_WORDS,
    VIEW_PREPS,
    VIEW_TARGETS,
    VIEW_WORDS,
    WARM,
    WINDOW_WORDS,
    WITH,
    WITHOUT,
)

HEATING_LABELS = {"autonomous": "автономне опалення", "central": "центральне опалення"}
BATHROOM_LABELS = {
    "separate": "роздільний санвузол",
    "combined": "суміщений санвузол",
    "multiple": "кілька санвузлів",
}
PARKING_LABELS = {"underground": "підземний паркінг", "ground": "наземний паркінг"}
VIEW_LABELS = {
    "park": "вид на парк",
    "water": "вид на воду",
    "forest": "вид на ліс",
    "yard": "вікна у двір",
    "street": "вікна на вулицю",
}


# Between "з", "with" and a view: "з панорамним видом на воду", "with a park view".
SAID_BEFORE_A_VIEW = frozenset({"a", "панорамним", "панорамний", "панорамным", "panoramic"})


def _take(r: Request, said: int, start: int, end: int, label: str, values: dict[str, Any]) -> None:
    """Take tokens start..end unless the word at `said` is negated ("не з роздільним")."""
    if not dropped_if_negated(r, said, end):
        r.take(start, end, label, values)


def read_heating(r: Request) -> None:
    """ "з автономним опаленням", "автономка", "central heating", "з теплою підлогою",
    "underfloor heating"."""
    for i in range(len(r.tokens)):
        if "heating_type" in r.filters or r.kind(i) != "word":
            continue
        value, end = None, i + 1
        if r.has(i, HEATING_WORDS) and r.has(i + 1, HEATING_NOUNS):
            value, end = str(r.value(i, HEATING_WORDS)), i + 2
        elif r.has(i, HEATING_NOUNS) and r.has(i + 1, HEATING_WORDS):
            value, end = str(r.value(i + 1, HEATING_WORDS)), i + 2  # "опалення автономне"
        elif r.has(i, HEATING_ALONE):
            value = str(r.value(i, HEATING_ALONE))
        elif r.has(i, WARM) and r.has(i + 1, FLOOR_SURFACE | HEATING_NOUNS):
            value, end = "floor", i + 2
            end += 1 if r.has(end, HEATING_NOUNS) else 0  # "heated floors heating"
        if value is not None:
            label = HEATING_LABELS.get(value, "тепла підлога")
            _take(r, i, r.with_start(i), end, label, {"heating_type": value})


def read_bathroom(r: Request) -> None:
    """ "з роздільним санвузлом", "суміщений санвузол", "2 санвузли", "2 bathrooms"."""
    for i in range(1, len(r.tokens)):
        if "bathroom_type" in r.filters or not r.has(i, BATHROOM_NOUNS):
            continue
        if r.has(i - 1, BATHROOM_WORDS):
            value = str(r.value(i - 1, BATHROOM_WORDS))
        elif (r.count(i - 1) or 0) >= 2:  # "2 санвузли", "з двома санвузлами"
            value = "multiple"
        elif r.has(i + 1, BATHROOM_WORDS):  # "санвузол роздільний": the kind after the noun
            value = str(r.value(i + 1, BATHROOM_WORDS))
            label = BATHROOM_LABELS[value]
            _take(r, i + 1, r.with_start(i), i + 2, label, {"bathroom_type": value})
            continue
        else:
            continue
        _take(
            r, i - 1, r.with_start(i - 1), i + 1, BATHROOM_LABELS[value], {"bathroom_type": value}
        )


def read_parking(r: Request) -> None:
    """ "підземний паркінг", "з паркінгом" (any), "без паркінгу" (none), "будинок з гаражем"
    (the house's garage; "гараж" alone is the property, and so is "місце в підземному
    паркінгу", a parking space)."""
    for i in range(len(r.tokens)):
        if {"parking_type", "has_parking"} & r.filters.keys() or r.kind(i) != "word":
            continue
        if r.has(i, PARKING_NOUNS) and r.has(i - 1, PARKING_WORDS):
            value = str(r.value(i - 1, PARKING_WORDS))
            start, values = r.with_start(i - 1), {"parking_type": value}
            if _a_place_in(r, start) and "garage" in r.property_types:
                start, values = start - 2, {**values, "property_type": "garage"}
            _take(r, i - 1, start, i + 1, PARKING_LABELS[value], values)
        elif r.has(i, PARKING_NOUNS) and r.has(i + 1, PARKING_WORDS):
            # "паркінг підземний": an agent's keywords, the kind after the noun
            value = str(r.value(i + 1, PARKING_WORDS))
            _take(r, i, r.with_start(i), i + 2, PARKING_LABELS[value], {"parking_type": value})
        elif r.has(i, PARKING_NOUNS) and r.has(i - 1, WITHOUT):
            r.take(i - 1, i + 1, "без паркінгу", {"has_parking": False})
        elif r.has(i, PARKING_NOUNS):
            _take(r, i, r.with_start(i), i + 1, "з паркінгом", {"has_parking": True})
        elif r.has(i, GARAGE_NOUNS) and r.has(i - 1, WITH) and r.says_property_besides("garage"):
            _take(r, i, i - 1, i + 1, "гараж (паркінг)", {"parking_type": "garage"})
        elif r.has(i, PARKING_SPACES) and r.has(i - 1, WITH) and r.says_property_besides("garage"):
            # "квартира з машиномісцем": a flat's parking ("машиномісце" alone is the property)
            _take(r, i, i - 1, i + 1, "з паркінгом", {"has_parking": True})


def _a_place_in(r: Request, i: int) -> bool:
    """Whether "місце в" comes before token i: a parking space is the property sold."""
    return r.low(i - 1) in {"в", "у"} and r.low(i - 2) in {"місце", "место"} and r.free(i - 2)


def read_view(r: Request) -> None:
    """ "з видом на парк", "з панорамним видом на воду", "park view", "вікна у двір"."""
    for i in range(len(r.tokens)):
        if "window_view" in r.filters or r.kind(i) != "word":
            continue
        target, start, end = None, i, i + 1
        if r.has(i, VIEW_WORDS | WINDOW_WORDS) and r.has(i + 1, VIEW_PREPS):
            at = i + 3 if r.low(i + 2) == "the" else i + 2  # "view of the river"
            if r.has(at, VIEW_TARGETS):
                target, end = str(r.value(at, VIEW_TARGETS)), at + 1
        elif r.has(i, VIEW_TARGETS) and r.low(i + 1) in {"view", "views"} and r.free(i + 1):
            target, end = str(r.value(i, VIEW_TARGETS)), i + 2  # "park view"
        if target is None:
            continue
        while r.free(start - 1) and r.low(start - 1) in SAID_BEFORE_A_VIEW:
            start -= 1  # "з панорамним видом", "with a park view"
        _take(r, i, r.with_start(start), end, VIEW_LABELS[target], {"window_view": target})
