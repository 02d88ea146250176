"""The place names present in the database, findable in any case, inflection and spelling.

A Gazetteer is built from the live values of city, district and metro_station (with the
city each district and station lies in). Every word of a value is known by its inflected
forms, its lemmas, a fold that ignores Ukrainian/Russian spelling differences, its official
Latin transliteration, and the other spellings in places.json.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .morphology import fold, grammemes, lemmas, normal, romanised

PLACE_COLUMNS = ("city", "district", "metro_station")
_DATA = json.loads((Path(__file__).with_name("places.json")).read_text(encoding="utf-8"))
ALIASES: dict[str, dict[str, list[str]]] = {column: _DATA[column] for column in PLACE_COLUMNS}
# city -> district -> a neighbourhood of it -> its other spellings
NEIGHBOURHOODS: dict[str, dict[str, dict[str, list[str]]]] = _DATA["neighbourhoods"]


def words_of(text: str) -> list[str]:
    from .tokens import tokenize

    return [token.low for token in tokenize(text) if token.kind == "word"]


def token_keys(word: str) -> frozenset[str]:
    """What a word of a request is compared by."""
    found = lemmas(word)
    return found | {fold(x) for x in found} | {normal(word)}


def _value_word_keys(word: str) -> frozenset[str]:
    # Lemmas, not every inflected form: a request's word is compared by its own lemmas, and
    # generating each value's lexeme costs ~50 ms (seconds for a city's districts).
    forms = lemmas(word)
    return forms | {fold(x) for x in forms} | {romanised(word), fold(romanised(word))}


@dataclass(frozen=True)
class Place:
    column: str
    value: str
    words: tuple[frozenset[str], ...]
    # The value's own first word's grammemes (its gender and part of speech).
    grammemes: frozenset[str]
    common_noun: bool
    # A neighbourhood of the district (value): its name, searched for in the text as well
    neighbourhood: str | None = None


@dataclass
class Gazetteer:
    """Place values present, indexed by every key of their first word."""

    values: dict[str, dict[str, int]] = field(default_factory=dict)
    cities_of: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    _index: dict[str, list[Place]] = field(default_factory=dict)
    # (column, fold) -> the values spelled so, the most listed first (spellings)
    _spelled: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        values: Mapping[str, Mapping[str, int]],
        located: Iterable[tuple[str, str, str]] = (),
    ) -> Gazetteer:
        """`values`: column -> value -> rows; `located`: (column, value, city) triples."""
        gazetteer = cls(values={column: dict(values.get(column, {})) for column in PLACE_COLUMNS})
        for column, value, city in located:
            gazetteer.cities_of.setdefault((column, value), set()).add(city)
        for column in PLACE_COLUMNS:
            present = gazetteer.values[column]
            for value in present:
                spellings = [value, *ALIASES.get(column, {}).get(value, [])]
                for spelling in spellings:
                    gazetteer._add(column, value, spelling, alias=spelling != value)
            spelled: dict[str, list[str]] = {}
            for value in sorted(present, key=lambda other: -present[other]):
                spelled.setdefault(fold(value), []).append(value)
            gazetteer._spelled.update(
                {(column, key): tuple(same) for key, same in spelled.items() if len(same) > 1}
            )
        for city, districts in NEIGHBOURHOODS.items():
            for district, named in districts.items():
                if district not in gazetteer.values["district"]:
                    continue
                if not gazetteer.lies_in("district", district, city):
                    continue  # Одеса's Київський, not Харків's
                for name, others in named.items():
                    for spelling in [name, *others]:
                        gazetteer._add(
                            "district", district, spelling, alias=spelling != name, part=name
                        )
        return gazetteer

    def _add(
        self,
        column: str,
        value: str,
        spelling: str,
        *,
        alias: bool = False,
        part: str | None = None,
    ) -> None:
        words = words_of(spelling)
        if not words or len(words) > 6:
            return
        keys = tuple(_value_word_keys(word) for word in words)
        marks = frozenset(grammemes(words[0]))
        common = (
            not alias
            and part is None
            and len(words) == 1
            and "NOUN" in marks
            and not marks & {"Name", "Surn", "Patr", "Geox", "Fixd"}
            and spelling[:1].isupper()
        )
        place = Place(column, value, keys, marks, common, part)
        for key in keys[0]:
            self._index.setdefault(key, []).append(place)
        # A Latin spelling is also compared as a whole word ("Ivano-Frankivsk").
        self._index.setdefault(romanised(spelling), []).append(place)

    def match(
        self, words: Sequence[frozenset[str]], start: int, columns: Sequence[str]
    ) -> list[tuple[Place, int]]:
        """Places of `columns` whose words are the request's words from `start`, longest
        first, as (place, how many words)."""
        found: dict[tuple[str, str], tuple[Place, int]] = {}
        candidates: list[Place] = []
        for key in words[start]:
            candidates.extend(self._index.get(key, ()))
        for place in candidates:
            if place.column not in columns:
                continue
            size = len(place.words)
            if start + size > len(words):
                continue
            if all(words[start + n] & place.words[n] for n in range(size)):
                best = found.get((place.column, place.value))
                if best is None or best[1] < size:
                    found[(place.column, place.value)] = (place, size)
        return sorted(found.values(), key=lambda item: (-item[1], -self.rows(item[0])))

    def rows(self, place: Place) -> int:
        return self.values.get(place.column, {}).get(place.value, 0)

    def resolve(self, column: str, given: str, city: str | None = None) -> str | None:
        """The value present that `given` names (any case, inflection or spelling); with
        `city`, one that lies in it where values of the same words lie in several ("Палац
        спорту" in Київ, "Палац Спорту" in Харків)."""
        present = self.values.get(column, {})
        if given in present and self.lies_in(column, given, city):
            return given
        words = [token_keys(word) for word in words_of(given)]
        named = [given] if given in present else []
        if words:
            found = self.match(words, 0, [column])
            named += [place.value for place, size in found if size == len(words)]
        for value in named:
            if self.lies_in(column, value, city):
                return value
        return named[0] if named else None

    def spellings(self, column: str, value: str) -> tuple[str, ...]:
        """Every value present of the column spelled as `value` but for case, apostrophes and
        і/и-like letters ("Палац спорту", "Палац Спорту"), the most listed first."""
        return self._spelled.get((column, fold(value)), (value,))

    def lies_in(self, column: str, value: str, city: str | None) -> bool:
        """Whether a district or station lies in `city` (True with no city, or where the
        table does not say)."""
        cities = self.cities_of.get((column, value))
        return city is None or not cities or city in cities

    def nearest(self, column: str, given: str, count: int = 3) -> list[str]:
        """Values present spelled most like `given` (for "did you mean ...?")."""
        present = list(self.values.get(column, {}))
        by_fold: dict[str, str] = {}
        for value in present:
            by_fold.setdefault(fold(value), value)
            by_fold.setdefault(romanised(value), value)
        close = difflib.get_close_matches(
            fold(given) if not given.isascii() else given.casefold(), list(by_fold), count, 0.6
        )
        chosen: list[str] = []
        for key in close:
            if by_fold[key] not in chosen:
                chosen.append(by_fold[key])
        return chosen
