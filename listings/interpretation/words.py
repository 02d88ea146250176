"""The request parser's word tables (words.json), read once: every word in its normal form.

Sets hold the words of one meaning; maps give each word its value ("двокімнатна": 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .morphology import normal

_DATA: dict[str, Any] = json.loads(Path(__file__).with_name("words.json").read_text("utf-8"))


def _set(name: str) -> frozenset[str]:
    return frozenset(normal(word) for word in _DATA[name])


def _map(name: str) -> dict[str, Any]:
    return {normal(word): value for word, value in _DATA[name].items()}


ROOMS_WORDS, NUMBER_WORDS, ORDINALS = (
    _map("rooms_words"),
    _map("number_words"),
    _map("ordinals"),
)
CARDINALS, HUNDREDS = _map("cardinals"), _set("hundreds")
DEAL_WORDS, PROPERTY_WORDS = _map("deal_words"), _map("property_words")
RENOVATION_WORDS = _map("renovation_words")
STUDIO, ROOM_UNITS, LAST = _set("studio_words"), _set("room_units"), _set("last_words")
# A floor that is the first or the last: "не крайній поверх" is neither.
EDGE = _set("edge_words")
# Rooms words that name a flat too ("однушка", "квартира-студія").
FLAT_WORDS = _set("flat_words")
FLOOR_WORDS, SUFFIXES = _set("floor_words"), _set("ordinal_suffixes")
# The building's storeys in one word, a number's stem and a storey stem ("п'ятиповерхівка",
# "двоповерховий", "девятиэтажке", "two-storey"), or a storey stem after a number
# ("9-поверховий", "16-этажном", "9-storey").
STOREYS_PREFIXES = _map("storeys_prefixes")
STOREYS_STEMS = tuple(normal(stem) for stem in _DATA["storeys_stems"])
MIN_WORDS, MAX_WORDS, NEGATIONS = (
    _set("min_words"),
    _set("max_words"),
    _set("negations"),
)
# Operators that leave their value out: "більше 2 кімнат" is 3 or more, "нижче 5 поверху" the
# 4th or lower ("від", "до", "не більше" keep it).
STRICT = _set("strict_words")
# After a value and "і", "or", "и": "і вище", "or more" make it a lower bound, "or less" an upper.
OR_MORE, OR_LESS = _set("or_more_words"), _set("or_less_words")
BETWEEN = _set("between_words")
FILLERS, THOUSANDS, MILLIONS = _set("filler_words"), _set("thousands"), _set("millions")
# Before a bare number, words that make it a price ("за 45000", "ціна 55 000"), and words
# that make a price or an area approximate ("приблизно 60 тисяч", "близько 70 м2").
PRICE_CUES, APPROX = _set("price_cues"), _set("approx_words")
AREA_UNITS, METRES, SQUARE = (
    _set("area_units"),
    _set("area_metres"),
    _set("area_square"),
)
AREA_CUES, DISTANCE_AFTER = _set("area_cues"), _set("distance_after")
SHORT_NOUNS, SHORT_PREPS = _set("short_rent_nouns"), _set("short_rent_preps")
# A rent's term in two words: "на тривалий термін", "на длительный срок", "short term".
RENT_TERMS, TERM_NOUNS = _map("rent_terms"), _set("term_nouns")
# "на місяць", "/міс", "per month": a price by the month is a long rent
MONTH_NOUNS, MONTH_PREPS = _set("long_rent_nouns"), _set("long_rent_preps")
BUILDING_NOUNS, RENOVATION_NOUNS = _set("building_nouns"), _set("renovation_nouns")
# A renovation done, of no kind said: "відремонтована", "renovated"; before the noun, "після
# ремонту", "зі свіжим ремонтом", "with a modern renovation".
RENOVATED, RENOVATION_DONE = _set("renovated_words"), _set("renovation_done")
WITHOUT, WITH, BALCONY = _set("without"), _set("with"), _set("balcony_words")
METRO_CUES, DISTRICT_CUES, NEAR = (
    _set("metro_cues"),
    _set("district_cues"),
    _set("near_words"),
)
# Words that frame a request rather than say what is sought ("шукаю", "знайди мені", "покажи",
# "потрібна", "looking for", "show me"): left out of the searched text where they lead it.
FRAMING = _set("framing_words")
# Words that hedge what follows ("бажано не перший поверх", "preferably"): never searched for.
HEDGES = _set("hedge_words")
# Ukrainian words that praise or size up with nothing a listing says by them ("гарна
# квартира": full text found none of Kyiv's flats); foreign.json drops the Russian and English.
PRAISE = _set("praise_words")
PLACE_PREPS, VIEW_WORDS, STOP_WORDS = (
    _set("place_preps"),
    _set("view_words"),
    _set("stop_words"),
)
KITCHEN, LIVING = _set("kitchen_words"), _set("living_area_words")
# A plot's area: "10 соток" (ares, 100 m² each), "1 га"; land's total_area is in m².
PLOT_UNITS = _map("plot_units")
YEAR_WORDS, BUILT, PUBLISHED = (
    _set("year_words"),
    _set("built_words"),
    _set("publish_words"),
)
# A year's ordinal ending ("2020-го", "2015-й"), which says it is a year without its word.
YEAR_SUFFIXES = frozenset({"го", "ого", "й", "ий", "му", "ому", "м"})
# Before a building year: "з 2010" (that year on), "після 2010" (later), "до 2000" (earlier).
YEAR_FROM, YEAR_AFTER, YEAR_BEFORE = (
    _set("year_from"),
    _set("year_after"),
    _set("year_before"),
)
# People, whose age is not a building's ("для людей старше 60 років").
PERSONS = _set("person_words")
# Words for a kind of a property type that say more than the type: the type is read and the
# word stays in the searched text ("пентхаус" is a flat, and a particular one).
KEPT_PROPERTY_WORDS = _map("kept_property_words")
# "кв" for a flat where no number makes it square metres ("1к кв.", "продам кв у Львові")
FLAT_SHORT = _set("flat_abbreviations")
# The order asked for (order.py): a word alone ("найдешевші", "cheapest"), a word after "most"
# ("самые дорогие", "the most expensive"), a word before "оголошення" ("нові оголошення").
ORDER_WORDS, ORDER_AFTER_MOST = _map("order_words"), _map("order_after_most")
ORDER_OF_LISTINGS, LISTING_NOUNS = _map("order_of_listings"), _set("listing_nouns")
# What every listing is ("нерухомість у Львові", "оренда житла", "real estate in Odesa",
# "житлова нерухомість"): never searched for (full text found 41 of Lviv's 8 215 listings).
PROPERTY_NOUNS, PROPERTY_NOUN_QUALIFIERS = (
    _set("property_nouns"),
    _set("property_noun_qualifiers"),
)
MOST_WORDS = _set("most_words")
# An order said as a command: "sort by price", "відсортувати за ціною", "по возрастанию
# цены", "price descending"; "first" after an order ("newest first", "спочатку дешевші").
SORT_VERBS, SORT_PREPOSITIONS = _set("sort_verbs"), _set("sort_prepositions")
SORT_KEYS, SORT_DIRECTIONS = _map("sort_keys"), _map("sort_directions")
ORDER_NOUNS, FIRST_WORDS = _set("order_nouns"), _set("first_words")
# Comparatives that are an order beside "first": "спочатку дешевші", "сначала новые", "cheaper
# first" (alone, "дешевше 50 000" is a price cap).
ORDER_COMPARATIVES = _map("order_comparatives")
# How recently published (published.py): "за останні 3 дні", "in the last week", "за сьогодні".
RECENT, PERIOD_UNITS = _set("recent_words"), _map("period_units")
TODAY_WORDS = _map("today_words")
MONTHS = _map("months")  # "після 1 листопада", "since 3 March"
# A building's age: "не старше 10 років", "молодше 5 лет", "less than 10 years old".
AGE_OLDER, AGE_YOUNGER, AGE_UNITS = (
    _set("age_older"),
    _set("age_younger"),
    _set("age_units"),
)
MINUTES, KILOMETRES = _set("minute_words"), _set("kilometre_words")
WALK, TRANSPORT = _set("walk_words"), _set("transport_words")
DASHES = frozenset({"-", "–", "—"})
# The word between a range's ends after "від" ("від 30 до 40", "from 2 to 3").
RANGE_TO = frozenset({"до", "to", "по"})
# Before a range's first end when "по" follows it ("з 3 по 5 поверх", "с 3 по 5 этаж").
RANGE_FROM = frozenset({"з", "із", "зі", "с", "со"})
# The word between a range's ends after "між" ("між 50 і 70", "between 2 and 3").
AND_WORDS = frozenset({"і", "й", "та", "и", "and"})
# Between two room counts either of which will do ("2 або 3 кімнати", "дво- чи трикімнатна").
ALTERNATIVES = frozenset({"або", "чи", "і", "й", "та", "или", "и", "or", "and", "/"})
CONJUNCTIONS = frozenset({"і", "й", "та", "и", "and", "or", "або", "чи", "или", "либо", ","})
FLOOR_PREPS = frozenset({"на", "on", "the"})
# Before a city, words that put the place outside it: "під Києвом", "недалеко від Львова",
# "в пригороде Одессы", "in the suburbs of Kyiv" (its suburbs are other places: towns and
# villages with their own names).
OUTSKIRTS = frozenset(
    {"під", "под", "near", "біля", "поблизу", "около", "возле", "недалеко", "неподалік", "коло"}
    | {"пригород", "передмістя", "suburb", "suburbs"}
)
FROM = frozenset({"від", "от", "from"})
# "не на першому, а на останньому": what follows is said instead, not negated.
CONTRASTS = frozenset({"а", "але", "but", "но"})
# After "not ... first", the next floor is negated too: "not on the first or last floor".
NEGATION_OR = frozenset({"or", "nor", "або", "чи", "ни", "или"})
STOREYS_PREPS = frozenset({"з", "із", "зі", "of", "из", "в"})


# Between "не" and what it negates: "не в панельному", "не на Оболоні", "not in Kyiv".
NEGATED_THROUGH = frozenset(
    {"у", "в", "во", "з", "із", "зі", "с", "со", "на", "in", "on", "at", "a", "an", "with", "for"}
)

# After a number, words that say it is no price ("до 20 хвилин", "до 5 поверху").
NOT_PRICE_AFTER = FLOOR_WORDS | ROOM_UNITS | _set("not_price_units")
# What the flat has (amenities.py): heating, bathroom, parking, the view from its windows.
HEATING_WORDS, HEATING_NOUNS = _map("heating_words"), _set("heating_nouns")
HEATING_ALONE = _map("heating_alone")  # "автономка"
WARM, FLOOR_SURFACE = _set("warm_words"), _set("floor_surface_nouns")  # "тепла підлога"
BATHROOM_WORDS, BATHROOM_NOUNS = _map("bathroom_words"), _set("bathroom_nouns")
PARKING_WORDS, PARKING_NOUNS = _map("parking_words"), _set("parking_nouns")
# A parking space: the property itself, or a flat's parking "with" it ("з машиномісцем").
PARKING_SPACES = _set("parking_space_nouns")
GARAGE_NOUNS = _set("garage_nouns")
VIEW_TARGETS, WINDOW_WORDS = _map("view_targets"), _set("window_words")
VIEW_PREPS = _set("view_preps")

# Between a label and its value, as forms and agents' keywords put them ("кімнат: 2",
# "rooms=2", "city: Kyiv").
LABEL_SIGNS = frozenset({":", "="})
