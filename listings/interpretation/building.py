"""The building and the flat's state: the year it was built, its type ("цегляний"), the
renovation and the balcony."""

from __future__ import annotations

from .. import vocabulary
from ..models import BuildingType, RenovationStatus
from .request import Request, dropped_if_negated, named_range
from .words import (
    AGE_OLDER,
    AGE_UNITS,
    AGE_YOUNGER,
    ALTERNATIVES,
    AND_WORDS,
    BALCONY,
    BETWEEN,
    BUILDING_NOUNS,
    BUILT,
    DASHES,
    FILLERS,
    NEGATIONS,
    PERSONS,
    PUBLISHED,
    RANGE_TO,
    RENOVATED,
    RENOVATION_DONE,
    RENOVATION_NOUNS,
    RENOVATION_WORDS,
    WITH,
    WITHOUT,
    YEAR_AFTER,
    YEAR_BEFORE,
    YEAR_FROM,
)

# The building years a request may say: a number outside them is no year.
YEARS = (1800, 2100)


def _year_at(r: Request, i: int) -> int | None:
    """The year written at token i ("2015"), or None."""
    if r.kind(i) != "num" or not r.tokens[i].text.isdigit() or len(r.tokens[i].text) != 4:
        return None
    year = int(r.tokens[i].text)
    return year if YEARS[0] <= year <= YEARS[1] else None


def _year_bounds(r: Request, i: int, year: int) -> tuple[int, int | None, int | None]:
    """(start, low, high) of a building year at token i by the word before it: "з 2010"
    that year on, "після 2010" later, "до 2000" and "старше 2000" earlier, "не старше 2010"
    that year on, "не пізніше 2010" up to it, "у 2015" or nothing that year alone."""
    j = i - 1
    if r.has(j, YEAR_FROM) or r.has(j, BETWEEN):
        return j, year, None
    later, earlier = r.has(j, YEAR_AFTER), r.has(j, YEAR_BEFORE)
    if (later or earlier) and r.has(j - 1, NEGATIONS):
        return j - 1, (year if earlier else None), (year if later else None)
    if later or earlier:
        return j, (year + 1 if later else None), (year - 1 if earlier else None)
    if r.low(j) in {"у", "в", "in"} and r.free(j):
        return j, year, year
    return i, year, year


def read_year(r: Request) -> None:
    """The building's year: "будинок 2015 року", "після 2010 року побудови", "built after
    2015", "1990-х років", "з 2000 по 2010 рік", "2010+ року". A number is a year only with its word
    ("року", "р.", "year") or a word for building ("побудови", "built"), and not after a word
    for the listing ("оголошення з 2024 року": when it was published)."""
    for i in range(len(r.tokens)):
        year = _year_at(r, i)
        if year is None or {"min_building_year", "max_building_year"} & r.filters.keys():
            continue
        start, low, high = _year_bounds(r, i, year)
        end, decade = i + 1, False
        if r.low(end) in DASHES and r.low(end + 1) in {"х", "ті", "ых", "их", "ые"}:
            low, high, end = year, year + 9, end + 2  # a decade: "1990-х"
            decade = year % 10 == 0  # said as years even without "років" ("будинок 1960-х")
        elif r.low(end) in DASHES | RANGE_TO | AND_WORDS and (other := _year_at(r, end + 1)):
            low, high, end = min(year, other), max(year, other), end + 2
        plus = r.low(end) == "+" and low == high
        if plus:
            high, end = None, end + 1  # "2010+ року", "новобудова 2015+": that year or later
        # "2015-го року"; "після 2020-го": an ordinal ending after "після", "до", "з" says a
        # year, its word unsaid
        end, suffixed, worded = r.past_year(end)
        said = (suffixed and start < i) or worded or decade
        # a building's year and a plus, the year's word unsaid ("будинок 2010+")
        said = said or (plus and r.has(start - 1, BUILDING_NOUNS))
        if r.low(end) in ALTERNATIVES - {"/"} and low == high:
            # "2015 року і пізніше", "2000 or earlier"
            if r.has(end + 1, YEAR_AFTER):
                high, end = None, end + 2
            elif r.has(end + 1, YEAR_BEFORE):
                low, end = None, end + 2
        built_after = r.has(end, BUILT)
        end = end + 1 if built_after else end
        # "built after 2015", "побудований у 2015 році"
        built = next((k for k in (start - 1, start - 2) if r.has(k, BUILT)), None)
        if not (said or built_after or built is not None):
            continue
        if any(r.has(k, PUBLISHED) for k in range(max(0, start - 3), start)):
            continue
        if r.has(end, PUBLISHED):
            continue  # "2024 рік публікації": when the listing was published
        if built is None and r.low(start - 1) in {"на", "за", "for"}:
            continue  # "оренда на 2026 рік", "ціни за 2024 рік": a year of the deal, the data
        before = start - 2 if r.low(start - 1) in {"у", "в", "in", "of"} else start - 1
        if built is None and r.has(before, RENOVATION_NOUNS | frozenset(RENOVATION_WORDS)):
            continue  # "з ремонтом 2020 року", "euro renovation in 2021": the renovation's
        start = _with_its_building(r, built if built is not None else start)
        r.take(start, end, named_range("рік побудови", low, high), _year_filters(low, high))


