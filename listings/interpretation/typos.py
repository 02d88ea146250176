"""One-letter typos in the words the parser knows: "Кеїв" → Київ, "однокімантна" →
однокімнатна, "Харкв" → Харків; and Latin look-alike letters inside a Cyrillic word
("трикiмнатна" with a Latin i).

A word is corrected only when nothing reads it as it is: it is not in the parser's tables or
the gazetteer, neither pymorphy3 dictionary knows it, and it is no common English word
("pool" is one insertion from Подол's "podol", and "with a pool" was read as Поділ). It
must be at least MIN_LENGTH letters long, and exactly one meaning (one table value or one
place) must lie within one edit (insertion, deletion, substitution or transposition of
neighbours: rapidfuzz's OSA distance) of it; two different meanings at that distance
correct nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from rapidfuzz import process
from rapidfuzz.distance import OSA
from spellchecker import SpellChecker

from .morphology import analyzer, fold, normal

PLACE_COLUMNS = ("city", "district", "metro_station")

# Shorter words have too many neighbours one letter away ("дім", "дом", "дама").
MIN_LENGTH = 4
MAX_EDITS = 1

# Latin letters that look like Cyrillic ones, in a word that is otherwise Cyrillic.
_LOOKALIKES = str.maketrans(
    {
        "a": "а", "c": "с", "e": "е", "i": "і", "o": "о", "p": "р", "x": "х", "y": "у",
        "k": "к", "m": "м", "t": "т", "h": "н", "b": "в", "ï": "ї",
    }
)  # fmt: skip


def _cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def cyrillic_lookalikes(word: str) -> str:
    """`word` with Latin look-alikes made Cyrillic when most of its letters are Cyrillic."""
    letters = [ch for ch in word if ch.isalpha()]
    cyrillic = sum(_cyrillic(ch) for ch in letters)
    if not cyrillic or cyrillic == len(letters) or cyrillic * 2 < len(letters):
        return word
    return word.translate(_LOOKALIKES)


# Dictionary analyses that do not make a word known: a colloquial spelling ("кватира" is
# one of "квартира" to pymorphy3's Ukrainian dictionary) and a person's name ("кеєві", a
# form of the name "Кей"): to a reader, typos of the words the parser knows.
NOT_KNOWING = frozenset({"Infr", "Name", "Surn", "Patr"})


@functools.lru_cache(maxsize=20_000)
def known_word(word: str) -> bool:
    """A dictionary word of Ukrainian or Russian (not a guess of pymorphy3's), other than a
    colloquial spelling or a person's name (NOT_KNOWING)."""
    for lang in ("uk", "ru"):
        if not analyzer(lang).word_is_known(word):
            continue
        for parse in analyzer(lang).parse(word):
            if parse.is_known and not NOT_KNOWING & set(parse.tag.grammemes):
                return True
    return False


# pyspellchecker's English word frequencies: a word at least this common is an English word
# to a reader ("pool" 2.5e-05, "terrace" 1.7e-06), not a typo; rarer entries are
# mostly names and misspellings the web wrote ("lviv" 3.0e-08, "kharkov" 3.0e-08).
ENGLISH_MIN_FREQUENCY = 1e-6


@functools.cache
def _english() -> frozenset[str]:
    """The common English words (ENGLISH_MIN_FREQUENCY), 14 500 of them; the whole list is
    not kept (38 MB a process)."""
    frequencies = SpellChecker(language="en").word_frequency
    total = frequencies.total_words
    return frozenset(
        word for word, count in frequencies.items() if count / total >= ENGLISH_MIN_FREQUENCY
    )


def english_word(word: str) -> bool:
    """A common English word (ENGLISH_MIN_FREQUENCY), in Latin letters."""
    return word.isascii() and word.lower() in _english()


class Vocabulary:
    """The words the parser can read (table words and place keys), each with its meanings."""

    def __init__(self, meanings: Mapping[str, set[str]]) -> None:
        self.meanings = {key: frozenset(found) for key, found in meanings.items()}
        self.words = [key for key in self.meanings if len(key) >= MIN_LENGTH - MAX_EDITS]

    @classmethod
    def build(
        cls,
        tables: Mapping[str, Mapping[str, object] | Iterable[str]],
        places: Mapping[str, Iterable[str]],
    ) -> Vocabulary:
        """`tables`: name -> its words (a mapping: word -> what it means); `places`: key ->
        the "column:value" of each place it names."""
        meanings: dict[str, set[str]] = {}
        for name, words in tables.items():
            for word in words:
                meaning = f"{name}:{words[word]}" if isinstance(words, Mapping) else name
                meanings.setdefault(normal(word), set()).add(meaning)
        for key, found in places.items():
            meanings.setdefault(key, set()).update(found)
        return cls(meanings)

    def __contains__(self, word: str) -> bool:
        return word in self.meanings

    def correction(
        self, word: str, *, capitalised: bool = False, lemmas: frozenset[str] = frozenset()
    ) -> tuple[str, str] | None:
        """(the vocabulary word, what it means) for the one meaning within MAX_EDITS of
        `word` (or, for a word no dictionary knows, of one of its guessed lemmas), or None.

        A dictionary word is left alone ("квартирна" is no typo of "квартира"), except a
        capitalised one that is no place name in the dictionary: "Кеїв" is a form of
        the surname "Кей" to pymorphy3, and a typo of "Київ" to a reader.
        """
        word = normal(word)
        if len(word) < MIN_LENGTH or word in self or fold(word) in self:
            return None
        if english_word(word):
            return None  # "pool", "Pool" alike: English capitalises more than names
        known = known_word(word)
        if known and not (capitalised and not proper_name(word)):
            return None
        hits = self._hits(word)
        if not hits and not known:
            # An inflected typo ("Кеїві") is two letters from the value, one from its lemma.
            for lemma in sorted(lemmas - {word}):
                if len(lemma) >= MIN_LENGTH and not hits:
                    hits = self._hits(lemma)
        if not hits:
            return None
        meanings = set().union(*(self.meanings[hit] for hit in hits))
        if len(meanings) != 1:
            return None  # two different things one letter away: no guess
        meaning = next(iter(meanings))
        if known and meaning.partition(":")[0] not in PLACE_COLUMNS:
            return None  # "Квартирна" at the start of a sentence is still no "квартира"
        return min(hits, key=lambda hit: (len(hit) != len(word), hit)), meaning

    def _hits(self, word: str) -> list[str]:
        """The vocabulary words closest to `word` within MAX_EDITS (then by its fold)."""
        for probe in (word, fold(word)):
            hits = process.extract(
                probe, self.words, scorer=OSA.distance, score_cutoff=MAX_EDITS, limit=8
            )
            if hits:
                best = min(hit[1] for hit in hits)
                return [hit[0] for hit in hits if hit[1] == best]
        return []


PROPER = frozenset({"Geox"})


@functools.lru_cache(maxsize=20_000)
def proper_name(word: str) -> bool:
    """A dictionary analysis of `word` is a place name (a real "Бучач")."""
    for lang in ("uk", "ru"):
        for parse in analyzer(lang).parse(word)[:4]:
            if parse.is_known and PROPER & set(parse.tag.grammemes):
                return True
    return False
