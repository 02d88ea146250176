"""Rooms: "двокімнатна", "2-кімнатна", "2к", "3+ кімнати", "дво- або трикімнатна",
"однушка"."""

from __future__ import annotations

from .places import token_keys
from .request import Chip, Quantity, Request, dropped_if_negated
from .words import (
    ALTERNATIVES,
    DASHES,
    FLAT_WORDS,
    LABEL_SIGNS,
    NUMBER_WORDS,
    ROOM_UNITS,
    ROOMS_WORDS,
    STUDIO,
)


def _rooms_label(count: int, *, after: str = "") -> str:
    """ "3 кімнати"; after a preposition ("від", "до") the genitive: "від 3 кімнат"."""
    if after:
        word = "кімнати" if count % 10 == 1 and count % 100 != 11 else "кімнат"
        return f"{after} {count} {word}"
    if count % 10 == 1 and count % 100 != 11:
        return f"{count} кімната"
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return f"{count} кімнати"
    return f"{count} кімнат"


def rooms_k(quantity: Quantity) -> bool:
    """Whether a number with "к" may be a room count ("2к"), not thousands ("20к")."""
    return quantity.mult in {"к", "k"} and quantity.low < 10_000


def rooms_and_flat(r: Request, quantity: Quantity) -> bool:
    """ "1к кв.": one room, a flat ("кв." for "квартира"), not 1 000 square metres ("3k sqm",
    "2к кв.м" are areas)."""
    units = [r.low(k) for k in range(quantity.start, quantity.end)]
    return rooms_k(quantity) and (units[-1] == "кв" or units[-2:] == ["кв", "."])


def _count(r: Request, i: int) -> int | None:
    """The whole number token i says, in digits or in words; None if it says none."""
    if r.kind(i) == "num":
        return int(r.tokens[i].number)
    if r.kind(i) == "word" and r.has(i, NUMBER_WORDS):
        return int(r.value(i, NUMBER_WORDS))
    return None


# A room count said after its noun, as forms and agents' keywords put it ("кімнат: 2",
# "rooms=2", "кімн. 3"): plural forms only ("кімната 2" is a room, the property), a whole
# count up to MAX_ROOMS_AFTER_NOUN with no unit of its own ("кімнати 15 м²" is an area), not
# a size ("кімнати 4 на 5").
COUNT_NOUNS = frozenset(
    {"кімнат", "кімнати", "кімн", "комнат", "комнаты", "комн", "rooms", "bedrooms"}
)
NOT_A_COUNT_AFTER = frozenset({"на", "x", "х", "×", "*", "/"})
MAX_ROOMS_AFTER_NOUN = 10


def _count_after_noun(r: Request, i: int) -> tuple[int, int] | None:
    """(the count, where it ends) of a room count said after its noun at i (COUNT_NOUNS); a
    plus after it is read by the caller ("кімнат 3+")."""
    j = r.skip_dot(i + 1)
    if r.low(j) in LABEL_SIGNS:
        j += 1
    quantity = r.quantity(j)
    if quantity is None or quantity.high is not None or r.low(quantity.end) in NOT_A_COUNT_AFTER:
        return None
    if quantity.unit or quantity.currency or quantity.mult:
        return None
    if quantity.low != int(quantity.low) or not 0 < quantity.low <= MAX_ROOMS_AFTER_NOUN:
        return None
    return int(quantity.low), quantity.end


def _rooms_prefix_before(r: Request, i: int) -> tuple[int, int] | None:
    """(where it starts, its count) of a room count's first half said before the rooms word
    at i: "дво- або трикімнатна", "дво-трикімнатна" ("дво" + "кімнатна" is a rooms word)."""
    k, joined = i - 1, False
    if r.low(k) in ALTERNATIVES:
        k, joined = k - 1, True
    if r.low(k) in DASHES:
        k, joined = k - 1, True
    if not joined or r.kind(k) != "word":
        return None
    count = _prefixed_rooms(r.low(k), r.keys[i])
    return None if count is None else (k, count)


def _prefixed_rooms(prefix: str, words: frozenset[str]) -> int | None:
    """The rooms of `prefix` put in place of a rooms word's own count ("дво" and
    "трикімнатна": 2), trying every form of the word; None if no form makes a rooms word."""
    for word in words:
        if word not in ROOMS_WORDS:
            continue
        for cut in range(2, min(len(word), 10)):
            count = ROOMS_WORDS.get(prefix + word[cut:])
            if count is not None:
                return int(count)
    return None