def _with_its_building(r: Request, start: int) -> int:
    """Where a building's year or age said from `start` begins, with the building named before
    it: "у будинку після 2015 року" (a house said alone is the property's), "квартира,
    будинок після 2010 року" (the flat's building)."""
    if r.has(start - 1, BUILDING_NOUNS) and r.low(start - 2) in {"у", "в", "a"}:
        return start - 2
    if r.has(start - 1, BUILDING_NOUNS) and r.says_property_besides("house"):
        return start - 1
    return start


def read_age(r: Request) -> None:
    """The building's age, counted from `r.this_year`: "не старше 10 років" (built 10 years
    ago or later), "молодше 5 лет", "старше 30 років", "less than 10 years old", "at least
    50 years old". A comparative leaves its number out, as with rooms ("молодше 5 років": at
    most 4 years old)."""
    for i in range(len(r.tokens)):
        if r.kind(i) != "num" or {"min_building_year", "max_building_year"} & r.filters.keys():
            continue
        years = r.tokens[i].number
        if not (years.is_integer() and 0 < years <= 200 and r.has(i + 1, AGE_UNITS)):
            continue
        end, j = i + 2, i - 1
        while j > 0 and r.low(j) in FILLERS:
            j -= 1  # "старше ніж 10 років"
        if r.free(j) and r.has(j, AGE_OLDER | AGE_YOUNGER):
            older, strict, start = r.has(j, AGE_OLDER), True, j
            if r.has(j - 1, NEGATIONS):
                older, strict, start = not older, False, j - 1  # "не старше": at most
        elif r.low(j) in {"до", "up"} and r.free(j) and r.has(j - 1, BUILDING_NOUNS):
            older, strict, start = False, False, j  # "будинок до 10 років": at most 10 old
        elif r.low(end) == "old":
            op, start = r.operator(i)  # "less than 10 years old", "over 50 years old"
            if op not in {"min", "max"}:
                continue
            older, strict, end = op == "min", r.past_value(op, start) != 0, end + 1
        else:
            continue
        if any(r.has(k, PERSONS) for k in range(max(0, start - 3), start)):
            continue  # "для людей старше 60 років": a person's age
        age = int(years) + (1 if strict and older else -1 if strict else 0)
        low, high = (None, r.this_year - age) if older else (r.this_year - age, None)
        start = _with_its_building(r, start)
        r.take(start, end, named_range("рік побудови", low, high), _year_filters(low, high))


def _year_filters(low: int | None, high: int | None) -> dict[str, int]:
    values = {"min_building_year": low, "max_building_year": high}
    return {k: v for k, v in values.items() if v is not None}


