"""Storeys: how many floors the building has. "у 9-поверховому будинку", "п'ятиповерхівка",
"двоповерховий будинок", "будинок на 2 поверхи", "в будинку до 5 поверхів", "9-storey";
the floor of so many ("5/9", "поверх 3 з 9") is read with the floor (floors.py)."""

from __future__ import annotations

import re

from .morphology import grammemes, plural_only
from .request import Request, dropped_if_negated, named_range
from .words import (
    BUILDING_NOUNS,
    DASHES,
    FLOOR_PREPS,
    FLOOR_WORDS,
    PROPERTY_WORDS,
    STOREYS_PREFIXES,
    STOREYS_PREPS,
    STOREYS_STEMS,
    WITH,
)

_STEMS = "|".join(map(re.escape, STOREYS_STEMS))
# "п'ятиповерхівці", "двоповерхового", "девятиэтажка", "two-storey": one word, its number first
_COMPOUND = re.compile(
    rf"(?P<number>{'|'.join(map(re.escape, sorted(STOREYS_PREFIXES, key=len, reverse=True)))})"
    rf"-?(?:{_STEMS})\w*"
)
# After a number: "9-поверховий", "16-этажном", "9-storey"
_AFTER_NUMBER = re.compile(rf"(?:{_STEMS})\w*")
# Between a number and its storey word: "9-ти поверховий", "2-х этажный"
_NUMBER_ENDINGS = frozenset({"ти", "и", "х", "ох", "ух", "ми"})
# After 2-4 in Russian, the genitive singular ("2 этажа"; Ukrainian says "2 поверхи")
_PAUCAL = frozenset({"этажа"})
# Between the building and its storeys: "будинок на 2 поверхи", "дом в 2 этажа"
_BUILDING_TO_STOREYS = STOREYS_PREPS | FLOOR_PREPS | WITH


def storeys(low: int | None, high: int | None) -> tuple[str, dict[str, int]]:
    """The label and filters of a building of `low` to `high` storeys (either open)."""
    values = {"min_floors_count": low, "max_floors_count": high}
    label = named_range("поверховість", low, high)
    return label, {name: value for name, value in values.items() if value is not None}


def read_storeys(r: Request) -> None:
    for i in range(len(r.tokens)):
        if "min_floors_count" in r.filters or "max_floors_count" in r.filters:
            return
        if r.kind(i) == "word":
            found = _COMPOUND.fullmatch(r.low(i))
            if found and not dropped_if_negated(r, i, i + 1):
                number = int(STOREYS_PREFIXES[found.group("number")])
                r.take(*_with_the_building(r, i, i + 1), *storeys(number, number))
        elif r.kind(i) == "num" and _whole(r, i):
            _number_of_storeys(r, i)


def _whole(r: Request, i: int) -> bool:
    number = r.tokens[i].number
    return number.is_integer() and number >= 1  # over 200: refused, and the reason said


def _number_of_storeys(r: Request, i: int) -> None:
    """A number and its storeys: "9-поверховий", "9-ти поверховий"; with the building said
    before it, "будинок на 2 поверхи", "в будинку до 5 поверхів", "будинок від 2 до 3
    поверхів", "будинок 1 поверх"."""
    number = int(r.tokens[i].number)
    j = i + 1
    if r.low(j) in DASHES and r.free(j):
        j += 1
    if r.kind(j) == "word" and r.low(j) in _NUMBER_ENDINGS:
        j += 1
    if r.kind(j) == "word" and _AFTER_NUMBER.fullmatch(r.low(j)):
        if not dropped_if_negated(r, i, j + 1):
            r.take(*_with_the_building(r, i, j + 1), *storeys(number, number))
        return
    op, start = r.operator(i)
    shift = r.past_value(op, start)  # "більше 2 поверхів": from 3
    j, high = i + 1, None
    if r.joined(op, j) and r.kind(j + 1) == "num" and _whole(r, j + 1):
        high, j = int(r.tokens[j + 1].number), j + 2  # "від 2 до 3 поверхів"
    if not r.has(j, FLOOR_WORDS) or not (_building_before(r, start) or _a_house(r)):
        return
    if not _says_storeys(r.low(j), number if high is None and op is None else None):
        return  # "у будинку на 2 поверсі": a floor
    while start > 0 and r.low(start - 1) in _BUILDING_TO_STOREYS and r.free(start - 1):
        start -= 1
    end = r.skip_dot(j + 1)
    said_beyond, past = r.beyond(end)  # "2 поверхи або більше"
    if said_beyond is not None and op is None and high is None:
        op, end = said_beyond, past
    if high is None:
        number += shift
        if number < 1:
            return  # "менше 1 поверху": no building has fewer
    low, top = (None, number) if op == "max" else (number, high) if op else (number, number)
    if low is not None and top is not None and low > top:
        low, top = top, low
    r.take(*_with_the_building(r, start, end), *storeys(low, top))


def _with_the_building(r: Request, start: int, end: int) -> tuple[int, int]:
    """The span of storeys widened to the building named beside them when it is a flat's
    building, not the property ("квартира у 9-поверховому будинку", "квартира в будинку до 5
    поверхів"): its word left in the text would be searched for."""
    if not r.says_property_besides("house"):
        return start, end
    if r.has(end, BUILDING_NOUNS) and r.free(end):
        end += 1
    elif r.has(start - 1, BUILDING_NOUNS) and r.free(start - 1):
        start -= 1
    if r.low(start - 1) in {"у", "в", "in", "a"} and r.free(start - 1):
        start -= 1
    return start, end


def _says_storeys(word: str, alone: int | None) -> bool:
    """Whether a floor word after a number says storeys: a plural ("2 поверхи", "5
    поверхів", "2 floors"); with no "до", "від" before the number (`alone`), "1 поверх" (a
    house of one) and the Russian "2 этажа" too (2-4 take the genitive singular)."""
    if plural_only(word) or (word.isascii() and word.endswith("s")):
        return True
    if alone == 1:
        return "nomn" in grammemes(word) or word.isascii()
    return alone in {2, 3, 4} and word in _PAUCAL


def _house_at(r: Request, k: int) -> bool:
    return r.has(k, PROPERTY_WORDS) and r.value(k, PROPERTY_WORDS) == "house"


def _a_house(r: Request) -> bool:
    """Whether the request is about a house, and about no other property ("будинок 150 м2,
    2 поверхи")."""
    houses = any(_house_at(r, k) for k in range(len(r.tokens)))
    return houses and not r.says_property_besides("house")


def _building_before(r: Request, start: int) -> bool:
    """Whether the building is said right before `start`, past a preposition: "будинок на",
    "в будинку", "дом в", "house with"."""
    k = start - 1
    while k >= 0 and r.low(k) in _BUILDING_TO_STOREYS:
        k -= 1
    if k < 0:
        return False
    return _house_at(r, k) or any(key in BUILDING_NOUNS for key in r.keys[k])
