"""A request in Ukrainian, Russian or English read into filters plus the remaining text.

Deterministic and offline: the request is cut into tokens (tokens.py), every word is
compared by its lemmas (pymorphy3; request.py holds what the rules share), and one rule per
family takes the tokens it understands, in an order that settles the ambiguous ones (RULES:
a year before a price, "до 1955 року"; a distance before an area, "500 метрів до метро"; an
area or a floor before rooms, "на 2 поверсі"). The families live in their modules (area,
price, deal, storeys, floors, rooms, building, metro, amenities; the word tables in words.py); the
property type and the places, read last, here. What no rule took is the text.
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
from collections.abc import Mapping

from .amenities import read_bathroom, read_heating, read_parking, read_view
from .area import read_area, read_area_parts
from .building import read_age, read_balcony, read_building, read_renovation, read_year
from .deal import deal_by_price, likely_currency, read_deal
from .floors import read_floor
from .foreign import in_ukrainian, respelled
from .metro import read_metro, read_metro_distance
from .morphology import grammemes, lemmas, normal
from .order import read_order
from .places import Gazetteer, Place
from .price import read_price
from .published import read_published
from .request import Chip, Interpretation, Request, dropped_if_negated
from .rooms import read_rooms
from .storeys import read_storeys
from .words import (
    ALTERNATIVES,
    CONJUNCTIONS,
    DISTRICT_CUES,
    FLAT_SHORT,
    FRAMING,
    FROM,
    HEDGES,
    KEPT_PROPERTY_WORDS,
    LABEL_SIGNS,
    LISTING_NOUNS,
    NEAR,
    OUTSKIRTS,
    PLACE_PREPS,
    PRAISE,
    PROPERTY_NOUN_QUALIFIERS,
    PROPERTY_NOUNS,
    PROPERTY_WORDS,
    PUBLISHED,
    ROOM_UNITS,
    ROOMS_WORDS,
    STOP_WORDS,
    VIEW_PREPS,
    VIEW_WORDS,
)

# Stop words before a place ("місто Київ", "район Оболонь") that are nouns where they end a
# request.
PLACE_NOUNS = frozenset({"місто", "місті", "район", "районі"})
# Words that go with what is understood right after them ("для оренди"; "для сім'ї" stays:
# what the flat is for), and words left dangling at the end of the text ("квартира у").
BEFORE_UNDERSTOOD = STOP_WORDS | {"для", "під", "под"}
DANGLING = (STOP_WORDS | {"-"}) - PLACE_NOUNS


def _property(r: Request) -> None:
    found: list[tuple[int, str]] = []
    for i in range(len(r.tokens)):
        if r.kind(i) == "word" and r.has(i, PROPERTY_WORDS):
            slug = str(r.value(i, PROPERTY_WORDS))
            if slug not in r.property_types:
                continue
            # English words have no case to tell the building a flat is in ("houses" too)
            forms = grammemes(r.low(i))
            # "продаж будинків": many houses (the building a flat is in is one)
            as_object = r.low(i).isascii() or forms & {"nomn", "accs"} or {"gent", "plur"} <= forms
            if slug == "house" and (not as_object or _building_it_is_in(r, i, forms)):
                continue  # "у будинку", "будинку з 9 поверхів": the building a flat is in
            inside = r.low(i - 1) in {"в", "у", "in"} and "loct" in forms
            if slug == "apartment" and inside and r.says_property_besides(slug):
                continue  # "кімната в квартирі", "офіс у квартирі": where the property is
            if dropped_if_negated(r, i, i + 1):
                continue  # "не будинок"
            found.append((i, slug))
        elif r.low(i) in FLAT_SHORT and r.free(i) and "apartment" in r.property_types:
            # an area's "кв" ("60 кв м") was taken before; one left right after an area
            # ("10 соток кв") is what remains of its unit, not a flat
            found += [] if r.area_ending(i) else [(i, "apartment")]
    if not found:
        _kind_of_property(r)
        _flat_agreed(r)
        return
    for (i, slug), (k, other) in itertools.pairwise(found):
        if other != slug and k == i + 2 and r.low(i + 1) in ALTERNATIVES:
            return  # "квартира або будинок": no filter says either; both stay text (as either)
    slugs = [slug for _, slug in found]
    chosen = "apartment" if "apartment" in slugs else slugs[0]
    i = next(i for i, slug in found if slug == chosen)
    # "земельна ділянка", "комерційне приміщення": two words for one type
    end = i + 2 if (i + 1, chosen) in found else i + 1
    r.take(i, end, r.property_types[chosen], {"property_type": chosen})
    for k, slug in found:
        if slug != chosen and (k + 1, slug) in found:
            # "будинок з земельною ділянкою": what the house has is searched for as
            # "ділянкою", the word listings use; "земельною" adds nothing a listing must say
            r.used[k] = True


# What makes "у приватному будинку" the house itself, not the building a flat is in.
PRIVATE_HOUSE = frozenset({"приватний", "частный", "private"})


def _building_it_is_in(r: Request, i: int, forms: frozenset[str]) -> bool:
    """Whether the house word at i, in the locative after "у"/"в" with only describing words
    between, is the building the property is in: "студія в новому будинку", "двокімнатна у
    цегляному будинку" (pymorphy3 reads "будинку" as an accusative too, so its case alone
    did not tell). "у приватному будинку" is the house itself."""
    if "loct" not in forms:
        return False
    j = i - 1
    while j >= 0 and (not r.free(j) or "ADJF" in grammemes(r.low(j))):
        if r.free(j) and r.has(j, PRIVATE_HOUSE):
            return False
        j -= 1
    return r.low(j) in {"в", "у"}


def _kind_of_property(r: Request) -> None:
    """ "пентхаус": its type read (a flat), the word kept in the searched text, as "студія"."""
    for i in range(len(r.tokens)):
        slug = str(r.value(i, KEPT_PROPERTY_WORDS)) if r.kind(i) == "word" else ""
        if slug in r.property_types and not dropped_if_negated(r, i, i + 1):
            r.filters["property_type"] = slug
            label = f"{r.property_types[slug]} ({r.tokens[i].text})"
            r.chips.append(Chip(label, ("property_type",), r.tokens[i].start, r.tokens[i].end))
            return


# The rooms words an adjective agrees with a flat in ("двокімнатна", "3-кімнатна").
ROOMS_ADJECTIVES = frozenset(ROOMS_WORDS) | ROOM_UNITS


def _flat_agreed(r: Request) -> None:
    """With no property said, rooms said by a feminine adjective are a flat's: "двокімнатна
    у новому будинку", "3-кімнатна в Києві" (the «квартира» it agrees with is unsaid;
    "двокімнатний будинок" names its house)."""
    if "property_type" in r.filters or "rooms_count" not in r.filters:
        return
    if "apartment" not in r.property_types:
        return
    for i, token in enumerate(r.tokens):
        if token.kind != "word" or not r.used[i] or not r.keys[i] & ROOMS_ADJECTIVES:
            continue
        forms = grammemes(r.low(i))
        if {"ADJF", "femn"} <= forms and not {"masc", "neut", "plur"} & forms:
            r.filters["property_type"] = "apartment"
            label = f"{r.property_types['apartment']} ({token.text})"
            r.chips.append(Chip(label, ("property_type",), token.start, token.end))
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


# How a place read is named on its chip (as read_metro names a station said with "метро").
PLACE_LABELS = {"district": "{} (район)", "metro_station": "метро {}"}


def _near_before(r: Request, i: int) -> int | None:
    """Where a "near" said right before token i starts: "біля", "поруч з", "недалеко від",
    "close to"; None when none is."""
    if r.has(i - 1, NEAR):
        return i - 1
    if r.low(i - 1) in FROM | {"з", "із", "с", "to"} and r.has(i - 2, NEAR):
        return i - 2
    return None


def _place_allowed(r: Request, place: Place, i: int, cue: bool, near: bool) -> bool:
    """Whether `place` matched at token i is read as a place (`cue`: a word for a district
    beside it; `near`: "біля" or the like before it)."""
    if any(r.has(k, VIEW_WORDS) and r.has(k + 1, VIEW_PREPS) for k in (i - 2, i - 3)):
        return False  # "з видом на Дніпро", "view of the Dnipro": the river ("від власника у
        # Києві" is no view: "від" folds to "вид")
    if place.column == "city":
        # "будинок під Києвом", "near Kyiv": outside the city, whose suburbs are other places
        return not (
            r.has(i - 1, OUTSKIRTS) or (r.has(i - 2, OUTSKIRTS) and r.low(i - 1) in FROM | {"of"})
        )
    if place.column == "metro_station":
        # one word alone is often a common word or another place ("Дніпро", "Вокзальна");
        # said capitalised after "біля", it is the station ("біля Арсенальної"), unless it
        # names a city too ("біля Дніпра": the river, or outside the city)
        if not r.tokens[i].text[:1].isupper():
            return False
        if len(place.words) > 1:
            return True
        return near and not r.gazetteer.match(r.keys, i, ["city"])
    if cue:
        return True
    if "ADJF" in place.grammemes:
        genders = {"masc", "femn", "neut", "plur"}
        said = grammemes(r.low(i))
        after = i + len(place.words)
        return bool(said & place.grammemes & genders) and not _describes_noun(r, after, said)
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


def _places(r: Request) -> None:
    i = 0
    while i < len(r.tokens):
        if r.kind(i) != "word":
            i += 1
            continue
        columns = [c for c in ("city", "district", "metro_station") if c not in r.filters]
        taken = False
        near = _near_before(r, i)
        found = r.gazetteer.match(r.keys, i, columns)
        if near is not None:
            # "біля Лівобережної": the station, before the neighbourhood of that name
            found.sort(key=lambda item: item[0].column != "metro_station")
        for place, size in found:
            cue = r.has(i + size, DISTRICT_CUES) or r.has(i - 1, DISTRICT_CUES)
            free = all(r.free(k) for k in range(i, i + size))
            if not free or not _place_allowed(r, place, i, cue, near is not None):
                continue
            start = i - 1 if r.has(i - 1, PLACE_PREPS) else i
            if near is not None and place.column != "city" and all(map(r.free, range(near, i))):
                start = near  # "біля Оболоні": the "near" goes with the place
            end = i + size + (1 if r.has(i + size, DISTRICT_CUES) else 0)
            either = _either_place(r, end, place)
            if either is not None:
                end = either  # "у Києві або Львові": no filter says either; text, as either
            elif not dropped_if_negated(r, i, end):  # "не в Києві", "але не на Сихові"
                label = PLACE_LABELS.get(place.column, "{}").format(place.value)
                if place.neighbourhood is not None:
                    label = f"{place.value} (район: {place.neighbourhood})"
                r.take(start, end, label, {place.column: place.value})
                if place.neighbourhood is not None:
                    # "на Позняках": the district, and the neighbourhood's name searched for
                    # (a third of Дарницький's listings say it)
                    r.used[i : i + size] = [False] * size
                    r.neighbourhoods += [token.text for token in r.tokens[i : i + size]]
            i, taken = end, True
            break
        if not taken:
            i += 1
    _consistent_places(r)


CASES = frozenset({"nomn", "gent", "datv", "accs", "ablt", "loct"})


def _describes_noun(r: Request, k: int, said: frozenset[str]) -> bool:
    """Whether the word at k is a noun, no place, that a district's adjective said before it
    agrees with: "біля Залізничного вокзалу" is the station, not the Залізничний district."""
    if r.kind(k) != "word" or r.gazetteer.match(r.keys, k, ["city", "district"]):
        return False
    following = grammemes(r.low(k))
    return "NOUN" in following and bool(said & following & CASES)


def _either_place(r: Request, end: int, place: Place) -> int | None:
    """The end of another value of the place's column named as an alternative right after it
    ("у Києві або Львові", "Київ чи Львів", "in Kyiv or Lviv"), else None."""
    j = end
    if r.low(j) not in ALTERNATIVES | CONJUNCTIONS or not r.free(j):
        return None
    j += 1
    j += 1 if r.has(j, PLACE_PREPS) else 0
    if r.kind(j) != "word":
        return None  # the request ends, or no word follows: "Дніпро й"
    for other, size in r.gazetteer.match(r.keys, j, [place.column]):
        if other.value != place.value and all(r.free(k) for k in range(j, j + size)):
            return j + size
    return None


def _consistent_places(r: Request) -> None:
    """A district or station named with a city must lie in it ("центр Києва" is no district
    of another city); otherwise it is given back to the text."""
    city = r.filters.get("city")
    if city is None:
        return
    for column in ("district", "metro_station"):
        value = r.filters.get(column)
        if value is None or r.gazetteer.lies_in(column, value, city):
            continue
        # a value of the same words in that city ("Палац спорту" in Київ, the more listed
        # "Палац Спорту" in Харків)
        other = r.gazetteer.resolve(column, value, city)
        if other is not None and r.gazetteer.lies_in(column, other, city):
            r.filters[column] = other
            label = PLACE_LABELS.get(column, "{}").format(other)
            r.chips = [
                dataclasses.replace(c, label=label) if c.filters == (column,) else c
                for c in r.chips
            ]
        else:
            r.filters.pop(column)
            for chip in [c for c in r.chips if c.filters == (column,)]:
                r.chips.remove(chip)
                for k, token in enumerate(r.tokens):
                    if chip.start <= token.start < chip.end:
                        r.used[k] = False


RULES = (
    read_published,
    read_metro,
    read_year,
    read_age,
    read_metro_distance,
    read_heating,
    read_bathroom,
    read_parking,
    read_view,
    read_area_parts,
    read_area,
    read_price,
    read_storeys,
    read_floor,
    read_rooms,
    read_deal,
    read_renovation,
    read_balcony,
    read_building,
)


def _remaining(r: Request) -> list[int]:
    """Where the words of the request nothing read are: the text to search for."""
    kept = []
    for i, token in enumerate(r.tokens):
        if r.used[i]:
            continue
        if token.kind == "sym" and token.low not in {"-", "«", "»", '"', "'"}:
            continue
        if r.keys[i] & (LISTING_NOUNS | PUBLISHED | HEDGES | PROPERTY_NOUNS | PRAISE):
            continue  # "оголошення", "опубліковані", "нерухомість": what every search finds;
            # "бажано": a hedge; "гарна": no listing's word
        qualifier = r.keys[i] & PROPERTY_NOUN_QUALIFIERS and i + 1 < len(r.tokens)
        if qualifier and r.keys[i + 1] & PROPERTY_NOUNS:
            continue  # "житлова нерухомість", "real estate"
        if r.keys[i] & NEAR and i + 1 < len(r.tokens) and not r.used[i + 1]:
            continue  # "возле метро": the place is what a listing says ("метро"), not "возле"
        # A label right before what was understood went with it ("city: Kyiv", "area=80").
        labelled = r.low(i + 1) in LABEL_SIGNS and i + 2 < len(r.tokens) and r.used[i + 2]
        if token.kind == "word" and labelled:
            continue
        # A preposition or operator right before something understood went with it.
        if token.low in BEFORE_UNDERSTOOD and (i + 1 < len(r.tokens) and r.used[i + 1]):
            continue
        kept.append(i)
    # "Шукаю ...", "знайди мені ...", "show me ...": how the request is put, not what it seeks
    while kept and (r.low(kept[0]) in STOP_WORDS or r.keys[kept[0]] & FRAMING):
        kept.pop(0)
    # not a noun that ends what is sought ("з видом на місто", "у спальному районі")
    while kept and r.low(kept[-1]) in DANGLING:
        kept.pop()
    return kept


def _places_named(r: Request, kept: list[int]) -> dict[str, tuple[str, bool]]:
    """The words left to search for that name a city or a neighbourhood, as {words: (its
    name as the listings write it, whether they spell it otherwise)}: "будинок під Києвом"
    is outside the city, so no filter, and "под Киевом", "near Kyiv", "на Троещине" are
    searched as the listings write the place."""
    named: dict[str, tuple[str, bool]] = {}
    for i in kept:
        found = r.gazetteer.match(r.keys, i, ["city", "district"])
        for place, size in [(p, n) for p, n in found if p.column == "city" or p.neighbourhood][:1]:
            name = place.neighbourhood or place.value
            if len(name.split()) != size or not all(k in kept for k in range(i, i + size)):
                continue
            tokens = r.tokens[i : i + size]
            otherwise = any(
                respelled(token.low, word) for token, word in zip(tokens, name.split(), strict=True)
            )
            named[" ".join(token.text for token in tokens)] = (name, otherwise)
    return named


def interpret(
    text: str,
    *,
    gazetteer: Gazetteer,
    property_types: Mapping[str, str],
    currencies: Mapping[str, str],
    this_year: int | None = None,
    orders: bool = False,
    today: datetime.date | None = None,
) -> Interpretation:
    """`text` read into filters (names of listings.filters.Filters) and what is left of it.

    `property_types`: slug -> name of the types present; `currencies`: the currency aliases
    (vocabulary.currency_aliases); `this_year`, what a building's age counts from (today's
    by default); `orders`, whether an order asked for is read ("найдешевші": the search can
    sort) or left in the text; `today`, what "за останній тиждень" counts back from (the
    machine's date by default; the search passes the local date of TIME_ZONE). Nothing is
    read from the database here.
    """
    r = Request(text, gazetteer, property_types, currencies)
    r.today = today or datetime.date.today()
    r.this_year = this_year or r.today.year
    for rule in RULES:
        rule(r)
    if orders:
        read_order(r)
    _property(r)
    _places(r)
    if "currency" in r.filters:
        deal, said = r.filters.get("deal_type"), r.filters["currency"] is not None
        code = r.filters["currency"] or likely_currency(r, deal)
        r.filters["currency"] = code
        r.chips = [
            dataclasses.replace(chip, label=chip.label.replace("{currency}", code))
            for chip in r.chips
        ]
        deal_by_price(r, said)
    chips = tuple(sorted(r.chips, key=lambda chip: chip.start))
    # Only the corrections that something understood took (a corrected word left in the text
    # was not read as the correction).
    corrected = {
        given: value
        for given, value in r.corrected.items()
        if any(r.used[i] for i, token in enumerate(r.tokens) if token.text == given)
    }
    kept = _remaining(r)
    words = [r.tokens[i].text for i in kept]
    before = [r.low(i - 1) for i in kept]
    ukrainian, translated = in_ukrainian(words, _places_named(r, kept), before)
    if ukrainian == "":  # "nice flat in Kyiv": "nice" has nothing to search for
        words, ukrainian = [], None
    return Interpretation(
        filters=dict(r.filters),
        text=" ".join(words),
        chips=chips,
        corrected=corrected,
        order=r.order,
        order_unavailable=r.order_unavailable,
        ukrainian=ukrainian,
        translated=translated,
        neighbourhoods=tuple(
            word for word in words if word in r.neighbourhoods and "district" in r.filters
        ),
    )