def read_renovation(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or "renovation_status" in r.filters:
            continue
        value, start, end = None, r.with_start(i), i + 1
        if r.has(i, WITHOUT) and r.has(i + 1, RENOVATION_NOUNS):
            value, start, end = "none", i, i + 2
        elif r.has(i + 1, RENOVATION_NOUNS) and r.has(i, RENOVATION_WORDS):
            value, end = r.value(i, RENOVATION_WORDS), i + 2
        elif r.has(i, RENOVATION_NOUNS) and r.has(i + 1, RENOVATION_WORDS):
            # "ремонт євро", "ремонт косметичний": an agent's keywords, the kind after the noun
            value, end = r.value(i + 1, RENOVATION_WORDS), i + 2
        elif r.has(i, RENOVATION_WORDS) and "ремонт" in r.low(i):
            value = r.value(i, RENOVATION_WORDS)
        elif any("ремонт" in key for key in r.keys[i]):
            for key in r.keys[i]:
                value = value or vocabulary.canonical("renovation_status", key)
        if value is None and r.has(i, RENOVATED):
            value = vocabulary.RENOVATED  # "відремонтована", "renovated"
        elif value is None and r.has(i, RENOVATION_NOUNS):
            done = _renovation_done(r, i)
            value, start = (vocabulary.RENOVATED, done) if done is not None else (None, start)
        if value is None or dropped_if_negated(r, start, end):
            continue
        label = vocabulary.GROUP_LABELS.get(value) or str(RenovationStatus(value).label)
        r.take(start, end, label, {"renovation_status": value})


def _renovation_done(r: Request, i: int) -> int | None:
    """Where a renovation of no kind said, but said done, starts before its noun at i: "з
    ремонтом", "після ремонту", "зі свіжим ремонтом", "after a modern renovation"; None for
    the noun alone ("ремонт у 2020 році"), or said otherwise ("під ремонт", "з недорогим
    ремонтом": the renovation's price; "з ремонтом 2020 року": its year, left to full text
    with it)."""
    if _year_at(r, i + 1) or (r.low(i + 1) in {"у", "в", "in"} and _year_at(r, i + 2)):
        return None
    k = i - 1
    while k > i - 3 and r.has(k, RENOVATION_DONE):
        k -= 1
    k -= 1 if r.low(k) in {"a", "the"} else 0
    if r.has(k, WITH):
        return k
    return k + 1 if k < i - 1 and r.low(k + 1) not in {"a", "the"} else None


def read_balcony(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) == "word" and r.has(i, BALCONY) and "has_balcony" not in r.filters:
            if r.has(i - 1, WITHOUT):
                r.take(i - 1, i + 1, "без балкона", {"has_balcony": False})
            elif dropped_if_negated(r, i, i + 1):
                continue  # "не з балконом": said against, not for, a balcony
            elif r.count(i - 1) == 0:
                r.take(i - 1, i + 1, "без балкона", {"has_balcony": False})  # "0 балконів"
            else:
                counted = r.count(i - 1) is not None
                start = r.with_start(i - 1 if counted else i)  # "з 2 балконами": one at least
                end = i + 1
                if r.low(end) in ALTERNATIVES and r.has(end + 1, BALCONY) and r.free(end + 1):
                    end += 2  # "з балконом або лоджією": a loggia is a balcony too
                r.take(start, end, "з балконом", {"has_balcony": True})


def read_building(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or "building_type" in r.filters:
            continue
        value = None
        for key in sorted(r.keys[i]):
            found = vocabulary.canonical("building_type", key)
            if found and key not in {"wood", "дерево"}:
                value = found
        end = i + 2 if r.has(i + 1, BUILDING_NOUNS) else i + 1
        if value is None or dropped_if_negated(r, i, end):
            continue
        start = i - 1 if r.low(i - 1) in {"у", "в", "з", "із", "in"} and r.free(i - 1) else i
        label = f"{BuildingType(value).label} (будинок)"
        r.take(start, end, label, {"building_type": value})
