"""Full text for a request's Russian and English words: the listings are Ukrainian, so the
words are matched as given or as the Ukrainian words listings use (foreign.in_ukrainian)."""

from __future__ import annotations

import dataclasses

import pytest

from listings import search
from listings.models import PropertyListing

pytestmark = pytest.mark.usefixtures("listings_access")


def _texts(page) -> list[str]:
    ids = [card.id for card in page.listings]
    fields = ("title", "district", "address_raw", "description", "generated_description")
    rows = PropertyListing.objects.filter(id__in=ids).values_list(*fields)  # search_vector's
    return [" ".join(text or "" for text in row).lower() for row in rows]


def test_a_russian_request_finds_the_listings_that_say_it_in_ukrainian():
    # as given, the Russian word is in no listing: full text and substrings find nothing
    plain = search.fulltext_search(query="участком", filters={"property_type": "house"})
    assert plain.total == 0 and plain.mode == "ilike_fallback"
    page = search.fulltext_search(query="дом с участком", interpret=True, limit=20)
    assert page.mode == "fulltext" and page.total > 0
    assert page.interpreted.text == "участком"
    assert page.interpreted.translated == {"участком": "ділянкою"}
    assert len(page.listings) == 20
    assert all("ділянк" in text for text in _texts(page))
    assert {card.property_type for card in page.listings} == {"Будинок"}


def test_full_text_matches_the_words_as_given_or_as_in_ukrainian():
    def total(query: str, **extra) -> int:
        page = search.fulltext_search(query=query, limit=1, **extra)
        assert page.mode == "fulltext" and page.total_exact
        return page.total

    garden, plot, both = total("садом"), total("ділянкою"), total("садом ділянкою")
    assert 0 < both < min(garden, plot)  # each finds listings the other does not
    assert total("садом", in_ukrainian="ділянкою") == garden + plot - both
    # a word in no listing, or in Ukrainian, finds what the other finds
    assert total("zzqqxx", in_ukrainian="ділянкою") == plot


def test_hybrid_keeps_its_text_side_for_a_russian_request():
    request = "можно с домашними животными"
    page = search.hybrid_search(query=request, interpret=True, limit=10)
    assert page.filters["fulltext_mode"] == "fulltext"
    assert page.interpreted.translated == {
        "можно": "можна",
        "домашними": "домашніми",
        "животными": "тваринами",
    }
    text_found = [card for card in page.listings if card.fulltext_rank is not None]
    assert text_found
    # as before: no listing has every word, and any one word of a Russian request is a
    # chance match ("с"), so the text side was left out
    plain = search.hybrid_search(query=request, limit=10)
    assert plain.filters["fulltext_mode"] == "fulltext_skipped"


def test_semantic_search_embeds_the_words_in_ukrainian():
    page = search.semantic_search(query="дом с участком", interpret=True, limit=10)
    assert page.interpreted.text == "участком"
    assert page.interpreted.translated == {"участком": "ділянкою"}
    assert page.query == "дом с участком"
    same = search.semantic_search(query="ділянкою", filters={"property_type": "house"}, limit=10)
    russian = search.semantic_search(query="участком", filters={"property_type": "house"}, limit=10)
    assert [card.id for card in page.listings] == [card.id for card in same.listings]
    assert [card.id for card in page.listings] != [card.id for card in russian.listings]


def test_an_empty_page_counts_its_words_as_given_or_in_ukrainian():
    page = search.fulltext_search(query="дом с участком до 5 долларов", interpret=True, limit=5)
    assert page.total == 0
    dropped = {tuple(entry.dropped): entry.total for entry in page.if_dropped}
    found = search.fulltext_search(query="дом с участком", interpret=True, limit=1)
    assert dropped[("max_price",)] == found.total > 0


