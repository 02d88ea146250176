"""A request's searched words as the Ukrainian the listings are written in: "дом с участком"
left "участком" to search for, and full text with the Ukrainian dictionary matched no listing
(a listing says "ділянка"); "apartment with a pool" left "pool". The search looks for the
words as given or as these (foreign.json's glossary of listings' words); what was read so is
shown to the caller."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .morphology import LONGEST_WORD, UKRAINIAN_ONLY, analyzer, lemmas, normal

_DATA: dict[str, Any] = json.loads(Path(__file__).with_name("foreign.json").read_text("utf-8"))
RUSSIAN = {normal(word): value for word, value in _DATA["ru"].items()}
RUSSIAN_PHRASES = {normal(words): value for words, value in _DATA["ru_phrases"].items()}
RUSSIAN_DROPPED = frozenset(normal(word) for word in _DATA["ru_drop"])
ENGLISH = {normal(word): value for word, value in _DATA["en"].items()}
ENGLISH_PHRASES = {normal(words): value for words, value in _DATA["en_phrases"].items()}
ENGLISH_DROPPED = frozenset(normal(word) for word in _DATA["drop"])
LONGEST_PHRASE = max(len(words.split()) for words in [*RUSSIAN_PHRASES, *ENGLISH_PHRASES])

# The case a Russian preposition governs, and so the case of the words after it: "с
# гардеробной" is "з гардеробною", not the genitive the first reading gives ("гардеробної")
# (Ukrainian's too: a request may say "з гардеробной")
PREPOSITION_CASES = {
    **dict.fromkeys(["с", "со", "з", "із", "зі", "под", "під", "над", "за", "перед"], "ablt"),
    **dict.fromkeys(["в", "во", "на", "о", "об", "при"], "loct"),
    **dict.fromkeys(["у", "из", "от", "від", "для", "без", "до", "возле", "около", "біля"], "gent"),
    **dict.fromkeys(["после", "після"], "gent"),
    **dict.fromkeys(["к", "ко", "по"], "datv"),
}
# pymorphy3's Russian cases that Ukrainian has under another name
_CASES = {"gen2": "gent", "acc2": "accs", "loc2": "loct"}
_ADJECTIVES = frozenset({"ADJF", "PRTF"})


def in_ukrainian(
    words: Sequence[str],
    places: Mapping[str, tuple[str, bool]] | None = None,
    before: Sequence[str] | None = None,
) -> tuple[str | None, dict[str, str]]:
    """`words` with their Russian and English ones as Ukrainian, and {words given: Ukrainian}
    for each so read; (None, {}) when none was, "" when no word is left to search for
    ("nice", "хорошая"). `places`: the words that name a city or a neighbourhood, {words:
    (its name as the listings write it, whether they spell it otherwise: respelled)};
    `before`: the request's word before each (a preposition read with something, or left
    out of the text: "з" in "квартира з гардеробной")."""
    out: list[str] = []
    read: dict[str, str] = {}
    changed = False
    case: str | None = None  # the case a preposition before governs
    i = 0
    while i < len(words):
        n, value = _phrase_at(words, i, places or {})
        if n:
            given = " ".join(words[i : i + n])
            if value is None or normal(value) == normal(given):  # "під Львовом" is both
                out.append(given)
            else:
                out.append(value)
                read[given] = value
                changed = True
            i += n
            continue
        word = words[i]
        if before is not None and normal(before[i]) in PREPOSITION_CASES:
            case = PREPOSITION_CASES[normal(before[i])]
        # the case governed, or an adjective's noun's after it ("новой мебелью")
        following = _russian(words[i + 1]) if i + 1 < len(words) else ()
        agreed = following[0][1].tag.case if following and "NOUN" in following[0][1].tag else None
        value = _word(word, case or agreed)
        case = _case_after(word, case)
        if value is None or normal(value) == normal(word):  # "котом" is Ukrainian too
            out.append(word)
        elif len(value) == 1:  # "с" as "з", "в" as "у": only beside another word read
            out.append(value)
        else:
            changed = True
            if value:
                out.append(value)
                read[word] = value
        i += 1
    text = " ".join(out)
    if not changed:
        return None, {}
    return (text if text.strip() else ""), read


def _phrase_at(
    words: Sequence[str], i: int, places: Mapping[str, tuple[str, bool]]
) -> tuple[int, str | None]:
    """How many words from i name a place or are a phrase of the glossary (0: none), and
    their Ukrainian (None: they are Ukrainian already)."""
    longest = max([LONGEST_PHRASE, *(len(named.split()) for named in places)])
    for n in range(min(longest, len(words) - i), 0, -1):
        given = words[i : i + n]
        named = " ".join(given)
        if named in places:
            return n, _place(given, *places[named])
        value = _phrase(given) if n > 1 else None
        if value is not None:
            return n, value
    return 0, None


def _latin(word: str) -> bool:
    return word.isascii() and any(ch.isalpha() for ch in word)


def _phrase(words: Sequence[str]) -> str | None:
    if all(_latin(word) for word in words):
        return ENGLISH_PHRASES.get(" ".join(normal(word) for word in words))
    if any(_latin(word) or not _russian(word) for word in words):
        return None
    firsts = [_russian(word)[0][0] for word in words]
    return RUSSIAN_PHRASES.get(" ".join(firsts))


def _case_after(word: str, case: str | None) -> str | None:
    """The case the words after `word` are in: a preposition's, or `case` while each word
    can be in it ("с новой гардеробной")."""
    low = normal(word)
    if low in PREPOSITION_CASES:
        return PREPOSITION_CASES[low]
    if case is not None and any(parse.tag.case == case for _, parse in _russian(word)):
        return case
    return None


@functools.lru_cache(maxsize=10_000)
def _word(word: str, case: str | None = None) -> str | None:
    """The word in Ukrainian (in `case`, where it can be: the case a preposition before it
    governs); "" for a word with nothing to search for; None for a word left as it is
    (Ukrainian, or none the glossary has)."""
    if _latin(word):
        low = normal(word)
        if low in ENGLISH_DROPPED:
            return ""
        for singular in _singulars(low):
            if singular in ENGLISH:
                return str(ENGLISH[singular])
        return None
    # the first reading's lemma and part of speech, in the case governed first ("под" is
    # no hearth's instrumental; sorted is stable)
    readings = list(_russian(word))
    first = (readings[0][0], readings[0][1].tag.POS) if readings else None
    readings.sort(
        key=lambda reading: (
            (reading[0], reading[1].tag.POS) != first,
            reading[1].tag.case != case,
        )
    )
    for lemma, parse in readings:
        if lemma in RUSSIAN_DROPPED:
            return ""
        value = RUSSIAN.get(lemma)
        if value is not None and value != lemma and not _form_of(normal(word), str(value)):
            return _inflected(str(value), parse)
    if readings and not _ukrainian_readings(normal(word)):
        # a Russian form of a word Ukrainian has too ("школой", "кухней", "в центре"): the
        # Ukrainian dictionary stems no such form
        ukrainian = analyzer("uk")
        for lemma, parse in readings:
            # Ukrainian's word, not a form of another ("кривая" is a form of "кривий")
            if ukrainian.word_is_known(lemma) and any(
                normal(p.normal_form) == lemma for p in ukrainian.parse(lemma)
            ):
                return _inflected(lemma, parse)
    return None


def _place(given: Sequence[str], name: str, respelled: bool) -> str | None:
    """A place's name said in Russian or English as the listings write it, in the case said:
    "под Киевом" is "під Києвом", "возле Белой Церкви" "біля Білої Церкви", "near Kyiv"
    "Київ", "на Троещине" "Троєщина" (no case to tell: its name, which full text stems as
    its other forms); None when it is said as the listings write it (not `respelled`)."""
    words = name.split()
    if all(_latin(word) for word in given):
        return name
    if not respelled:  # "під Києвом", "на Теремках" ("Теремки" is of "теремок" too)
        return None
    # the gazetteer knows the words for the place: a guessed reading's case is its case
    readings = [_russian(word, guessed=True) for word in given]
    if not readings[-1]:
        return name
    # the case of the place's last word, a place's reading first ("Николаева" is a surname's
    # nominative too); its other words ("Белой": instrumental or genitive) agree with it
    _, last = next((r for r in readings[-1] if "Geox" in r[1].tag.grammemes), readings[-1][0])
    out = []
    for value, found in zip(words, readings, strict=True):
        agreeing = [parse for _, parse in found if parse.tag.case == last.tag.case]
        parse = last if found is readings[-1] else next(iter(agreeing), None)
        form = value if parse is None else _inflected(value, parse)
        out.append(form[:1].upper() + form[1:] if value[:1].isupper() else form)
    return " ".join(out)


def respelled(word: str, name_word: str) -> bool:
    """Whether a word that names a place is no Ukrainian form of its name's word: Russian
    "Киевом", "Троещине", "Виноградаре" (Ukrainian knows it only as a vocative), not
    "Києвом", "Теремках" (of "теремок", as "Теремки" is), "Львовом"."""
    if UKRAINIAN_ONLY.intersection(normal(word)):
        return False  # "Звіринці", "Борщагівці": no Russian word has і, ї, є or ґ
    names = lemmas(name_word)
    readings = _ukrainian_readings(normal(word))
    if readings:
        return not any(normal(parse.normal_form) in names for parse in readings)
    ukrainian = analyzer("uk")
    if ukrainian.word_is_known(normal(word)):
        return True  # known only as a vocative or a Russianism
    ukrainian_parses = ukrainian.parse(normal(word))
    # neither dictionary's: by pymorphy3's guesses, but a vocative's
    guessed = {normal(p.normal_form) for p in ukrainian_parses if "voct" not in p.tag.grammemes}
    return not (guessed | {normal(word)}) & names


def _form_of(word: str, lemma: str) -> bool:
    """Whether the word is a Ukrainian form of `lemma` already ("Тепла" of "теплий", which
    is Russian "тепла" of "тёплый" too), not one _ukrainian_readings leaves out ("дворе")."""
    return any(normal(parse.normal_form) == normal(lemma) for parse in _ukrainian_readings(word))


def _ukrainian_readings(word: str) -> list[Any]:
    """pymorphy3's Ukrainian readings of a word it knows, but a Russianism it marks (Dist:
    "участком") or a vocative ("центре", "районе", which full text's Ukrainian dictionary
    does not stem)."""
    ukrainian = analyzer("uk")
    if not ukrainian.word_is_known(word):
        return []
    return [p for p in ukrainian.parse(word) if not {"Dist", "voct"} & p.tag.grammemes]


def _singulars(word: str) -> list[str]:
    """The word, and what it is without a plural ending ("ceilings", "properties")."""
    found = [word]
    if len(word) > 3 and word.endswith("ies"):
        found.append(word[:-3] + "y")
    if len(word) > 3 and word.endswith("es"):
        found.append(word[:-2])
    if len(word) > 3 and word.endswith("s"):
        found.append(word[:-1])
    return found


@functools.lru_cache(maxsize=10_000)
def _russian(word: str, *, guessed: bool = False) -> tuple[tuple[str, Any], ...]:
    """(lemma, analysis) of each Russian reading of a word that may be Russian (no letter only
    Ukrainian has); guessed readings of a word the dictionary lacks count only when their
    lemma is in the glossary ("сталинке"), or when `guessed`."""
    low = normal(word)
    if UKRAINIAN_ONLY.intersection(low) or len(low) > LONGEST_WORD or not low.isalpha():
        return ()
    ru = analyzer("ru")
    known = ru.word_is_known(low)
    found = []
    for parse in ru.parse(low)[:6]:  # an adjective's six cases ("светлой": four)
        lemma = normal(parse.normal_form)
        if known or guessed or lemma in RUSSIAN or lemma in RUSSIAN_DROPPED:
            found.append((lemma, parse))
    return tuple(found)


def _inflected(lemma: str, parse: Any) -> str:
    """The Ukrainian lemma in the case and number of the Russian word (and its gender, for an
    adjective): "участком" is "ділянкою"; the lemma when it has no such form."""
    if " " in lemma:
        return lemma
    tag = parse.tag
    case = _CASES.get(str(tag.case), tag.case)
    wanted: list[set[str]] = []
    if case is not None:
        # Ukrainian's singular forms carry no number, its adjectives' carry the gender
        full = {case, "plur"} if tag.number == "plur" else {case}
        if tag.POS in _ADJECTIVES and tag.number != "plur" and tag.gender:
            full.add(tag.gender)
        wanted = [full, {case}]
    readings = [r for r in analyzer("uk").parse(lemma) if normal(r.normal_form) == normal(lemma)]
    for grammemes in wanted:  # the closest form any reading of the lemma has
        for reading in readings:
            form = reading.inflect(grammemes)
            if form is not None:
                return str(form.word)
    return lemma
