"""Floors: "на 2 поверсі", "від 2 до 5 поверху", "не на першому і не на останньому",
"поверх 3 з 9", "квартира 5/9" (with the storeys: 9); storeys alone ("2 поверхи") are not
floors (storeys.py)."""

from __future__ import annotations

from typing import Any

from .. import vocabulary
from .morphology import grammemes, plural_only
from .request import Request
from .storeys import storeys
from .words import (
    AREA_UNITS,
    CONJUNCTIONS,
    CONTRASTS,
    DASHES,
    EDGE,
    FLOOR_PREPS,
    FLOOR_WORDS,
    LAST,
    METRES,
    NEGATION_OR,
    NEGATIONS,
    ORDINALS,
    PROPERTY_WORDS,
    RANGE_FROM,
    RANGE_TO,
    ROOM_UNITS,
    ROOMS_WORDS,
    STOREYS_PREPS,
    SUFFIXES,
)


def _floor_chain(r: Request, s: int) -> tuple[int, list[tuple[bool, int | str]], bool]:
    """From token s: "[не] [на] першому [поверсі] [і не на останньому]" as (end, items,
    whether a floor word was said)."""
    items: list[tuple[bool, int | str]] = []
    j, said, negated = s, False, False
    while r.free(j):
        if r.has(j, NEGATIONS):
            negated = True
        elif r.low(j) in FLOOR_PREPS or r.low(j) in CONJUNCTIONS:
            pass
        elif r.low(j) in CONTRASTS and items:
            negated = False
        elif r.kind(j) == "word" and r.has(j, ORDINALS):
            items.append((negated, int(r.value(j, ORDINALS))))
            negated = negated and r.low(j + 1) in NEGATION_OR  # "not on the first or last"
        elif r.kind(j) == "word" and r.has(j, LAST):
            items.append((negated, "last"))
            negated = negated and r.low(j + 1) in NEGATION_OR
        elif r.kind(j) == "word" and r.has(j, EDGE):
            items.append((negated, "edge"))
        elif r.kind(j) == "word" and r.has(j, FLOOR_WORDS):
            said = True
            j = r.skip_dot(j + 1)
            continue
        else:
            break
        j += 1
    while j > s and (
        r.low(j - 1) in CONJUNCTIONS | CONTRASTS or r.has(j - 1, NEGATIONS | FLOOR_PREPS)
    ):
        j -= 1
    return j, items, said


