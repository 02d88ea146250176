"""A request as the rules see it: its tokens and their lemmas, what is taken, the filters
and chips so far; quantities with their operators and units; what is read and shown."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import vocabulary
from .morphology import lemmas, normal
from .places import PLACE_COLUMNS, Gazetteer, token_keys
from .tokens import Token, tokenize
from .typos import Vocabulary, cyrillic_lookalikes
from .words import (
    AGE_OLDER,
    AGE_YOUNGER,
    ALTERNATIVES,
    AND_WORDS,
    AREA_CUES,
    AREA_UNITS,
    BALCONY,
    BATHROOM_NOUNS,
    BATHROOM_WORDS,
    BETWEEN,
    BUILDING_NOUNS,
    BUILT,
    CARDINALS,
    DASHES,
    DEAL_WORDS,
    DISTRICT_CUES,
    FILLERS,
    FLOOR_WORDS,
    HEATING_NOUNS,
    HEATING_WORDS,
    HUNDREDS,
    KITCHEN,
    LAST,
    MAX_WORDS,
    METRES,
    METRO_CUES,
    MILLIONS,
    MIN_WORDS,
    MINUTES,
    MONTH_NOUNS,
    NEAR,
    NEGATED_THROUGH,
    NEGATIONS,
    NUMBER_WORDS,
    OR_LESS,
    OR_MORE,
    ORDINALS,
    OUTSKIRTS,
    PARKING_NOUNS,
    PLOT_UNITS,
    PROPERTY_WORDS,
    RANGE_TO,
    RENOVATION_WORDS,
    ROOM_UNITS,
    ROOMS_WORDS,
    SQUARE,
    STRICT,
    STUDIO,
    THOUSANDS,
    WITH,
    YEAR_SUFFIXES,
    YEAR_WORDS,
)

# The filters of a total area: what an "area read" is.
AREA_FILTERS = frozenset({"min_area", "max_area"})


@dataclass(frozen=True)
class Chip:
    """One thing understood: its label for people, the filters it set, where it was said."""

    label: str
    filters: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True)
class Interpretation:
    filters: dict[str, Any]
    text: str
    chips: tuple[Chip, ...] = ()
    # Words read as another ("Кеїв" -> "Київ"): a one-letter typo or Latin look-alikes.
    corrected: dict[str, str] = field(default_factory=dict)
    # The order asked for, a sort_by ("найдешевші": price_asc); only with interpret(orders=True).
    order: str | None = None
    # An order asked for that no sort_by gives ("sort by date ascending": the oldest first):
    # its words are out of the text, and the search says it is not applied.
    order_unavailable: str | None = None
    # The text with its Russian and English words as the Ukrainian listings write them
    # ("дом с участком": "з ділянкою"), searched as well; None when it has no such word.
    ukrainian: str | None = None
    # Those words: {"участком": "ділянкою", "pool": "басейн"}.
    translated: dict[str, str] = field(default_factory=dict)
    # The words of the text that name a neighbourhood read as its district ("Позняках"):
    # a search may leave them out when no listing of the district says them.
    neighbourhoods: tuple[str, ...] = ()


@dataclass
class Quantity:
    start: int
    end: int
    low: float
    high: float | None
    currency: str | None
    mult: str | None
    unit: str | None  # "area" (m²), "metres" (a length or an area), None
    at_least: bool = False  # a plus before its currency or unit: "2000+ грн", "50+ м²"


def cardinal(token: Token) -> float | None:
    """The value of a numeral word in any form ("ста" 100, "п'ятдесяти" 50, "hundred" as
    100), or None."""
    if token.kind != "word":
        return None
    if token.low in HUNDREDS:
        return 100.0
    for key in token_keys(token.low):
        if key in CARDINALS:
            return float(CARDINALS[key])
    return None


def numerals(tokens: list[Token]) -> list[Token]:
    """Numbers said in words read as numbers ("до ста тисяч доларів", "двісті п'ятдесят
    тисяч", "one hundred fifty thousand"): a run of numeral words becomes one number token
    that keeps its words (the text searched for is unchanged). A lone word under ten stays
    a word ("дві кімнати" is read by the rooms rule) unless a multiplier follows it."""
    found: list[Token] = []
    i = 0
    while i < len(tokens):
        j, total = i, 0.0
        while j < len(tokens) and (value := cardinal(tokens[j])) is not None:
            total = (total or 1.0) * 100 if tokens[j].low in HUNDREDS else total + value
            j += 1
        after = token_keys(tokens[j].low) if j < len(tokens) else frozenset()
        multiplier = bool(after & (THOUSANDS | MILLIONS))
        if j > i and (j - i > 1 or total >= 10 or multiplier):
            first, last = tokens[i], tokens[j - 1]
            text = " ".join(token.text for token in tokens[i:j])
            found.append(Token(text, normal(text), "num", first.start, last.end, total))
            i = j
            continue
        found.append(tokens[i])
        i += 1
    return found


@dataclass
class Request:
    text: str
    gazetteer: Gazetteer
    property_types: Mapping[str, str]
    currencies: Mapping[str, str]
    tokens: list[Token] = field(default_factory=list)
    keys: list[frozenset[str]] = field(default_factory=list)
    used: list[bool] = field(default_factory=list)
    filters: dict[str, Any] = field(default_factory=dict)
    chips: list[Chip] = field(default_factory=list)
    corrected: dict[str, str] = field(default_factory=dict)
    this_year: int = 0  # what a building's age counts from ("не старше 10 років")
    order: str | None = None  # a sort_by asked for ("найдешевші": price_asc)
    order_unavailable: str | None = None  # one no sort_by gives ("sort by date ascending")
    today: datetime.date = datetime.date.min  # what "за останній тиждень" counts back from
    neighbourhoods: list[str] = field(default_factory=list)  # their words, left in the text

    def __post_init__(self) -> None:
        self.tokens = numerals(tokenize(self.text))
        for i, token in enumerate(self.tokens):
            fixed = cyrillic_lookalikes(token.low) if token.kind == "word" else token.low
            if fixed != token.low:
                self.tokens[i] = dataclasses.replace(token, low=fixed)
                self.corrected[token.text] = cyrillic_lookalikes(token.text)
        self.keys = [
            token_keys(t.low) if t.kind == "word" else frozenset({t.low}) for t in self.tokens
        ]
        self.used = [False] * len(self.tokens)
        vocabulary = typo_vocabulary(self.gazetteer)
        for i, token in enumerate(self.tokens):
            if token.kind != "word" or any(key in vocabulary for key in self.keys[i]):
                continue
            found = vocabulary.correction(
                token.low, capitalised=token.text[:1].isupper(), lemmas=lemmas(token.low)
            )
            if found is not None:
                word, meaning = found
                self.keys[i] = self.keys[i] | token_keys(word)
                column, _, value = meaning.partition(":")
                self.corrected[token.text] = value if column in PLACE_COLUMNS else word

    # --- looking at tokens -------------------------------------------------------------------

    def free(self, i: int) -> bool:
        return 0 <= i < len(self.tokens) and not self.used[i]

    def kind(self, i: int) -> str | None:
        return self.tokens[i].kind if self.free(i) else None

    def low(self, i: int) -> str:
        return self.tokens[i].low if 0 <= i < len(self.tokens) else ""

    def has(self, i: int, table: frozenset[str] | Mapping[str, Any]) -> bool:
        return self.free(i) and any(key in table for key in self.keys[i])

    def with_start(self, i: int) -> int:
        """Where what is said at token i starts: at the "з", "with" before it, if any."""
        return i - 1 if self.has(i - 1, WITH) else i

    def says_property_besides(self, slug: str) -> bool:
        """Whether a property type other than `slug` is said ("квартира" beside "будинок"), as
        the property, not as what it comes with ("будинок з машиномісцем")."""
        return any(
            self.has(k, PROPERTY_WORDS)
            and self.value(k, PROPERTY_WORDS) != slug
            and not self.said_with(k)
            for k in range(len(self.tokens))
        )

    def said_with(self, k: int) -> bool:
        """Whether the property word at token k follows "з", "with": something the property
        comes with ("з машиномісцем", "з земельною ділянкою", its first word between)."""
        j = k - 1
        if self.has(j, PROPERTY_WORDS) and self.value(j, PROPERTY_WORDS) == self.value(
            k, PROPERTY_WORDS
        ):
            j -= 1  # "земельною ділянкою": one type in two words
        return self.has(j, WITH)

    def past_year(self, end: int) -> tuple[int, bool, bool]:
        """From `end`, right after a year, the token past its ordinal ending ("2020-го") and
        its word ("року", "р."), and whether each was said."""
        suffixed = self.low(end) in DASHES and self.low(end + 1) in YEAR_SUFFIXES
        end += 2 if suffixed else 0
        worded = self.has(end, YEAR_WORDS)
        return (self.skip_dot(end + 1) if worded else end), suffixed, worded

    def chips_ending(self, i: int) -> list[Chip]:
        """The chips read from words that end right before token i."""
        return [chip for chip in self.chips if i > 0 and chip.end == self.tokens[i - 1].end]

    def area_ending(self, i: int) -> bool:
        """Whether a total area was read from words that end right before token i ("10 соток
        кв", "45м, 3/9")."""
        return any(AREA_FILTERS & set(chip.filters) for chip in self.chips_ending(i))

    def count(self, i: int) -> float | None:
        """The number at token i, in digits or in a word ("2", "дві", "двома", "two")."""
        if self.kind(i) == "num":
            return self.tokens[i].number
        return float(self.value(i, NUMBER_WORDS)) if self.has(i, NUMBER_WORDS) else None

    def value(self, i: int, table: Mapping[str, Any]) -> Any:
        for key in sorted(self.keys[i], key=lambda k: (k != self.low(i), k)):
            if key in table:
                return table[key]
        return None

    def take(
        self,
        start: int,
        end: int,
        label: str,
        values: Mapping[str, Any],
        *,
        names: tuple[str, ...] | None = None,
    ) -> None:
        """Tokens start..end read as `values` (filters), shown as a chip `label` that names
        them, or `names` for what is no filter (an order: "sort_by")."""
        for name, value in values.items():
            self.filters.setdefault(name, value)
        for i in range(start, end):
            self.used[i] = True
        span = self.tokens[start].start, self.tokens[end - 1].end
        self.chips.append(Chip(label, names or tuple(values), *span))

    def skip_dot(self, j: int) -> int:
        return j + 1 if self.kind(j) == "sym" and self.low(j) == "." else j

    # --- numbers --------------------------------------------------------------------------

    def multiplier(self, j: int) -> tuple[float, str | None, int]:
        if self.kind(j) == "word":
            if self.has(j, THOUSANDS):
                return 1e3, self.low(j), self.skip_dot(j + 1)
            if self.has(j, MILLIONS):
                return 1e6, self.low(j), self.skip_dot(j + 1)
        return 1.0, None, j

    def currency(self, j: int) -> tuple[str | None, int]:
        kind = self.kind(j)
        if kind == "uo":
            return "USD", j + 1
        if kind in {"cur", "word"}:
            for key in self.keys[j]:
                code = vocabulary.currency_code(key, self.currencies)
                if code:
                    return code, self.skip_dot(j + 1)
        return None, j

    def area_unit(self, j: int) -> tuple[str | None, int]:
        if self.kind(j) == "area" or (self.kind(j) == "word" and self.has(j, AREA_UNITS)):
            return "area", self.skip_dot(j + 1)
        if self.has(j, SQUARE) and self.has(j + 1, METRES):
            return "area", self.skip_dot(j + 2)
        if self.kind(j) == "word" and self.has(j, METRES):
            k = self.skip_dot(j + 1)
            if self.has(k, SQUARE):  # "55 м.кв.", "55 метрів квадратних"
                return "area", self.skip_dot(k + 1)
            return "metres", k
        if self.kind(j) == "word" and self.has(j, PLOT_UNITS):
            return str(self.value(j, PLOT_UNITS)), self.skip_dot(j + 1)
        return None, j

    def quantity(self, i: int) -> Quantity | None:
        j, sign = i, None
        if self.kind(j) == "cur":
            sign, j = self.currency(j)
        if self.kind(j) != "num":
            return None
        first = self.tokens[j]
        factor, mult, j = self.multiplier(j + 1)
        low = first.decimal if mult else first.number  # "1,5 млн", "50.000"
        high = None
        if self.low(j) in DASHES and self.kind(j + 1) == "num":
            second = self.tokens[j + 1]
            high_factor, high_mult, j = self.multiplier(j + 2)
            high = second.decimal if high_mult else second.number
            if high_mult:
                factor = factor if mult else high_factor
                mult, high = mult or high_mult, high * high_factor
            else:
                high *= factor
        low *= factor
        plus = high is None and self.low(j) == "+"
        after = j + 1 if plus else j
        code, k = self.currency(after) if sign is None else (sign, after)
        unit, k = self.area_unit(k) if code is None else (None, k)
        if plus and code is None and unit is None:
            return Quantity(i, j, low, high, None, mult, None)  # a plus alone says nothing here
        return Quantity(i, k, low, high, code, mult, unit, at_least=plus)

    def range_unit(self, quantity: Quantity, op: str | None) -> str | None:
        """The unit said after a range's second end only ("від 50 до 70 м²"): the first
        end's too."""
        if quantity.unit or not self.joined(op, quantity.end):
            return quantity.unit
        following = self.quantity(quantity.end + 1)
        return following.unit if following is not None else None

    def joined(self, op: str | None, j: int) -> bool:
        """Whether token j joins a range's first end to its second after `op` ("від 30 до",
        "між 30 і")."""
        if op == "min":
            return self.low(j) in RANGE_TO
        return op == "between" and self.low(j) in AND_WORDS

    def operator(self, i: int) -> tuple[str | None, int]:
        """'min', 'max' or 'between' said before token i ("від", "не більше", "up to",
        "між"), and where."""
        j = i - 1
        while j >= 0 and j > i - 4 and self.has(j, FILLERS):
            j -= 1
        if j < 0 or not self.free(j):
            return None, i
        kind = "min" if self.has(j, MIN_WORDS) else "max" if self.has(j, MAX_WORDS) else None
        if kind is None:
            return ("between", j) if self.has(j, BETWEEN) else (None, i)
        if j > 0 and self.has(j - 1, NEGATIONS):
            return ("max" if kind == "min" else "min"), j - 1
        return kind, j

    def past_value(self, op: str | None, j: int) -> int:
        """How far a whole number's bound lies from the value `op` at token j (operator's)
        leaves out: "більше 2 кімнат" is 3 or more (+1), "нижче 5 поверху" the 4th or lower
        (-1); 0 where the value is in ("від", "до", "не більше")."""
        if op not in {"min", "max"} or not self.has(j, STRICT):
            return 0
        return 1 if op == "min" else -1

    def beyond(self, j: int) -> tuple[str | None, int]:
        """'min' or 'max' said at token j, right after a value ("і вище", "або більше", "or
        more", "и меньше"), and the token past it; (None, j) when neither is."""
        if self.low(j) not in ALTERNATIVES - {"/"} or not self.free(j) or not self.free(j + 1):
            return None, j
        if self.low(j + 1) in OR_MORE:
            return "min", j + 2
        if self.low(j + 1) in OR_LESS:
            return "max", j + 2
        return None, j

    def limits(
        self, quantity: Quantity, op: str | None
    ) -> tuple[str | None, float | None, float | None, int]:
        """(op, low, high, end) of a quantity: its bounds, or, with no operator before a
        single value, the open bound said after it ("60 м² і більше", "$500 or more"), and
        the token past those words."""
        low, high = self.bounds(quantity, op)
        if op is None and quantity.at_least:
            return "min", quantity.low, None, quantity.end  # "2000+ грн"
        if op is None and quantity.high is None:
            said, past = self.beyond(quantity.end)
            if said is not None:
                low, high = (quantity.low, None) if said == "min" else (None, quantity.low)
                return said, low, high, past
        return op, low, high, quantity.end

    def bounds(self, quantity: Quantity, op: str | None) -> tuple[float | None, float | None]:
        """(low, high) of a quantity after an operator; a range "від 30 до 40" too."""
        if quantity.high is not None:
            low, high = sorted((quantity.low, quantity.high))
            return low, high
        if op in {"min", "between"}:
            if self.joined(op, quantity.end) and self.kind(quantity.end + 1):
                following = self.quantity(quantity.end + 1)
                if following is not None and following.unit == quantity.unit:
                    factor = 1.0
                    if quantity.mult is None and following.mult is not None:
                        factor = following.low / self.tokens[following.start].number
                    quantity.currency = quantity.currency or following.currency
                    quantity.end = following.end
                    return quantity.low * factor, following.low
            return quantity.low, None
        return None, quantity.low


def number_text(value: float) -> str:
    whole = round(value)
    text = f"{whole:,}".replace(",", "\u00a0") if abs(value - whole) < 1e-9 else f"{value:g}"
    return text


def either_side(value: float, share: float) -> tuple[float, float]:
    """`value` less and plus `share` of it, rounded to cents: 45 * 1.1 is 49.50000000000001,
    which the caller would see in `filters`."""
    return round(value * (1 - share), 2), round(value * (1 + share), 2)


def named_range(name: str, low: int | None, high: int | None) -> str:
    """A range of whole numbers after its name: "рік побудови 2010", "поверховість 2–3",
    "рік побудови від 2016", "поверховість до 5" (digits ungrouped: years)."""
    if low is not None and low == high:
        return f"{name} {low}"
    if low is not None and high is not None:
        return f"{name} {low}–{high}"
    return f"{name} від {low}" if low is not None else f"{name} до {high}"


def range_label(low: float | None, high: float | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{number_text(low)}–{number_text(high)} {unit}"
    if low is not None:
        return f"від {number_text(low)} {unit}"
    return f"до {number_text(high or 0)} {unit}"


def dropped_if_negated(r: Request, i: int, end: int) -> bool:
    """Whether the word at i is negated ("не в панельному будинку", "не в Києві", "не
    однокімнатна"); if so, the words from the negation up to `end` are marked used. No filter
    says "not this value": they set none and leave the searched text too, where "панельному
    будинку" without its "не" would ask for the opposite."""
    k = i - 1
    while k >= 0 and k > i - 4 and r.low(k) in NEGATED_THROUGH:
        k -= 1
    if not r.has(k, NEGATIONS):
        return False
    for j in range(k, end):
        r.used[j] = True
    return True


TYPO_TABLES: dict[str, Mapping[str, Any] | frozenset[str]] = {
    "rooms": ROOMS_WORDS,
    "deal": DEAL_WORDS,
    "property": PROPERTY_WORDS,
    "renovation": RENOVATION_WORDS,
    "studio": STUDIO,
    "balcony": BALCONY,
    "building": BUILDING_NOUNS,
    "metro": METRO_CUES,
    "district": DISTRICT_CUES,
    "floor": FLOOR_WORDS,
    "area": AREA_CUES,
    "heating": HEATING_WORDS,
    "heating_noun": HEATING_NOUNS,
    "bathroom": BATHROOM_WORDS,
    "bathroom_noun": BATHROOM_NOUNS,
    "parking": PARKING_NOUNS,
    "kitchen": KITCHEN,
    "year": YEAR_WORDS,
    "built": BUILT,
    "age": AGE_OLDER | AGE_YOUNGER,
    "minute": MINUTES,
    # The parser's other words: never "corrected" into a table word one letter away (English
    # has no dictionary here, so "at least" was reported as a typo of "lease").
    "min": MIN_WORDS,
    "max": MAX_WORDS,
    "between": BETWEEN,
    "negation": NEGATIONS,
    "number": NUMBER_WORDS,
    "ordinal": ORDINALS,
    "last": LAST,
    "room_unit": ROOM_UNITS,
    "area_unit": AREA_UNITS | METRES | SQUARE | frozenset(PLOT_UNITS),
    "multiplier": THOUSANDS | MILLIONS,
    "month": MONTH_NOUNS,
    "near": NEAR | OUTSKIRTS,  # "flat near Arsenalna" was "corrected" to a year
}


def typo_vocabulary(gazetteer: Gazetteer) -> Vocabulary:
    """The words a typo may be corrected to, built once per gazetteer."""
    found: Vocabulary | None = gazetteer.__dict__.get("_typo_vocabulary")
    if found is None:
        places: dict[str, set[str]] = {}
        for key, entries in gazetteer._index.items():
            places.setdefault(key, set()).update(f"{p.column}:{p.value}" for p in entries)
        found = Vocabulary.build(TYPO_TABLES, places)
        gazetteer.__dict__["_typo_vocabulary"] = found
    return found
