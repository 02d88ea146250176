"""One-letter typos and Latin look-alike letters in requests (issue 14: typo tolerance):
what must be corrected, and what must be left as it is."""

from __future__ import annotations

import asyncio

import pytest

from listings.interpretation import Gazetteer
from listings.interpretation.typos import MIN_LENGTH, cyrillic_lookalikes, english_word
from tests.listings.test_interpretation import LOCATED, VALUES, read


@pytest.fixture(scope="module")
def gazetteer() -> Gazetteer:
    return Gazetteer.build(VALUES, LOCATED)


FIRES = [
    # place names: a letter wrong, missing, or two swapped; inflected too
    ("Кеїв", {"city": "Київ"}, {"Кеїв": "Київ"}),
    ("квартира у Кеїві", {"city": "Київ", "property_type": "apartment"}, {"Кеїві": "Київ"}),
    ("будинок у Харкв", {"city": "Харків", "property_type": "house"}, {"Харкв": "Харків"}),
    ("квартира у Лвові", {"city": "Львів", "property_type": "apartment"}, {"Лвові": "Львів"}),
    ("квартира в Ужгрод", {"city": "Ужгород", "property_type": "apartment"}, {"Ужгрод": "Ужгород"}),
    # keywords
    (
        "однокімантна квартира в оренду",
        {"rooms_count": 1, "property_type": "apartment", "deal_type": "rent_long"},
        {"однокімантна": "однокімнатна"},
    ),
    (
        "квартира з балконм",
        {"has_balcony": True, "property_type": "apartment"},
        {"балконм": "балкон"},
    ),
    (
        "apartmnet in Kyiv",
        {"property_type": "apartment", "city": "Київ"},
        {"apartmnet": "apartment"},
    ),
    # Latin look-alike letters in a Cyrillic word
    (
        "трикiмнатна квартира",
        {"rooms_count": 3, "property_type": "apartment"},
        {"трикiмнатна": "трикімнатна"},
    ),
    ("квартира у Львовi", {"city": "Львів", "property_type": "apartment"}, {"Львовi": "Львові"}),
]


@pytest.mark.parametrize(("text", "filters", "corrected"), FIRES)
def test_a_one_letter_typo_is_read_as_the_word_and_said(gazetteer, text, filters, corrected):
    reading = read(text, gazetteer)
    assert reading.filters == filters
    assert reading.corrected == corrected
    assert reading.text == ""


def test_non_standard_room_words_are_words_not_typos(gazetteer):
    reading = read("двохкімнатна квартира, трьохкімнатну", gazetteer)
    assert reading.filters["rooms_count"] == 2
    assert reading.corrected == {}


NOT_FIRING = [
    "Кив",  # shorter than MIN_LENGTH letters: too many neighbours
    "квартирна плата",  # a real word one letter from "квартира"
    "Квартирна плата",  # the same at the start of a sentence
    "квартира у Кременчуці",  # a real place the database does not have
    "будинок у Бучачі",  # a real place one letter from a place name's form ("Буча" style)
    "квартира поруч з Полтавою",  # not in the database, spelled right
    "кімната",  # spelled right: nothing to correct
    "Шахти",  # a real word, not a place here
]


@pytest.mark.parametrize("text", NOT_FIRING)
def test_real_words_short_words_and_other_places_are_not_corrected(gazetteer, text):
    reading = read(text, gazetteer)
    assert reading.corrected == {}
    assert "city" not in reading.filters


def test_two_places_one_letter_away_correct_nothing():
    values = {"city": {"Рівне": 10, "Ровне": 10}, "district": {}, "metro_station": {}}
    reading = read("квартира у Рівнe", Gazetteer.build(values))  # a Latin e: both fit
    assert reading.filters.get("city") == "Рівне"  # the look-alike fix, not a guess
    ambiguous = read("квартира у Рювне", Gazetteer.build(values))  # one letter from each
    assert ambiguous.corrected == {} and "city" not in ambiguous.filters


def test_a_correction_left_in_the_text_is_not_reported(gazetteer):
    # "кухна" is one letter from "кухня", which says nothing without its size: the word
    # stays in the text, and no correction is claimed
    reading = read("кухна у Львові", gazetteer)
    assert reading.filters == {"city": "Львів"}
    assert "кухна" in reading.text
    assert "кухна" not in reading.corrected


def test_a_colloquial_spelling_or_a_name_in_the_dictionary_is_still_a_typo(gazetteer):
    # pymorphy3's Ukrainian dictionary has "кватира" as a colloquial word: it was left to
    # the text search, the flat unread
    reading = read("кватира у Львові", gazetteer)
    assert reading.filters == {"city": "Львів", "property_type": "apartment"}
    assert reading.corrected == {"кватира": "квартира"}
    # a dictionary word that is no name nor colloquial stays as it is
    assert read("квартирна плата", gazetteer).corrected == {}


def test_lookalikes_need_a_mostly_cyrillic_word():
    assert cyrillic_lookalikes("кiмната") == "кімната"
    assert cyrillic_lookalikes("flat") == "flat"
    assert cyrillic_lookalikes("Kyiv") == "Kyiv"
    assert cyrillic_lookalikes("ok") == "ok"
    assert MIN_LENGTH == 4


@pytest.mark.parametrize(
    ("text", "filters", "left"),
    [
        # "pool" is one letter from Подол's "podol": a district was read from a swimming pool
        ("apartment with a pool", {"property_type": "apartment"}, "pool"),
        ("House with Pool", {"property_type": "house"}, "Pool"),  # capitalised, as titles are
        # "please" is one letter from "lease", "same" from "sale": deals nobody asked for
        ("please find me a flat in Kyiv", {"property_type": "apartment", "city": "Київ"}, ""),
        ("same flat in Kyiv", {"property_type": "apartment", "city": "Київ"}, "same"),
    ],
)
def test_a_common_english_word_is_no_typo(text, filters, left):
    values = {"city": {"Київ": 10}, "district": {"Подільський": 10}, "metro_station": {}}
    reading = read(text, Gazetteer.build(values))
    assert reading.corrected == {}
    assert (reading.filters, reading.text) == (filters, left)


def test_an_english_typo_is_still_corrected():
    assert not english_word("apartmnet") and english_word("pool") and not english_word("lviv")
    values = {"city": {"Львів": 10}, "district": {"Подільський": 10}, "metro_station": {}}
    reading = read("apartmnet near Podl", Gazetteer.build(values))
    assert reading.corrected == {"apartmnet": "apartment", "Podl": "Подільський"}


def test_the_servers_warm_up_loads_the_english_word_list(listings_access):
    """Loading it took the first request with an English word 0.12 s."""
    from listings.interpretation import typos
    from vmkproject import app

    typos._english.cache_clear()
    asyncio.run(app.warm_tools())
    assert typos._english.cache_info().currsize == 1