def read_floor(r: Request) -> None:
    # The end of words no floor is read from: "від 2 до 3 поверхів" (storeys), "на першому
    # або останньому" (either floor, which no filters can say).
    unread_until = -1
    for i in range(len(r.tokens)):
        if i <= unread_until:
            continue
        if r.kind(i) == "num":
            high = None
            op, start = r.operator(i)
            shift = r.past_value(op, start)  # "вище 5 поверху": from the 6th
            j = _past_suffix(r, i + 1)  # "від 3-го до 5-го", "3rd-5th"
            if op is None and r.has(i - 1, RANGE_FROM) and r.low(j) in RANGE_TO:
                op, start = "min", i - 1  # "з 3 по 5 поверх", "з 2-го по 4-й"
            if r.joined(op, j) and r.kind(j + 1) == "num":
                high, j = int(r.tokens[j + 1].number), j + 2  # "від 2 до 5 поверху"
            elif op is None and r.low(j) in DASHES and r.kind(j + 1) == "num":
                high, j = int(r.tokens[j + 1].number), j + 2  # "на 3-5 поверсі"
            of = None
            if r.low(j) == "/" and r.kind(j + 1) == "num":
                of, j = j + 1, j + 2  # "5/9 поверх": the 5th of 9
            plus = high is None and r.low(j) == "+"  # "на 3+ поверсі"
            j, shift = (j + 1, 0) if plus else (j, shift)
            j = _past_suffix(r, j)
            upward = op is None and high is None and _from_floor(r, i, j)
            if upward:
                op, start = "min", i - 1  # "з 5 поверху": from the 5th up
            storeys_of = not upward and high is None and r.low(i - 1) in STOREYS_PREPS
            if not r.has(j, FLOOR_WORDS) or storeys_of:
                if _floor_of_storeys(r, i):  # "квартира 5/9": the 5th floor of 9
                    number = int(r.tokens[i].number)
                    r.take(i, i + 3, *_one_floor(None, number, _storeys_of(r, i + 2, number)))
                continue
            number = int(r.tokens[i].number)
            on = r.low(start - 1) in FLOOR_PREPS
            case = grammemes(r.low(j))
            plural = plural_only(r.low(j))
            how_many = plural or ("gent" in case and not case & {"nomn", "loct"})
            if (how_many and not (on or op)) or (on and plural):
                continue  # "2 поверхи", "2 этажа", "на 2 поверхи": storeys, not which floor
            if high is not None and plural:
                unread_until = j  # "від 2 до 3 поверхів": storeys too ("до 5 поверху": a floor)
                continue
            op = "min" if plus else op
            if on:
                start -= 1
            end = r.skip_dot(j + 1)
            said_beyond, past = r.beyond(end)
            if said_beyond is not None and high is None and op is None:
                op, end = said_beyond, past  # "на 5 поверсі і вище", "5th floor or higher"
            elif upward and said_beyond == "min":
                end = past  # "з 5 поверху і вище": said twice
            elif of is None and high is None and _storeys_after(r, end, number):
                of, end = end + 1, end + 2  # "на 5 поверсі з 9"
            total = None if of is None else _storeys_of(r, of, number)
            if high is not None:
                low, high = sorted((number, high))
                r.take(start, end, f"{low}–{high} поверх", {"min_floor": low, "max_floor": high})
            else:
                r.take(start, end, *_one_floor(op, number + shift, total))
        elif _floor_then_number(r, i):
            number, end, of = int(r.tokens[i + 1].number), i + 2, None
            if r.low(end) in STOREYS_PREPS | {"/", "из", "of"} and r.kind(end + 1) == "num":
                of, end = end + 1, end + 2  # "поверх 3 з 9", "этаж 5/9": the floor of so many
            said_beyond, past = r.beyond(end)  # "floor 5 or lower"
            total = None if of is None else _storeys_of(r, of, number)
            r.take(i, past, *_one_floor(said_beyond, number, total))
        elif (span := _ordinal_range(r, i)) is not None:
            start, end, low, high = span
            r.take(start, end, f"{low}–{high} поверх", {"min_floor": low, "max_floor": high})
        elif r.has(i, frozenset(ORDINALS) | LAST | EDGE | NEGATIONS | FLOOR_PREPS):
            end, items, said = _floor_chain(r, i)
            begin = i
            if not said and r.has(i - 1, FLOOR_WORDS) and r.kind(i - 2) != "num":
                said, begin = True, i - 1  # "поверх не перший і не останній", not "2 поверхи"
            values: dict[str, Any] = {}
            labels = []
            if (False, "edge") in items:
                unread_until = end - 1  # "крайній поверх": the first or the last, either
                continue
            for negated, item in items:
                if item == "edge":
                    values |= {"min_floor": 2, "not_top_floor": True}
                    labels.append("не крайній поверх")
                elif item == "last" and negated:
                    values["not_top_floor"] = True
                    labels.append("не останній поверх")
                elif item == "last":
                    values["top_floor"] = True
                    labels.append("останній поверх")
                elif item == 1 and negated:
                    values["min_floor"] = 2
                    labels.append("не перший поверх")
                elif isinstance(item, int) and not negated:
                    values["floor"] = item
                    labels.append(f"{item} поверх")
            said_floors = [item for negated, item in items if isinstance(item, int) and not negated]
            if values.get("top_floor") and said_floors:
                unread_until = end - 1  # "на першому або останньому": either
                continue
            if len(said_floors) > 1:  # "на першому або другому поверсі": either
                low, high = min(said_floors), max(said_floors)
                del values["floor"]
                values |= {"min_floor": max(low, values.get("min_floor", low)), "max_floor": high}
                labels = [f"{low}–{high} поверх"]
            said_beyond, past = r.beyond(end)
            op, start = r.operator(begin)
            if said_beyond is not None and set(values) == {"floor"}:
                label, values = _one_floor(said_beyond, values["floor"])  # "на третьому … і вище"
                labels, end = [label], past
            elif op in {"min", "max"} and set(values) == {"floor"}:
                # "вище п'ятого поверху": from the 6th; "не нижче третього": from the 3rd
                label, values = _one_floor(op, values["floor"] + r.past_value(op, start))
                labels, begin = [label], start
            # "на 3 поверсі, але не останній": a floor read already says what "останній" is
            floor_read = {"floor", "min_floor", "max_floor"} & r.filters.keys()
            said = said or (bool(floor_read) and items == [(True, "last")])
            if said and values:
                r.take(begin, end, ", ".join(labels), values)


def _ordinal_range(r: Request, i: int) -> tuple[int, int, int, int] | None:
    """Floors from one ordinal to another, from token i: "від першого до п'ятого поверху", "з
    другого по четвертий поверх", as (start, end, low, high); None for anything else."""
    ordinals = [r.kind(k) == "word" and r.has(k, ORDINALS) and r.free(k) for k in (i, i + 2)]
    if not all(ordinals) or r.low(i + 1) not in RANGE_TO:
        return None
    op, start = r.operator(i)
    if op != "min" and not r.has(i - 1, RANGE_FROM):
        return None
    floor_word = i + 3
    if not r.has(floor_word, FLOOR_WORDS) or plural_only(r.low(floor_word)):
        return None  # "від другого до третього": no floor said; "поверхів": storeys
    low, high = sorted((int(r.value(i, ORDINALS)), int(r.value(i + 2, ORDINALS))))
    return (start if op == "min" else i - 1), r.skip_dot(floor_word + 1), low, high