@pytest.mark.parametrize(
    "run", [search.semantic_search, search.fulltext_search, search.hybrid_search]
)
def test_a_request_of_the_longest_length_is_searched_though_longer_in_ukrainian(run, settings):
    request = ("pets allowed " * settings.MAX_QUERY_LENGTH)[: settings.MAX_QUERY_LENGTH]
    page = run(query=request, interpret=True, limit=3)
    assert page.interpreted.translated == {"pets allowed": "можна з тваринами"}
    assert len(page.interpreted.text) <= settings.MAX_QUERY_LENGTH


def test_a_city_named_in_russian_outside_it_finds_what_it_does_in_ukrainian():
    # "под Киевом" is outside the city (no filter): searched as "під Києвом", not for a
    # Russian word no listing has
    ukrainian = search.fulltext_search(query="будинок під Києвом", interpret=True, limit=5)
    russian = search.fulltext_search(query="дом под Киевом", interpret=True, limit=5)
    assert russian.interpreted.translated == {"под": "під", "Киевом": "Києвом"}
    assert "city" not in russian.filters
    assert russian.mode == ukrainian.mode == "fulltext"
    assert russian.total == ukrainian.total > 0
    assert [card.id for card in russian.listings] == [card.id for card in ukrainian.listings]


def test_a_request_whose_words_have_nothing_to_search_for_is_its_filters():
    kyiv = search.fulltext_search(filters={"city": "Київ", "property_type": "apartment"})
    page = search.fulltext_search(query="nice flat in Kyiv", interpret=True, limit=5)
    assert page.mode == "filter" and page.total == kyiv.total > 0  # was 0: "nice" searched


def test_a_neighbourhood_finds_its_districts_listings_that_name_it():
    # "на Позняках" was all of Дарницький (its other neighbourhoods first as often)
    district = search.fulltext_search(filters={"district": "Дарницький"}, limit=1)
    page = search.fulltext_search(query="квартира на Позняках", interpret=True, limit=20)
    assert page.filters["district"] == "Дарницький" and page.mode == "fulltext"
    assert page.interpreted.text == "Позняках"
    assert 0 < page.total < district.total
    assert all("позняк" in text for text in _texts(page))
    # a Russian spelling is searched as the listings write it
    ukrainian = search.fulltext_search(query="квартира на Троєщині", interpret=True, limit=5)
    respelled = search.fulltext_search(query="квартира на Троещине", interpret=True, limit=5)
    assert respelled.interpreted.translated == {"Троещине": "Троєщині"}
    assert respelled.total == ukrainian.total > 0


def test_a_neighbourhood_no_listing_names_is_its_district_with_a_warning(monkeypatch):
    # a real database's listings may name only their street: the reading of "на Позняках"
    # with a name no listing has, as if so
    from listings.search import understood

    real = understood.read_query

    def unnamed(text: str):
        reading = real(text)
        assert reading.neighbourhoods == ("Позняках",)
        return dataclasses.replace(reading, text="Зюзюках", neighbourhoods=("Зюзюках",))

    monkeypatch.setattr(understood, "read_query", unnamed)
    district = {"district": "Дарницький", "property_type": "apartment"}
    expected = search.fulltext_search(filters=district, limit=1)
    page = search.fulltext_search(query="квартира на Позняках", interpret=True, limit=5)
    assert page.total == expected.total > 0 and page.mode == "filter"
    assert page.filters["district"] == "Дарницький" and page.interpreted.text == ""
    assert "'Зюзюках'" in page.warnings[-1] and "'Дарницький'" in page.warnings[-1]
    # with the name said, nothing is dropped
    monkeypatch.setattr(understood, "read_query", real)
    named = search.fulltext_search(query="квартира на Позняках", interpret=True, limit=5)
    assert named.mode == "fulltext" and not named.warnings
    # a word that is no neighbourhood keeps its empty page (and says what would let listings in)
    empty = search.fulltext_search(query="квартира на Позняках zzqqxx", interpret=True)
    assert empty.total == 0 and empty.if_dropped and not empty.warnings
