"""A request in Ukrainian, Russian or English read into filters plus the remaining text.

Deterministic and offline: the request is cut into tokens (tokens.py), every word is
compared by its lemmas (pymorphy3), and one rule per family takes the tokens it understands,
in an order that settles the ambiguous ones (an area or a floor before rooms: "на 2 поверсі"
is a floor; "500 метрів до метро" is a distance, not an area). What no rule took is the text.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import vocabulary
from ..models import BuildingType, DealType, RenovationStatus
from .morphology import grammemes, lemmas, normal, plural_only
from .places import PLACE_COLUMNS, Gazetteer, Place, token_keys
from .tokens import Token, tokenize
from .typos import Vocabulary, cyrillic_lookalikes

_DATA: dict[str, Any] = json.loads(Path(__file__).with_name("words.json").read_text("utf-8"))


def _set(name: str) -> frozenset[str]:
    return frozenset(normal(word) for word in _DATA[name])


def _map(name: str) -> dict[str, Any]:
    return {normal(word): value for word, value in _DATA[name].items()}


ROOMS_WORDS, NUMBER_WORDS, ORDINALS = _map("rooms_words"), _map("number_words"), _map("ordinals")
CARDINALS, HUNDREDS = _map("cardinals"), _set("hundreds")
DEAL_WORDS, PROPERTY_WORDS = _map("deal_words"), _map("property_words")
RENOVATION_WORDS = _map("renovation_words")
STUDIO, ROOM_UNITS, LAST = _set("studio_words"), _set("room_units"), _set("last_words")
# Rooms words that name a flat too ("однушка", "квартира-студія").
FLAT_WORDS = _set("flat_words")
FLOOR_WORDS, SUFFIXES = _set("floor_words"), _set("ordinal_suffixes")
MIN_WORDS, MAX_WORDS, NEGATIONS = _set("min_words"), _set("max_words"), _set("negations")
# After a value and "і", "or", "и": "і вище", "or more" make it a lower bound, "or less" an upper.
OR_MORE, OR_LESS = _set("or_more_words"), _set("or_less_words")
BETWEEN = _set("between_words")
FILLERS, THOUSANDS, MILLIONS = _set("filler_words"), _set("thousands"), _set("millions")
AREA_UNITS, METRES, SQUARE = _set("area_units"), _set("area_metres"), _set("area_square")
AREA_CUES, DISTANCE_AFTER = _set("area_cues"), _set("distance_after")
SHORT_NOUNS, SHORT_PREPS = _set("short_rent_nouns"), _set("short_rent_preps")
# "на місяць", "/міс", "per month": a price by the month is a long rent
MONTH_NOUNS, MONTH_PREPS = _set("long_rent_nouns"), _set("long_rent_preps")
BUILDING_NOUNS, RENOVATION_NOUNS = _set("building_nouns"), _set("renovation_nouns")
WITHOUT, WITH, BALCONY = _set("without"), _set("with"), _set("balcony_words")
METRO_CUES, DISTRICT_CUES, NEAR = _set("metro_cues"), _set("district_cues"), _set("near_words")
PLACE_PREPS, VIEW_WORDS, STOP_WORDS = _set("place_preps"), _set("view_words"), _set("stop_words")
KITCHEN, LIVING = _set("kitchen_words"), _set("living_area_words")
# A plot's area: "10 соток" (ares, 100 m² each), "1 га"; land's total_area is in m².
PLOT_UNITS = _map("plot_units")
PLOT_METRES = {"sotka": 100, "hectare": 10_000}
PLOT_LABELS = {"sotka": "сот.", "hectare": "га"}
YEAR_WORDS, BUILT, PUBLISHED = _set("year_words"), _set("built_words"), _set("publish_words")
# Before a building year: "з 2010" (that year on), "після 2010" (later), "до 2000" (earlier).
YEAR_FROM, YEAR_AFTER, YEAR_BEFORE = _set("year_from"), _set("year_after"), _set("year_before")
MINUTES, KILOMETRES = _set("minute_words"), _set("kilometre_words")
WALK, TRANSPORT = _set("walk_words"), _set("transport_words")
DASHES = frozenset({"-", "–", "—"})
# The word between a range's ends after "від" ("від 30 до 40", "from 2 to 3").
RANGE_TO = frozenset({"до", "to", "по"})
# The word between a range's ends after "між" ("між 50 і 70", "between 2 and 3").
AND_WORDS = frozenset({"і", "й", "та", "и", "and"})
# Between two room counts either of which will do ("2 або 3 кімнати", "дво- чи трикімнатна").
ALTERNATIVES = frozenset({"або", "чи", "і", "й", "та", "или", "и", "or", "and", "/"})
CONJUNCTIONS = frozenset({"і", "й", "та", "и", "and", "or", "або", "чи", "или", "либо", ","})
FLOOR_PREPS = frozenset({"на", "on", "the"})
# Before a city, words that put the place outside it: "під Києвом", "недалеко від Львова".
OUTSKIRTS = frozenset(
    {"під", "под", "near", "біля", "поблизу", "около", "возле", "недалеко", "неподалік", "коло"}
)
FROM = frozenset({"від", "от", "from"})
# "не на першому, а на останньому": what follows is said instead, not negated.
CONTRASTS = frozenset({"а", "але", "but", "но"})
# After "not ... first", the next floor is negated too: "not on the first or last floor".
NEGATION_OR = frozenset({"or", "nor", "або", "чи", "ни", "или"})
STOREYS_PREPS = frozenset({"з", "із", "зі", "of", "из", "в"})
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
# Types bought more often than let at such prices (a garage for $8 000, a plot for $5 000):
# a price alone says no rent for them, and a bare one is in dollars.
BOUGHT_AT_RENT_PRICES = frozenset({"land", "garage"})
# A bare area ("квартира 50 м²") is taken as this share either side; a bare kitchen ("кухня
# 12 м²") as this share under it and up: nobody turns down a bigger kitchen.
BARE_AREA_SPREAD = 0.1
# The building years a request may say: a number outside them is no year.
YEARS = (1800, 2100)
# A walk said in minutes, in metres: 80 a minute (4.8 km/h).
WALK_METRES_PER_MINUTE = 80


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


@dataclass
class _Quantity:
    start: int
    end: int
    low: float
    high: float | None
    currency: str | None
    mult: str | None
    unit: str | None  # "area" (m²), "metres" (a length or an area), None


def _cardinal(token: Token) -> float | None:
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


def _numerals(tokens: list[Token]) -> list[Token]:
    """Numbers said in words read as numbers ("до ста тисяч доларів", "двісті п'ятдесят
    тисяч", "one hundred fifty thousand"): a run of numeral words becomes one number token
    that keeps its words (the text searched for is unchanged). A lone word under ten stays
    a word ("дві кімнати" is read by the rooms rule) unless a multiplier follows it."""
    found: list[Token] = []
    i = 0
    while i < len(tokens):
        j, total = i, 0.0
        while j < len(tokens) and (value := _cardinal(tokens[j])) is not None:
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
class _Request:
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

    def __post_init__(self) -> None:
        self.tokens = _numerals(tokenize(self.text))
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

    def value(self, i: int, table: Mapping[str, Any]) -> Any:
        for key in sorted(self.keys[i], key=lambda k: (k != self.low(i), k)):
            if key in table:
                return table[key]
        return None

    def take(self, start: int, end: int, label: str, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            self.filters.setdefault(name, value)
        for i in range(start, end):
            self.used[i] = True
        span = self.tokens[start].start, self.tokens[end - 1].end
        self.chips.append(Chip(label, tuple(values), *span))

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
            return "metres", self.skip_dot(j + 1)
        if self.kind(j) == "word" and self.has(j, PLOT_UNITS):
            return str(self.value(j, PLOT_UNITS)), self.skip_dot(j + 1)
        return None, j

    def quantity(self, i: int) -> _Quantity | None:
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
        code, j = self.currency(j) if sign is None else (sign, j)
        unit, j = self.area_unit(j) if code is None else (None, j)
        return _Quantity(i, j, low, high, code, mult, unit)

    def range_unit(self, quantity: _Quantity, op: str | None) -> str | None:
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
        self, quantity: _Quantity, op: str | None
    ) -> tuple[str | None, float | None, float | None, int]:
        """(op, low, high, end) of a quantity: its bounds, or, with no operator before a
        single value, the open bound said after it ("60 м² і більше", "$500 or more"), and
        the token past those words."""
        low, high = self.bounds(quantity, op)
        if op is None and quantity.high is None:
            said, past = self.beyond(quantity.end)
            if said is not None:
                low, high = (quantity.low, None) if said == "min" else (None, quantity.low)
                return said, low, high, past
        return op, low, high, quantity.end

    def bounds(self, quantity: _Quantity, op: str | None) -> tuple[float | None, float | None]:
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


def _number(value: float) -> str:
    whole = round(value)
    text = f"{whole:,}".replace(",", "\u00a0") if abs(value - whole) < 1e-9 else f"{value:g}"
    return text


def _range_label(low: float | None, high: float | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{_number(low)}–{_number(high)} {unit}"
    if low is not None:
        return f"від {_number(low)} {unit}"
    return f"до {_number(high or 0)} {unit}"


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


# --- the rules, in the order they run ---------------------------------------------------------


def _metro(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if not r.has(i, METRO_CUES):
            continue
        start = i - 1 if r.has(i - 1, NEAR) else i
        j = r.skip_dot(i + 1)
        if not r.free(j) or r.kind(j) != "word":
            continue
        found = r.gazetteer.match(r.keys, j, ["metro_station"])
        if found:
            place, size = found[0]
            r.take(start, j + size, f"метро {place.value}", {"metro_station": place.value})


def _area(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "num":
            continue
        quantity = r.quantity(i)
        if quantity is None:
            continue
        op, start = r.operator(i)
        quantity.unit = r.range_unit(quantity, op)
        if quantity.unit is None or _rooms_and_flat(r, quantity):
            continue
        # the range's far end first: "від 40 до 60 метрів" is no distance "40 [метрів] до"
        op, low, high, end = r.limits(quantity, op)
        # "площею 60 метрів"; "квартира 40-50 метрів" too: metres right after a flat are its
        # area ("квартира біля парку 300 метрів" is a distance)
        before = range(max(0, start - 3), start)
        if any(r.has(k, LIVING) for k in before):
            continue  # "житлова площа 40 м²": no filter says it; not the total area either
        kitchen = next((k for k in reversed(before) if r.has(k, KITCHEN)), None)
        cue = kitchen is not None or any(r.has(k, AREA_CUES) for k in before)
        cue = cue or r.has(start - 1, PROPERTY_WORDS)
        if quantity.unit == "metres" and (not cue or r.has(quantity.end, DISTANCE_AFTER)):
            continue  # "500 метрів до метро": a distance
        if r.has(quantity.end, DISTANCE_AFTER) and r.low(quantity.end + 1) == "метро":
            continue
        if kitchen is not None:
            bare = op is None and quantity.high is None
            _kitchen(r, kitchen, end, low, high, bare=bare)
            continue
        if quantity.unit in PLOT_METRES:
            _plot(r, quantity, start, end, low, high, bare=op is None and quantity.high is None)
            continue
        if op is None and quantity.high is None:
            # rounded: 45 * 1.1 is 49.50000000000001, which the caller would see in `filters`
            low = round(quantity.low * (1 - BARE_AREA_SPREAD), 2)
            high = round(quantity.low * (1 + BARE_AREA_SPREAD), 2)
            label = f"≈ {_number(quantity.low)} м²"
        else:
            label = _range_label(low, high, "м²")
        if start > 0 and r.has(start - 1, AREA_CUES) and r.low(start - 1).startswith("площ"):
            start -= 1
        values = {"min_area": low, "max_area": high}
        r.take(start, end, label, {k: v for k, v in values.items() if v is not None})


def _kitchen(
    r: _Request, at: int, end: int, low: float | None, high: float | None, *, bare: bool
) -> None:
    """The kitchen's area from its word at `at` to `end`: (low, high), or for a bare value
    (`high`) from BARE_AREA_SPREAD under it up ("з кухнею 12 м²")."""
    if bare:
        low, high = round(float(high or 0) * (1 - BARE_AREA_SPREAD), 2), None
    start = at - 1 if r.has(at - 1, WITH) else at
    values = {"min_kitchen_area": low, "max_kitchen_area": high}
    label = "кухня " + _range_label(low, high, "м²")
    r.take(start, end, label, {k: v for k, v in values.items() if v is not None})


def _plot(
    r: _Request,
    quantity: _Quantity,
    start: int,
    end: int,
    low: float | None,
    high: float | None,
    *,
    bare: bool,
) -> None:
    """A plot's area in ares or hectares ("ділянка 10 соток", "від 6 до 12 соток", "1 га") as
    the total area in m², which is a plot's for land. With another property said ("будинок з
    ділянкою 10 соток") it is not that property's area, and no filter says a plot's."""
    if any(
        r.has(k, PROPERTY_WORDS) and r.value(k, PROPERTY_WORDS) != "land"
        for k in range(len(r.tokens))
    ):
        return
    unit = str(quantity.unit)
    scale, said = PLOT_METRES[unit], PLOT_LABELS[unit]
    if bare:
        label = f"≈ {_number(quantity.low)} {said}"
        low = round(quantity.low * scale * (1 - BARE_AREA_SPREAD), 2)
        high = round(quantity.low * scale * (1 + BARE_AREA_SPREAD), 2)
    else:
        label = _range_label(low, high, said)
        low, high = (None if v is None else v * scale for v in (low, high))
    values = {"min_area": low, "max_area": high}
    r.take(start, end, label, {k: v for k, v in values.items() if v is not None})


def _year_at(r: _Request, i: int) -> int | None:
    """The year written at token i ("2015"), or None."""
    if r.kind(i) != "num" or not r.tokens[i].text.isdigit() or len(r.tokens[i].text) != 4:
        return None
    year = int(r.tokens[i].text)
    return year if YEARS[0] <= year <= YEARS[1] else None


def _year_bounds(r: _Request, i: int, year: int) -> tuple[int, int | None, int | None]:
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


def _year(r: _Request) -> None:
    """The building's year: "будинок 2015 року", "після 2010 року побудови", "built after
    2015", "1990-х років", "з 2000 по 2010 рік". A number is a year only with its word
    ("року", "р.", "year") or a word for building ("побудови", "built"), and not after a word
    for the listing ("оголошення з 2024 року": when it was published)."""
    for i in range(len(r.tokens)):
        year = _year_at(r, i)
        if year is None or {"min_building_year", "max_building_year"} & r.filters.keys():
            continue
        start, low, high = _year_bounds(r, i, year)
        end = i + 1
        if r.low(end) in DASHES and r.low(end + 1) in {"х", "ті", "ых", "их", "ые"}:
            low, high, end = year, year + 9, end + 2  # a decade: "1990-х"
        elif r.low(end) in DASHES | RANGE_TO | AND_WORDS and (other := _year_at(r, end + 1)):
            low, high, end = min(year, other), max(year, other), end + 2
        said = r.has(end, YEAR_WORDS)
        end = r.skip_dot(end + 1) if said else end
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
        if built is None and r.low(start - 1) in {"на", "за", "for"}:
            continue  # "оренда на 2026 рік", "ціни за 2024 рік": a year of the deal, the data
        start = built if built is not None else start
        if r.has(start - 1, BUILDING_NOUNS) and r.low(start - 2) in {"у", "в", "a"}:
            start -= 2  # "у будинку після 2015 року" (a house said alone is the property's)
        r.take(start, end, _year_label(low, high), _year_filters(low, high))


def _year_label(low: int | None, high: int | None) -> str:
    if low == high:
        return f"рік побудови {low}"
    if low is not None and high is not None:
        return f"рік побудови {low}–{high}"
    return f"рік побудови від {low}" if low is not None else f"рік побудови до {high}"


def _year_filters(low: int | None, high: int | None) -> dict[str, int]:
    values = {"min_building_year": low, "max_building_year": high}
    return {k: v for k, v in values.items() if v is not None}


def _metro_distance(r: _Request) -> None:
    """How far from the metro, at most: "500 м до метро", "до метро 1 км", "у 5 хвилинах
    пішки від метро", "10 min walk to the metro" (a walk's minutes at WALK_METRES_PER_MINUTE).
    Minutes by bus or car say no distance; "біля метро" says none either."""
    for i in range(len(r.tokens)):
        if r.kind(i) != "num" or "max_metro_distance" in r.filters:
            continue
        op, start = r.operator(i)
        if op not in {None, "max"}:
            continue
        metres, end, minutes = _distance(r, i)
        if metres is None or r.has(end, TRANSPORT):
            continue
        end = end + 1 if r.has(end, WALK) else end
        metro = end + 2 if r.low(end + 1) == "the" else end + 1
        if r.has(end, DISTANCE_AFTER) and _metro_word(r, metro):
            end = metro + 1 if r.free(metro) else end + 1  # "500 м до метро"
        elif start >= 2 and _metro_word(r, start - 1) and r.has(start - 2, DISTANCE_AFTER | NEAR):
            start -= 2  # "до метро 500 м"
        elif not _after_station(r, start):
            continue
        if start > 0 and r.low(start - 1) in {"у", "в", "within"} and r.free(start - 1):
            start -= 1  # "у 5 хвилинах від метро"
        said = f"{_number(minutes)} хв пішки, " if minutes is not None else ""
        label = f"до метро ≤ {said}{_number(metres)} м"
        r.take(start, end, label, {"max_metro_distance": round(metres)})


def _distance(r: _Request, i: int) -> tuple[float | None, int, float | None]:
    """(metres, the token past the unit, minutes said or None) of the number at token i."""
    value, j = r.tokens[i].number, i + 1
    if r.has(j, MINUTES):
        minutes = value
        return minutes * WALK_METRES_PER_MINUTE, r.skip_dot(j + 1), minutes
    if r.has(j, KILOMETRES):
        return value * 1000, r.skip_dot(j + 1), None
    if r.kind(j) == "word" and r.has(j, METRES):
        return value, r.skip_dot(j + 1), None
    return None, j, None


def _after_station(r: _Request, i: int) -> bool:
    """Whether token i follows a metro station read ("біля метро Лук'янівська 300 метрів")."""
    return i > 0 and any(
        "metro_station" in chip.filters and chip.end == r.tokens[i - 1].end for chip in r.chips
    )


def _metro_word(r: _Request, i: int) -> bool:
    """Whether token i is "метро" (taken or not: a station named after it is the metro rule's)."""
    return 0 <= i < len(r.tokens) and r.low(i) in {"метро", "metro", "subway", "underground"}


def _rooms_k(quantity: _Quantity) -> bool:
    """Whether a number with "к" may be a room count ("2к"), not thousands ("20к")."""
    return quantity.mult in {"к", "k"} and quantity.low < 10_000


def _rooms_and_flat(r: _Request, quantity: _Quantity) -> bool:
    """ "1к кв.": one room, a flat ("кв." for "квартира"), not 1 000 square metres ("3k sqm",
    "2к кв.м" are areas)."""
    units = [r.low(k) for k in range(quantity.start, quantity.end)]
    return _rooms_k(quantity) and (units[-1] == "кв" or units[-2:] == ["кв", "."])


def _price(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) not in {"num", "cur"} or "min_price" in r.filters or "max_price" in r.filters:
            continue
        quantity = r.quantity(i)
        if quantity is None or quantity.unit is not None:
            continue
        op, start = r.operator(i)
        op, low, high, end = r.limits(quantity, op)  # "від 30 до 40 тисяч доларів": unit last
        if quantity.currency is None:
            if _rooms_k(quantity) and op is None:
                continue  # "2к": rooms
            if quantity.mult is None and not (op and _bare_price(r, quantity)):
                continue
        values: dict[str, Any] = {}
        if low is not None:
            values["min_price"] = low
        if high is not None:
            values["max_price"] = high
        values["currency"] = quantity.currency
        label = _range_label(low, high, quantity.currency or "{currency}")
        r.take(start, end, label, values)


# Words after a number that make it no price: floors, rooms and other units ("до 20 хвилин",
# "до 5 років").
NOT_PRICE_AFTER = FLOOR_WORDS | ROOM_UNITS | _set("not_price_units")


def _bare_price(r: _Request, quantity: _Quantity) -> bool:
    """Whether a number after "до", "under", "від" with no currency is a price: from 1 000,
    or from 10 in a request for a rent ("rent under 800", "подобово до 900") when no other
    unit follows it ("оренда до 20 хвилин від центру")."""
    if quantity.low >= 1000:
        return True
    following = quantity.end
    if quantity.low < 10 or r.has(following, NOT_PRICE_AFTER):
        return False
    return any(_rent_word(r, i) for i in range(len(r.tokens)))


def _rent_word(r: _Request, i: int) -> bool:
    if r.kind(i) != "word":
        return False
    if r.has(i, MONTH_NOUNS) or r.has(i, SHORT_NOUNS):
        return True  # "per month", "на добу"
    return r.has(i, DEAL_WORDS) and r.value(i, DEAL_WORDS) in {"rent_long", "rent_short"}


def _floor_chain(r: _Request, s: int) -> tuple[int, list[tuple[bool, int | str]], bool]:
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


def _floor(r: _Request) -> None:
    # The end of words no floor is read from: "від 2 до 3 поверхів" (storeys), "на першому
    # або останньому" (either floor, which no filters can say).
    unread_until = -1
    for i in range(len(r.tokens)):
        if i <= unread_until:
            continue
        if r.kind(i) == "num":
            j, high = i + 1, None
            op, start = r.operator(i)
            if r.joined(op, j) and r.kind(j + 1) == "num":
                high, j = int(r.tokens[j + 1].number), j + 2  # "від 2 до 5 поверху"
            if r.low(j) == "/" and r.kind(j + 1) == "num":
                j += 2
            plus = high is None and r.low(j) == "+"  # "на 3+ поверсі"
            j += 1 if plus else 0
            if r.low(j) in DASHES and r.kind(j + 1) == "word" and r.low(j + 1) in SUFFIXES:
                j += 2
            elif r.kind(j) == "word" and r.low(j) in SUFFIXES:
                j += 1
            if not r.has(j, FLOOR_WORDS) or r.low(i - 1) in STOREYS_PREPS:
                if _floor_of_storeys(r, i):  # "квартира 5/9": the 5th floor of 9
                    r.take(i, i + 3, *_one_floor(None, int(r.tokens[i].number)))
                continue
            number = int(r.tokens[i].number)
            on = r.low(start - 1) in FLOOR_PREPS
            case = grammemes(r.low(j))
            storeys = plural_only(r.low(j)) or ("gent" in case and not case & {"nomn", "loct"})
            if storeys and not (on or op):
                continue  # "2 поверхи", "2 этажа": how many storeys, not which floor
            if high is not None and plural_only(r.low(j)):
                unread_until = j  # "від 2 до 3 поверхів": storeys too ("до 5 поверху": a floor)
                continue
            op = "min" if plus else op
            if on:
                start -= 1
            end = r.skip_dot(j + 1)
            said_beyond, past = r.beyond(end)
            if said_beyond is not None and high is None and op is None:
                op, end = said_beyond, past  # "на 5 поверсі і вище", "5th floor or higher"
            if high is not None:
                low, high = sorted((number, high))
                r.take(start, end, f"{low}–{high} поверх", {"min_floor": low, "max_floor": high})
            else:
                r.take(start, end, *_one_floor(op, number))
        elif _floor_then_number(r, i):
            number, end = int(r.tokens[i + 1].number), i + 2
            if r.low(end) in STOREYS_PREPS | {"/", "из", "of"} and r.kind(end + 1) == "num":
                end += 2  # "поверх 3 з 9", "этаж 5/9": the floor of so many
            said_beyond, past = r.beyond(end)  # "floor 5 or lower"
            r.take(i, past, *_one_floor(said_beyond, number))
        elif r.has(i, frozenset(ORDINALS) | LAST | NEGATIONS | FLOOR_PREPS):
            end, items, said = _floor_chain(r, i)
            begin = i
            if not said and r.has(i - 1, FLOOR_WORDS) and r.kind(i - 2) != "num":
                said, begin = True, i - 1  # "поверх не перший і не останній", not "2 поверхи"
            values: dict[str, Any] = {}
            labels = []
            for negated, item in items:
                if item == "last" and negated:
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
            if said_beyond is not None and set(values) == {"floor"}:
                label, values = _one_floor(said_beyond, values["floor"])  # "на третьому … і вище"
                labels, end = [label], past
            if said and values:
                r.take(begin, end, ", ".join(labels), values)


def _floor_of_storeys(r: _Request, i: int) -> bool:
    """Whether token i starts a floor written with its storeys and no floor word, "5/9", as
    listings write it: right after a flat or its rooms ("квартира 5/9", "2к 5/9") in a building
    of 3 storeys or more, or before the building's material ("5/9 цегла"); never before a unit
    ("2/3 кімнати")."""
    if r.low(i + 1) != "/" or r.kind(i + 2) != "num" or not r.free(i + 2):
        return False
    floor, storeys = r.tokens[i].number, r.tokens[i + 2].number
    if not (floor.is_integer() and storeys.is_integer() and 1 <= floor <= storeys <= 60):
        return False
    after = i + 3
    if r.kind(after) in {"area", "cur", "uo"} or r.has(after, ROOM_UNITS | AREA_UNITS | METRES):
        return False
    material = r.kind(after) == "word" and any(
        vocabulary.canonical("building_type", key) for key in r.keys[after]
    )
    flat = r.has(i - 1, PROPERTY_WORDS) or r.has(i - 1, ROOMS_WORDS) or r.has(i - 1, ROOM_UNITS)
    # "1/2" after a flat is as often a half ("квартира 1/2 ціни") as a floor of two storeys
    return material or (flat and storeys >= 3)


def _one_floor(op: str | None, number: int) -> tuple[str, dict[str, int]]:
    """The label and filter of one floor number after `op` ('min', 'max' or none)."""
    if op == "min":
        return f"від {number} поверху", {"min_floor": number}
    if op == "max":
        return f"до {number} поверху", {"max_floor": number}
    return f"{number} поверх", {"floor": number}


def _floor_then_number(r: _Request, i: int) -> bool:
    """A floor word, one floor (not "поверхів"), and then its number: "поверх 3", "floor 5"."""
    if r.kind(i) != "word" or not r.has(i, FLOOR_WORDS) or plural_only(r.low(i)):
        return False
    if r.low(i).isascii() and r.low(i).endswith("s"):
        return False  # "floors 3": how many
    return r.kind(i + 1) == "num" and r.tokens[i + 1].number == int(r.tokens[i + 1].number)


def _count(r: _Request, i: int) -> int | None:
    """The whole number token i says, in digits or in words; None if it says none."""
    if r.kind(i) == "num":
        return int(r.tokens[i].number)
    if r.kind(i) == "word" and r.has(i, NUMBER_WORDS):
        return int(r.value(i, NUMBER_WORDS))
    return None


def _rooms_prefix_before(r: _Request, i: int) -> tuple[int, int] | None:
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


def _hyphened_rooms(r: _Request, i: int) -> tuple[int, int] | None:
    """The two room counts one hyphened word names ("дво-трикімнатна": 2, 3)."""
    first, _, second = r.low(i).partition("-")
    words = token_keys(second)
    if not first or not any(word in ROOMS_WORDS for word in words):
        return None
    other = _prefixed_rooms(first, words)
    count = next(int(ROOMS_WORDS[word]) for word in words if word in ROOMS_WORDS)
    return None if other is None else (other, count)


def _take_rooms_range(r: _Request, start: int, end: int, one: int, other: int) -> None:
    """Tokens start..end read as the room counts from the smaller of one, other to the
    larger ("2–3 кімнати")."""
    low, high = sorted((one, other))
    r.take(start, end, f"{low}–{_rooms_label(high)}", {"min_rooms": low, "max_rooms": high})


def _rooms(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if "rooms_count" in r.filters or "min_rooms" in r.filters:
            return
        count = _count(r, i)
        if count is not None:
            j, high = i + 1, None
            op, start = r.operator(i)
            second = _count(r, j + 1)
            if (r.low(j) in DASHES or r.low(j) in ALTERNATIVES) and second:
                high, j = second, j + 2  # "2-3", "2 або 3 кімнати", "two or three"
            elif r.joined(op, j) and second:
                high, j = second, j + 2  # "від 2 до 3 кімнат", "от двух до трёх комнат"
            if high is None and r.low(j) == "+":
                op, j = "min", j + 1  # "3+ кімнати", "4+ rooms"
            elif high is None and op is None:
                op, j = r.beyond(j)  # "2 or more rooms"
            while r.low(j) in DASHES or r.low(j) in {"х", "x", "ти", "ох"}:
                j += 1
            if not (r.kind(j) == "word" and r.has(j, ROOM_UNITS)) or not 0 < count <= 20:
                continue
            end = r.skip_dot(j + 1)
            if high is None and op is None:
                op, end = r.beyond(end)  # "3 кімнати і більше"
            if high is not None:
                _take_rooms_range(r, start, end, count, high)
            elif op == "min":
                r.take(start, end, _rooms_label(count, after="від"), {"min_rooms": count})
            elif op == "max":
                r.take(start, end, _rooms_label(count, after="до"), {"max_rooms": count})
            else:
                r.take(start, end, _rooms_label(count), {"rooms_count": count})
        elif r.kind(i) == "word" and r.has(i, ROOMS_WORDS) and not _dropped_if_negated(r, i, i + 1):
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
            _flat_said(r, i)
        elif r.kind(i) == "word" and "-" in r.low(i) and (pair := _hyphened_rooms(r, i)):
            _take_rooms_range(r, i, i + 1, *pair)
        elif r.kind(i) == "word" and r.has(i, STUDIO):
            # "студія" stays in the text too: the layout is in the words, not a filter.
            r.filters.setdefault("rooms_count", 1)
            span = r.tokens[i].start, r.tokens[i].end
            r.chips.append(Chip("студія (1 кімната)", ("rooms_count",), *span))
            _flat_said(r, i)


def _flat_said(r: _Request, i: int) -> None:
    """A rooms word at i that names a flat too ("однушка", "квартира-студія"): a flat, unless
    another word has said the type."""
    if not r.keys[i] & FLAT_WORDS or "apartment" not in r.property_types:
        return
    if "property_type" not in r.filters:
        r.filters["property_type"] = "apartment"
        span = r.tokens[i].start, r.tokens[i].end
        r.chips.append(Chip(r.property_types["apartment"], ("property_type",), *span))


def _deal(r: _Request) -> None:
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
        elif r.has(i, DEAL_WORDS):
            deal = r.value(i, DEAL_WORDS)
        if deal is None or _dropped_if_negated(r, min(start, i), end):
            continue
        if r.filters.get("deal_type") == "rent_long" and deal == "rent_short":
            r.filters.pop("deal_type")
            r.chips = [chip for chip in r.chips if chip.filters != ("deal_type",)]
        if "deal_type" not in r.filters:
            r.take(start, end, str(DealType(deal).label), {"deal_type": deal})
        else:  # said already ("оренда ... на місяць"): the words are not searched for
            for k in range(start, end):
                r.used[k] = True


# Between "не" and what it negates: "не в панельному", "не на Оболоні", "not in Kyiv".
NEGATED_THROUGH = frozenset(
    {"у", "в", "во", "з", "із", "зі", "с", "со", "на", "in", "on", "at", "a", "an", "with", "for"}
)


def _dropped_if_negated(r: _Request, i: int, end: int) -> bool:
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


def _renovation(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or "renovation_status" in r.filters:
            continue
        value, end = None, i + 1
        if r.has(i, WITHOUT) and r.has(i + 1, RENOVATION_NOUNS):
            value, end = "none", i + 2
        elif r.has(i + 1, RENOVATION_NOUNS) and r.has(i, RENOVATION_WORDS):
            value, end = r.value(i, RENOVATION_WORDS), i + 2
        elif r.has(i, RENOVATION_WORDS) and "ремонт" in r.low(i):
            value = r.value(i, RENOVATION_WORDS)
        elif any("ремонт" in key for key in r.keys[i]):
            for key in r.keys[i]:
                value = value or vocabulary.canonical("renovation_status", key)
        if value is None or _dropped_if_negated(r, i, end):
            continue
        start = i - 1 if r.has(i - 1, WITH) else i
        label = str(RenovationStatus(value).label)
        r.take(start, end, label, {"renovation_status": value})


def _balcony(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) == "word" and r.has(i, BALCONY) and "has_balcony" not in r.filters:
            if r.has(i - 1, WITHOUT):
                r.take(i - 1, i + 1, "без балкона", {"has_balcony": False})
            elif _dropped_if_negated(r, i, i + 1):
                continue  # "не з балконом": said against, not for, a balcony
            else:
                start = i - 1 if r.has(i - 1, WITH) else i
                r.take(start, i + 1, "з балконом", {"has_balcony": True})


def _building(r: _Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or "building_type" in r.filters:
            continue
        value = None
        for key in sorted(r.keys[i]):
            found = vocabulary.canonical("building_type", key)
            if found and key not in {"wood", "дерево"}:
                value = found
        end = i + 2 if r.has(i + 1, BUILDING_NOUNS) else i + 1
        if value is None or _dropped_if_negated(r, i, end):
            continue
        start = i - 1 if r.low(i - 1) in {"у", "в", "з", "із", "in"} and r.free(i - 1) else i
        label = f"{BuildingType(value).label} (будинок)"
        r.take(start, end, label, {"building_type": value})


def _property(r: _Request) -> None:
    found: list[tuple[int, str]] = []
    for i in range(len(r.tokens)):
        if r.kind(i) == "word" and r.has(i, PROPERTY_WORDS):
            slug = str(r.value(i, PROPERTY_WORDS))
            if slug not in r.property_types:
                continue
            # English words have no case to tell the building a flat is in ("houses" too)
            as_object = r.low(i).isascii() or grammemes(r.low(i)) & {"nomn", "accs"}
            if slug == "house" and not as_object:
                continue  # "у будинку", "будинку з 9 поверхів": the building a flat is in
            if _dropped_if_negated(r, i, i + 1):
                continue  # "не будинок"
            found.append((i, slug))
    if not found:
        return
    slugs = [slug for _, slug in found]
    chosen = "apartment" if "apartment" in slugs else slugs[0]
    for i, slug in found:
        if slug == chosen:
            r.take(i, i + 1, r.property_types[chosen], {"property_type": chosen})
            return


def property_type_named(value: str, property_types: Mapping[str, str]) -> str | None:
    """The slug of the type present that `value` names: its slug or name in any case, or a
    word for it in any form ("квартири", "Flat", "будинок" -> apartment, apartment, house);
    None when it names none of them."""
    wanted = normal(" ".join(value.split()))
    for slug, name in property_types.items():
        if wanted in {normal(slug), normal(name)}:
            return slug
    words = wanted.split()
    if len(words) != 1:
        return None
    found = {PROPERTY_WORDS[form] for form in lemmas(words[0]) if form in PROPERTY_WORDS}
    if len(found) != 1:
        return None
    (slug,) = found
    return str(slug) if slug in property_types else None


def _place_allowed(r: _Request, place: Place, i: int, cue: bool) -> bool:
    if any(r.has(k, VIEW_WORDS) for k in (i - 1, i - 2, i - 3)):
        return False  # "з видом на Дніпро": the river
    if place.column == "city":
        # "будинок під Києвом", "near Kyiv": outside the city, whose suburbs are other places
        return not (r.has(i - 1, OUTSKIRTS) or (r.has(i - 2, OUTSKIRTS) and r.low(i - 1) in FROM))
    if place.column == "metro_station":
        return len(place.words) > 1 and r.tokens[i].text[:1].isupper()
    if cue:
        return True
    if "ADJF" in place.grammemes:
        genders = {"masc", "femn", "neut", "plur"}
        return bool(grammemes(r.low(i)) & place.grammemes & genders)
    if place.common_noun:
        # "в центрі Ужгорода": a common word is a district only with its city named.
        cities = r.gazetteer.cities_of.get((place.column, place.value), set())
        named = {
            found.value
            for k in range(len(r.tokens))
            if k != i and r.kind(k) == "word"
            for found, _ in r.gazetteer.match(r.keys, k, ["city"])
        }
        return bool(cities & named)
    return True


def _places(r: _Request) -> None:
    i = 0
    while i < len(r.tokens):
        if r.kind(i) != "word":
            i += 1
            continue
        columns = [c for c in ("city", "district", "metro_station") if c not in r.filters]
        taken = False
        for place, size in r.gazetteer.match(r.keys, i, columns):
            cue = r.has(i + size, DISTRICT_CUES) or r.has(i - 1, DISTRICT_CUES)
            free = all(r.free(k) for k in range(i, i + size))
            if not free or not _place_allowed(r, place, i, cue):
                continue
            start = i - 1 if r.has(i - 1, PLACE_PREPS) else i
            end = i + size + (1 if r.has(i + size, DISTRICT_CUES) else 0)
            if not _dropped_if_negated(r, i, end):  # "не в Києві", "але не на Сихові"
                label = place.value + (" (район)" if place.column == "district" else "")
                r.take(start, end, label, {place.column: place.value})
            i, taken = end, True
            break
        if not taken:
            i += 1
    _consistent_places(r)


def _consistent_places(r: _Request) -> None:
    """A district or station named with a city must lie in it ("центр Києва" is no district
    of another city); otherwise it is given back to the text."""
    city = r.filters.get("city")
    if city is None:
        return
    for column in ("district", "metro_station"):
        value = r.filters.get(column)
        cities = r.gazetteer.cities_of.get((column, value or ""), set())
        if value is not None and cities and city not in cities:
            r.filters.pop(column)
            for chip in [c for c in r.chips if c.filters == (column,)]:
                r.chips.remove(chip)
                for k, token in enumerate(r.tokens):
                    if chip.start <= token.start < chip.end:
                        r.used[k] = False


RULES = (
    _metro,
    _year,
    _metro_distance,
    _area,
    _price,
    _floor,
    _rooms,
    _deal,
    _renovation,
    _balcony,
    _building,
)


def _remaining(r: _Request) -> str:
    words = []
    for i, token in enumerate(r.tokens):
        if r.used[i]:
            continue
        if token.kind == "sym" and token.low not in {"-", "«", "»", '"', "'"}:
            continue
        # A preposition or operator right before something understood went with it.
        if token.low in STOP_WORDS and (i + 1 < len(r.tokens) and r.used[i + 1]):
            continue
        words.append(token.text)
    while words and normal(words[0]) in STOP_WORDS:
        words.pop(0)
    while words and normal(words[-1]) in STOP_WORDS | {"-"}:
        words.pop()
    return " ".join(words)


def _amount(r: _Request) -> float:
    """The price read: its upper bound, else its lower one."""
    return float(r.filters.get("max_price") or r.filters.get("min_price") or 0)


def _likely_currency(r: _Request, deal: str | None) -> str:
    """The currency of a price said without one (RENT_IN_DOLLARS_BELOW)."""
    amount = _amount(r)
    if deal in RENT_IN_DOLLARS_BELOW:
        return "USD" if amount < RENT_IN_DOLLARS_BELOW[deal] else "UAH"
    if r.filters.get("property_type") in BOUGHT_AT_RENT_PRICES:
        return "USD"
    month = RENT_IN_DOLLARS_BELOW["rent_long"]
    return "UAH" if deal is None and month <= amount < SALE_PRICE_FLOOR["USD"] else "USD"


def _monthly_rent_price(r: _Request, currency_said: bool) -> bool:
    """A price that says a month's rent: taken in hryvnias with no currency said ("квартира
    до 8 тис"), or an upper one from MONTHLY_RENT_FROM with it ("до 8 тис грн")."""
    currency = r.filters["currency"]
    if r.filters.get("property_type") in BOUGHT_AT_RENT_PRICES:
        return False
    if not currency_said:
        return currency == "UAH"
    top = r.filters.get("max_price")
    return top is not None and currency in MONTHLY_RENT_FROM and top >= MONTHLY_RENT_FROM[currency]


def _deal_by_price(r: _Request, currency_said: bool) -> None:
    """A price no rent reaches ("до 60 тисяч доларів") means a purchase; one under it that
    only a month's rent reaches (_monthly_rent_price), a long rent."""
    if "deal_type" in r.filters:
        return
    amount = _amount(r)
    floor = SALE_PRICE_FLOOR.get(r.filters["currency"])
    if floor is not None and amount >= floor:
        deal, label = "sale", "продаж (за ціною)"
    elif _monthly_rent_price(r, currency_said):
        deal, label = "rent_long", "довгострокова оренда (за ціною)"
    else:
        return
    price = next(chip for chip in r.chips if "currency" in chip.filters)
    r.filters["deal_type"] = deal
    r.chips.append(Chip(label, ("deal_type",), price.start, price.end))


def interpret(
    text: str,
    *,
    gazetteer: Gazetteer,
    property_types: Mapping[str, str],
    currencies: Mapping[str, str],
) -> Interpretation:
    """`text` read into filters (names of listings.filters.Filters) and what is left of it.

    `property_types`: slug -> name of the types present; `currencies`: the currency aliases
    (vocabulary.currency_aliases). Nothing is read from the database here.
    """
    r = _Request(text, gazetteer, property_types, currencies)
    for rule in RULES:
        rule(r)
    _property(r)
    _places(r)
    if "currency" in r.filters:
        deal, said = r.filters.get("deal_type"), r.filters["currency"] is not None
        code = r.filters["currency"] or _likely_currency(r, deal)
        r.filters["currency"] = code
        r.chips = [
            dataclasses.replace(chip, label=chip.label.replace("{currency}", code))
            for chip in r.chips
        ]
        _deal_by_price(r, said)
    chips = tuple(sorted(r.chips, key=lambda chip: chip.start))
    # Only the corrections that something understood took (a corrected word left in the text
    # was not read as the correction).
    corrected = {
        given: value
        for given, value in r.corrected.items()
        if any(r.used[i] for i, token in enumerate(r.tokens) if token.text == given)
    }
    return Interpretation(
        filters=dict(r.filters), text=_remaining(r), chips=chips, corrected=corrected
    )


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
    "kitchen": KITCHEN,
    "year": YEAR_WORDS,
    "built": BUILT,
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
