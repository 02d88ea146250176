"""A place the listings spell several ways ("Палац спорту" in Київ, "Палац Спорту" in
Харків) is every spelling: the filters carry them once place names are resolved, and every
search and count matches each (their statements are keyed by them)."""

from __future__ import annotations

from collections import Counter

import pytest

from listings import search
from listings.filters import Filters
from listings.interpretation import Gazetteer
from listings.understanding import resolve_places

pytestmark = pytest.mark.usefixtures("listings_access")

# The test database spells each city once: two cities stand in for two spellings of one.
BOTH = Filters(city="Київ").with_spellings({"city": ("Київ", "Львів")})


@pytest.mark.parametrize(
    "run", [search.semantic_search, search.fulltext_search, search.hybrid_search]
)
def test_every_search_matches_each_spelling_and_not_the_statement_of_one(run):
    query = "квартира з балконом"
    one = run(query=query, filters=Filters(city="Київ"), limit=50)
    both = run(query=query, filters=BOTH, limit=50)
    again = run(query=query, filters=Filters(city="Київ"), limit=50)
    assert set(Counter(card.city for card in one.listings)) == {"Київ"}
    assert set(Counter(card.city for card in both.listings)) == {"Київ", "Львів"}
    assert both.total > one.total == again.total
    assert [card.id for card in again.listings] == [card.id for card in one.listings]


def test_counts_and_statistics_match_each_spelling():
    def counted(filters) -> dict[str, int]:
        stats = search.listing_stats(filters=filters, group_by="city")
        return {str(group.group): group.count for group in stats.groups}

    assert counted(BOTH) == counted({"city": "Київ"}) | counted({"city": "Львів"})
    rooms = {"rooms_count": 1}
    one = search.fulltext_search(filters=Filters(city="Львів", **rooms), limit=1)
    both = search.fulltext_search(filters=BOTH.model_copy(update=rooms), limit=1)
    kyiv = search.fulltext_search(filters=Filters(city="Київ", **rooms), limit=1)
    assert one.total_exact and both.total_exact and kyiv.total_exact
    assert both.total == one.total + kyiv.total


def test_resolving_a_place_the_table_spells_two_ways_keeps_both():
    places = Gazetteer.build(
        {
            "city": {"Київ": 900, "Харків": 300},
            "metro_station": {"Палац спорту": 177, "Палац Спорту": 598},
        },
        [("metro_station", "Палац спорту", "Київ"), ("metro_station", "Палац Спорту", "Харків")],
    )
    assert places.spellings("metro_station", "палац спорту") == ("Палац Спорту", "Палац спорту")
    resolved = resolve_places(Filters(metro_station="палац спорту"), places)
    assert resolved.metro_station == "Палац Спорту"
    assert resolved.spelled("metro_station", "Палац Спорту") == ["Палац Спорту", "Палац спорту"]
    single = resolve_places(Filters(city="Kyiv"), places)
    assert single.spelled("city", "Київ") == ["Київ"]
