"""Russian and English words left in a request's text, read as the Ukrainian words listings
use (listings.interpretation.foreign): what full text searches as well."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from listings.interpretation import Gazetteer, foreign, morphology, places
from tests.listings.test_interpretation import gazetteer, read  # noqa: F401 (a fixture)


@pytest.mark.parametrize(
    ("request_text", "ukrainian", "translated"),
    [
        # Russian: the Ukrainian lemma in the case and number of the word given
        ("дом с участком в Виннице", "ділянкою у Виннице", {"участком": "ділянкою"}),
        (
            "можно с домашними животными",
            "можна з домашніми тваринами",
            {"можно": "можна", "домашними": "домашніми", "животными": "тваринами"},
        ),
        ("квартира в сталинке", "сталінці", {"сталинке": "сталінці"}),  # a guessed reading
        ("школа, детский сад", "школа дитячий садок", {"детский сад": "дитячий садок"}),
        # a phrase by its words' lemmas; a function word ("во") as Ukrainian's
        (
            "с детской площадкой во дворе",
            "дитячий майданчик у дворі",
            {"детской площадкой": "дитячий майданчик", "дворе": "дворі"},
        ),
        # a Russian form of a word Ukrainian has too, in Ukrainian's form
        ("рядом со школой и кухней", "школою і кухнею", {"школой": "школою", "кухней": "кухнею"}),
        # Ukrainian has "центре" only as a vocative, which full text does not stem
        ("квартира в центре", "центрі", {"центре": "центрі"}),
        # English: phrases before their words, plurals by their singular, empty words out
        (
            "studio in Lviv city center, pets allowed",
            "студія центр можна з тваринами",
            {"studio": "студія", "city center": "центр", "pets allowed": "можна з тваринами"},
        ),
        ("house with a garden", "сад", {"garden": "сад"}),
        (
            "flat with pools and a jacuzzi",
            "басейн джакузі",
            {"pools": "басейн", "jacuzzi": "джакузі"},
        ),
        (
            "apartment on a high floor near the embankment",
            "високий поверх набережна",
            {"high": "високий", "floor": "поверх", "embankment": "набережна"},
        ),
        (
            "с душевой кабиной и посудомойкой",
            "душова кабіна і посудомийкою",
            {"душевой кабиной": "душова кабіна", "посудомойкой": "посудомийкою"},
        ),
        # in the case a preposition governs, or the noun after an adjective is in (the first
        # reading was the genitive: "гардеробної", "світлої")
        (
            "квартира з гардеробной и светлой кухней",
            "гардеробною і світлою кухнею",
            {"гардеробной": "гардеробною", "светлой": "світлою", "кухней": "кухнею"},
        ),
        # a word the glossary lacks stays as it is
        ("flat with a sauna and an aquarium", "сауна aquarium", {"sauna": "сауна"}),
        # a city named outside it (no filter) as the listings write it, in the case said
        ("дом под Киевом", "під Києвом", {"под": "під", "Киевом": "Києвом"}),
        ("дом недалеко от Одессы", "Одеси", {"Одессы": "Одеси"}),
        ("house near Kyiv", "Київ", {"Kyiv": "Київ"}),
    ],
)
def test_russian_and_english_words_are_read_as_the_ukrainian_listings_use(
    gazetteer,  # noqa: F811
    request_text,
    ukrainian,
    translated,
):
    reading = read(request_text, gazetteer)
    assert reading.ukrainian == ukrainian
    assert reading.translated == translated
    # the text searched is still the request's own words
    assert all(word in request_text for word in reading.text.split())


@pytest.mark.parametrize(
    "request_text",
    [
        "квартира з терасою біля лісу",  # Ukrainian: nothing to read
        # Ukrainian forms that are Russian ones too ("тепла" of "тёплый"), in another case
        "Тепла квартира в Новому будинку у Центральному районі",
        "тихий район",  # a Russian word that is Ukrainian as written
        "house in the Kyiv region",  # nothing the glossary has ("region")
        "двокімнатна квартира у Києві",  # nothing left to search for
        "будинок під Києвом",  # a city named in Ukrainian
        "будинок біля Львова",  # Ukrainian, and Russian's genitive too
    ],
)
def test_a_request_with_no_foreign_word_has_no_ukrainian_text(gazetteer, request_text):  # noqa: F811
    reading = read(request_text, gazetteer)
    assert reading.ukrainian is None and reading.translated == {}


def test_the_glossary_keys_are_lemmas_and_its_values_ukrainian_words():
    """A Russian key pymorphy3 never gives as a lemma is never looked up; a value the
    Ukrainian dictionary does not know is no word full text stems."""
    russian = morphology.analyzer("ru")
    ukrainian = morphology.analyzer("uk")
    phrased = [word for words in foreign.RUSSIAN_PHRASES for word in words.split()]
    for key in [*foreign.RUSSIAN, *foreign.RUSSIAN_DROPPED, *phrased]:
        lemmas = {morphology.normal(p.normal_form) for p in russian.parse(key)}
        assert key in lemmas, key
    values = [*foreign.RUSSIAN.values(), *foreign.RUSSIAN_PHRASES.values()]
    values += [*foreign.ENGLISH.values(), *foreign.ENGLISH_PHRASES.values()]
    for value in values:
        for word in value.split():
            assert ukrainian.word_is_known(word), value
    # a one-word "phrase" would never be looked up
    assert all(" " in words for words in [*foreign.RUSSIAN_PHRASES, *foreign.ENGLISH_PHRASES])


def test_a_function_word_alone_is_no_reason_to_read_the_text_again(gazetteer):  # noqa: F811
    # "в" is Russian and Ukrainian: as "у" only beside a word read in Ukrainian
    assert read("студія в новому будинку", gazetteer).ukrainian is None
    assert read("квартира в сталинке", gazetteer).ukrainian == "сталінці"
    assert read("в сталинке с камином", gazetteer).translated == {
        "сталинке": "сталінці",
        "камином": "каміном",
    }


def test_a_city_of_two_words_is_read_word_by_word_and_a_city_not_present_is_left():
    cities = Gazetteer.build({"city": {"Кривий Ріг": 40, "Біла Церква": 20, "Київ": 90}})
    reading = read("дача под Кривым Рогом", cities)
    assert reading.ukrainian == "під Кривим Рогом"
    assert reading.translated == {"под": "під", "Кривым Рогом": "Кривим Рогом"}
    assert read("дом возле Белой Церкви", cities).ukrainian == "Білої Церкви"
    # no such city here: the words stay, not put in a Ukrainian word's form they are not
    # ("Кривым" was "кривоєм", "Николаевом" "николаевим": Ukrainian guessed at both)
    assert read("дача под Кривым Рогом", gazetteer_of("Київ")).translated == {"под": "під"}
    assert read("дом под Николаевом", cities).translated == {"под": "під"}


def test_a_preposition_before_what_was_read_goes_with_it():
    reading = read("дом из кирпича", gazetteer_of("Київ"))
    assert reading.filters["building_type"] == "brick" and reading.text == ""


def gazetteer_of(*cities: str) -> Gazetteer:
    return Gazetteer.build({"city": dict.fromkeys(cities, 10)})


@pytest.mark.parametrize(
    "request_text",
    [
        "nice flat in Kyiv",
        "хорошая квартира в Киеве",
        "office space in Kyiv",
        "гарна квартира в Києві",  # Ukrainian's praise too (was searched: 0 of 19 458)
        "шукаю хорошу квартиру у Києві",
    ],
)
def test_a_request_whose_words_have_nothing_to_search_for_leaves_no_text(gazetteer, request_text):  # noqa: F811
    # "nice" was searched as typed, and full text found no listing
    reading = read(request_text, gazetteer)
    assert reading.text == "" and reading.ukrainian is None and reading.filters["city"] == "Київ"


NEIGHBOURHOODS = Gazetteer.build(
    {
        "city": {"Київ": 90, "Львів": 40},
        "district": {
            "Дарницький": 30,
            "Деснянський": 20,
            "Шевченківський": 25,
            "Подільський": 9,
            "Печерський": 12,
        },
    },
    [
        ("district", "Дарницький", "Київ"),
        ("district", "Деснянський", "Київ"),
        ("district", "Шевченківський", "Львів"),  # Lviv's alone here
        ("district", "Подільський", "Київ"),
        ("district", "Печерський", "Київ"),
    ],
)


@pytest.mark.parametrize(
    ("request_text", "district", "text", "ukrainian"),
    [
        # its district, and its name searched for (as the listings write it)
        ("квартира на Позняках", "Дарницький", "Позняках", None),
        ("двушка на Троещине", "Деснянський", "Троещине", "Троєщині"),
        (
            "квартира на Харьковском массиве",
            "Дарницький",
            "Харьковском массиве",
            "Харківськім масиві",
        ),
        # "Виноградаре" is a Ukrainian vocative only; full text stems neither it nor the
        # nominative with an apostrophe ("Лук'янівка" is not "Лук'янівці")
        ("квартира на Виноградаре", "Подільський", "Виноградаре", "Виноградареві"),
        # a name pymorphy3 does not know, in its locative (listed in places.json)
        ("квартира на Звіринці", "Печерський", "Звіринці", None),
        # Kyiv's Лук'янівка is no neighbourhood of Lviv's Шевченківський
        ("квартира на Лукьяновке", None, "Лукьяновке", None),
    ],
)
def test_a_neighbourhood_is_its_district_and_its_name_searched_for(
    request_text, district, text, ukrainian
):
    reading = read(request_text, NEIGHBOURHOODS)
    assert reading.filters.get("district") == district
    assert reading.text == text and reading.ukrainian == ukrainian
    if district is not None:
        chip = next(chip for chip in reading.chips if chip.filters == ("district",))
        assert chip.label.startswith(f"{district} (район: ")
        assert request_text[chip.start : chip.end].startswith("на ")  # removed with its "на"


def test_every_neighbourhood_listed_is_read_in_the_locative_listings_write():
    # the demo's listings say "на Звіринці", "у Бортничах": each is its district, said in
    # Ukrainian (nothing translated); "Звіринці" was read as nothing (pymorphy3 guessed
    # "звіринка")
    geography = json.loads(Path("demo/data/geography.json").read_text("utf-8"))
    said = {
        (city["name"], district["name"], name): locative
        for city in geography["cities"]
        for district in city.get("districts", [])
        for name, locative in district.get("neighbourhoods", [])
    }
    listed = [
        (city, district, name)
        for city, districts in places.NEIGHBOURHOODS.items()
        for district, names in districts.items()
        for name in names
    ]
    districts = Gazetteer.build(
        {
            "city": dict.fromkeys(places.NEIGHBOURHOODS, 10),
            "district": {district: 5 for _, district, _ in listed},
        },
        [("district", district, city) for city, district, _ in listed],
    )
    missed = []
    for city, district, name in listed:
        reading = read(f"квартира {said.get((city, district, name), 'на ' + name)}", districts)
        if reading.filters.get("district") != district or reading.translated:
            missed.append(name)
    assert len(listed) > 30 and missed == []
