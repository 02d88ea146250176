"""Words to compare: lemmas from pymorphy3's Ukrainian and Russian dictionaries, inflected
forms of place names, a spelling-insensitive fold, and the official Latin transliteration."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

import pymorphy3

from ..apostrophes import AS_ASCII

_lock = threading.Lock()
_analyzers: dict[str, Any] = {}

UKRAINIAN_ONLY = frozenset("іїєґ'")
RUSSIAN_ONLY = frozenset("ыэъ")


def analyzer(lang: str) -> Any:
    """The pymorphy3 analyzer of `lang` ('uk' or 'ru'), loaded once (≈ 0.1 s each)."""
    found = _analyzers.get(lang)
    if found is None:
        with _lock:
            found = _analyzers.get(lang)
            if found is None:
                found = _analyzers[lang] = pymorphy3.MorphAnalyzer(lang=lang)
    return found


def normal(word: str) -> str:
    return word.casefold().translate(AS_ASCII).replace("ё", "е")


# The longest word analysed: pymorphy3 guesses an unknown word by recursing on ever shorter
# prefixes (one frame per letter), so a run of thousands of letters — in a query or in a
# foreign database's city column — would exhaust the stack. No Ukrainian word is this long.
LONGEST_WORD = 60


@functools.lru_cache(maxsize=100_000)
def parses(word: str) -> tuple[Any, ...]:
    """Up to four Ukrainian and three Russian analyses of a (normalised) word; none for a
    word longer than LONGEST_WORD."""
    if len(word) > LONGEST_WORD or not any(ch.isalpha() for ch in word) or word.isascii():
        return ()
    found = tuple(analyzer("uk").parse(word)[:4])
    if not UKRAINIAN_ONLY.intersection(word):  # no Russian word has і, ї, є, ґ or '
        found += tuple(analyzer("ru").parse(word)[:3])
    return found


@functools.lru_cache(maxsize=100_000)
def lemmas(word: str) -> frozenset[str]:
    """The word itself and every dictionary form pymorphy3 offers for it; for a Latin word
    of more than three letters ending in s, also the word without it ("rooms", "flats",
    "houses": English has no analyser here, and a plural read as a typo of the singular
    told the caller it was corrected)."""
    word = normal(word)
    found = {word, *(normal(p.normal_form) for p in parses(word))}
    if word.isascii() and len(word) > 3 and word.endswith("s"):
        found.add(word[:-1])
    return frozenset(found)


@functools.lru_cache(maxsize=100_000)
def grammemes(word: str) -> frozenset[str]:
    """Grammemes of every analysis of the word (case, gender, part of speech)."""
    word = normal(word)
    found: set[str] = set()
    analyses = parses(word)
    if RUSSIAN_ONLY.intersection(word) and len(word) <= LONGEST_WORD:
        # the Ukrainian analyses of "этажа" are guesses
        analyses = tuple(analyzer("ru").parse(word)[:3])
    for parse in analyses:
        found |= set(parse.tag.grammemes)
    return frozenset(found)


@functools.lru_cache(maxsize=100_000)
def plural_only(word: str) -> bool:
    """Every analysis of the word is plural ("поверхи", "поверхів")."""
    found = parses(normal(word))
    return bool(found) and all("plur" in parse.tag.grammemes for parse in found)


def inflections(word: str) -> frozenset[str]:
    """Every form of the lexeme `word` is the dictionary form of (Ukrainian, then Russian)."""
    word = normal(word)
    found = {word}
    if len(word) > LONGEST_WORD:
        return frozenset(found)
    for lang in ("uk", "ru"):
        for parse in analyzer(lang).parse(word)[:3]:
            if normal(parse.normal_form) == word or normal(parse.word) == word:
                found |= {normal(form.word) for form in parse.lexeme}
                break
    return frozenset(found)


# Ukrainian and Russian letters that differ in spelling but stand for one sound or are
# written either way by users (і/и, е/є, ь): "Печерский" and "Печерський" fold alike.
_FOLD = str.maketrans(
    {"і": "и", "ї": "и", "ы": "и", "й": "и", "є": "е", "э": "е", "ё": "е", "ґ": "г"}
)


def fold(word: str) -> str:
    return re.sub(r"[ьъ'\-\s]", "", normal(word).translate(_FOLD))


# The official Ukrainian-Latin transliteration (Cabinet of Ministers resolution 55, 2010):
# the first letter of a word has its own form for є ї й ю я.
_LATIN = {
    "а": "a", "б": "b", "в": "v", "г": "h", "ґ": "g", "д": "d", "е": "e", "є": "ie",
    "ж": "zh", "з": "z", "и": "y", "і": "i", "ї": "i", "й": "i", "к": "k", "л": "l",
    "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
    "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ю": "iu",
    "я": "ia", "'": "",
}  # fmt: skip
_LATIN_FIRST = {"є": "ye", "ї": "yi", "й": "y", "ю": "yu", "я": "ya"}


def romanised(word: str) -> str:
    word = normal(word)
    out = []
    for index, ch in enumerate(word):
        if index == 0 and ch in _LATIN_FIRST:
            out.append(_LATIN_FIRST[ch])
        elif ch == "г" and index > 0 and word[index - 1] == "з":
            out.append("gh")  # зг is zgh, so it is not read as жг
        else:
            out.append(_LATIN.get(ch, ch))
    return "".join(out)