def _floor_of_storeys(r: Request, i: int) -> bool:
    """Whether token i starts a floor written with its storeys and no floor word, "5/9", as
    listings write it: right after a flat, its rooms or its area ("квартира 5/9", "2к 5/9", "35
    м2 5/5") in a building of 3 storeys or more, or before the building's material ("5/9
    цегла"); never before a unit ("2/3 кімнати")."""
    if r.low(i + 1) != "/" or r.kind(i + 2) != "num" or not r.free(i + 2):
        return False
    floor, storeys = r.tokens[i].number, r.tokens[i + 2].number
    if not (floor.is_integer() and storeys.is_integer() and 1 <= floor <= storeys <= 60):
        return False
    after = i + 3
    if r.kind(after) in {"area", "cur", "uo"} or r.has(after, ROOM_UNITS | AREA_UNITS | METRES):
        return False
    # a comma between, as a list of a flat's features goes: "квартира, 5/9, цегла"
    after += r.low(after) == ","
    before = i - 1 - (r.low(i - 1) == ",")
    material = r.kind(after) == "word" and any(
        vocabulary.canonical("building_type", key) for key in r.keys[after]
    )
    said = (PROPERTY_WORDS, ROOMS_WORDS, ROOM_UNITS)
    flat = any(r.has(before, words) for words in said)
    # after its area, as listings write it: "3-х кімнатна 75 кв м 4/9", "1-к 35м2 5/5", "45м,
    # 3/9" (an area read, its "м" no unit alone)
    area = before >= 0 and (r.tokens[before].kind == "area" or r.low(before) in AREA_UNITS)
    area = area or r.area_ending(before + 1)
    # "1/2" after a flat is as often a half ("квартира 1/2 ціни") as a floor of two storeys
    return material or ((flat or area) and storeys >= 3)


def _one_floor(op: str | None, number: int, of: int | None = None) -> tuple[str, dict[str, int]]:
    """The label and filter of one floor number after `op` ('min', 'max' or none), and of
    the building's storeys when said (`of`: "5/9", "поверх 3 з 9")."""
    if op == "min":
        label, values = f"від {number} поверху", {"min_floor": number}
    elif op == "max":
        label, values = f"до {number} поверху", {"max_floor": number}
    else:
        label, values = f"{number} поверх", {"floor": number}
    if of is None:
        return label, values
    storeys_label, storeys_values = storeys(of, of)
    return f"{label}, {storeys_label}", values | storeys_values


def _storeys_of(r: Request, k: int, floor: int) -> int | None:
    """The storeys the number at token k says for a building with this floor: a whole number
    from the floor (or 1) up to 200, else None."""
    total = r.tokens[k].number
    return int(total) if total.is_integer() and max(floor, 1) <= total <= 200 else None


def _storeys_after(r: Request, j: int, floor: int) -> bool:
    """Whether "з 9", "of 9" at token j says the storeys of a floor just read."""
    if r.low(j) not in STOREYS_PREPS | {"из", "of"} or r.kind(j + 1) != "num":
        return False
    return _storeys_of(r, j + 1, floor) is not None and not r.has(j + 2, FLOOR_WORDS)


def _from_floor(r: Request, i: int, j: int) -> bool:
    """Whether "з", "с" before the number at i and one floor after it (genitive: "поверху",
    "этажа") say a floor and up: "з 5 поверху", "с 3 этажа" (not "поверх 3 з 9")."""
    word = r.low(j)
    if not (r.has(i - 1, RANGE_FROM) and r.has(j, FLOOR_WORDS)) or plural_only(word):
        return False
    return "gent" in grammemes(word)


def _past_suffix(r: Request, j: int) -> int:
    """Past an ordinal's ending at token j ("-го", "-й", "th"), if one is there."""
    if r.low(j) in DASHES and r.kind(j + 1) == "word" and r.low(j + 1) in SUFFIXES:
        return j + 2
    if r.kind(j) == "word" and r.low(j) in SUFFIXES:
        return j + 1
    return j


def _floor_then_number(r: Request, i: int) -> bool:
    """A floor word, one floor (not "поверхів"), and then its number: "поверх 3", "floor 5"."""
    if r.kind(i) != "word" or not r.has(i, FLOOR_WORDS) or plural_only(r.low(i)):
        return False
    if r.low(i).isascii() and r.low(i).endswith("s"):
        return False  # "floors 3": how many
    return r.kind(i + 1) == "num" and r.tokens[i + 1].number == int(r.tokens[i + 1].number)