def _hyphened_rooms(r: Request, i: int) -> tuple[int, int] | None:
    """The two room counts one hyphened word names ("дво-трикімнатна": 2, 3)."""
    first, _, second = r.low(i).partition("-")
    words = token_keys(second)
    if not first or not any(word in ROOMS_WORDS for word in words):
        return None
    other = _prefixed_rooms(first, words)
    count = next(int(ROOMS_WORDS[word]) for word in words if word in ROOMS_WORDS)
    return None if other is None else (other, count)


def _take_rooms_range(r: Request, start: int, end: int, one: int, other: int) -> None:
    """Tokens start..end read as the room counts from the smaller of one, other to the
    larger ("2–3 кімнати")."""
    low, high = sorted((one, other))
    r.take(start, end, f"{low}–{_rooms_label(high)}", {"min_rooms": low, "max_rooms": high})


def read_rooms(r: Request) -> None:
    for i in range(len(r.tokens)):
        if "rooms_count" in r.filters or "min_rooms" in r.filters:
            return
        count = _count(r, i)
        if count is not None:
            j, high = i + 1, None
            op, start = r.operator(i)
            shift = r.past_value(op, start)  # "більше 2 кімнат": from 3
            second = _count(r, j + 1)
            if (r.low(j) in DASHES or r.low(j) in ALTERNATIVES) and second:
                high, j = second, j + 2  # "2-3", "2 або 3 кімнати", "two or three"
            elif r.joined(op, j) and second:
                high, j = second, j + 2  # "від 2 до 3 кімнат", "от двух до трёх комнат"
            if high is None and r.low(j) == "+":
                op, j, shift = "min", j + 1, 0  # "3+ кімнати", "4+ rooms"
            elif high is None and op is None:
                op, j = r.beyond(j)  # "2 or more rooms"
            while r.low(j) in DASHES or r.low(j) in {"х", "x", "ти", "ох"}:
                j += 1
            if not (r.kind(j) == "word" and r.has(j, ROOM_UNITS)) or not 0 < count <= 20:
                continue
            if op == "max" and count + shift < 1:
                continue  # "менше 1 кімнати"
            end = r.skip_dot(j + 1)
            if high is None and op is None:
                op, end = r.beyond(end)  # "3 кімнати і більше"
            if high is not None:
                _take_rooms_range(r, start, end, count, high)
            elif op == "min":
                low = count + shift
                r.take(start, end, _rooms_label(low, after="від"), {"min_rooms": low})
            elif op == "max":
                high = count + shift
                r.take(start, end, _rooms_label(high, after="до"), {"max_rooms": high})
            else:
                r.take(start, end, _rooms_label(count), {"rooms_count": count})
        elif r.kind(i) == "word" and r.low(i) in COUNT_NOUNS and (said := _count_after_noun(r, i)):
            count, end = said
            if r.low(end) == "+":  # "кімнат 3+"
                r.take(i, end + 1, _rooms_label(count, after="від"), {"min_rooms": count})
            else:
                r.take(i, end, _rooms_label(count), {"rooms_count": count})
        elif r.kind(i) == "word" and r.has(i, ROOMS_WORDS) and not dropped_if_negated(r, i, i + 1):
            count, first, end = int(r.value(i, ROOMS_WORDS)), i, i + 1
            other = None
            if r.low(i + 1) in ALTERNATIVES and r.has(i + 2, ROOMS_WORDS):
                other, end = int(r.value(i + 2, ROOMS_WORDS)), i + 3  # "одно- або двокімнатна"
            elif (paired := _rooms_prefix_before(r, i)) is not None:
                first, other = paired  # "дво- або трикімнатна"
            if other is None:
                r.take(i, end, _rooms_label(count), {"rooms_count": count})
            else:
                _take_rooms_range(r, first, end, other, count)
            flat_said(r, i)
        elif r.kind(i) == "word" and "-" in r.low(i) and (pair := _hyphened_rooms(r, i)):
            _take_rooms_range(r, i, i + 1, *pair)
        elif r.kind(i) == "word" and r.has(i, STUDIO):
            # "студія" stays in the text too: the layout is in the words, not a filter.
            r.filters.setdefault("rooms_count", 1)
            span = r.tokens[i].start, r.tokens[i].end
            r.chips.append(Chip("студія (1 кімната)", ("rooms_count",), *span))
            flat_said(r, i)


def flat_said(r: Request, i: int) -> None:
    """A rooms word at i that names a flat too ("однушка", "квартира-студія"): a flat, unless
    another word has said the type."""
    if not r.keys[i] & FLAT_WORDS or "apartment" not in r.property_types:
        return
    if "property_type" not in r.filters:
        r.filters["property_type"] = "apartment"
        span = r.tokens[i].start, r.tokens[i].end
        r.chips.append(Chip(r.property_types["apartment"], ("property_type",), *span))
