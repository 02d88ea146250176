"""Requests understood through the search layer: the filters read are applied and shown,
the caller's filters win, interpret=false is the search as before, place names resolve."""

from __future__ import annotations

import pytest

from listings import search, understanding
from listings.errors import InvalidArgument
from listings.filters import BAD_FILTER_VALUE
from listings.models import PropertyListing

pytestmark = pytest.mark.usefixtures("listings_access")

REQUEST = "двокімнатна квартира до 60 тисяч доларів біля метро"
RATES = {"USD": 1.0}


def usd(card) -> float:
    from django.conf import settings

    rates = settings.EXCHANGE_RATES
    return card.price * rates["USD"] / rates[card.currency]


@pytest.mark.parametrize(
    "run", [search.semantic_search, search.fulltext_search, search.hybrid_search]
)
def test_interpret_false_is_the_search_as_before(run):
    for query, filters in [(REQUEST, None), ("квартира з балконом", {"city": "Київ"})]:
        before = run.__wrapped__(query=query, filters=filters, limit=10)
        # The same page; an empty one also says what each filter dropped would let in.
        same = before.model_copy(update={"if_dropped": None})
        assert (
            run(query=query, filters=filters, limit=10, interpret=False).model_copy(
                update={"if_dropped": None}
            )
            == same
        )
        assert (
            run(query=query, filters=filters, limit=10).model_copy(update={"if_dropped": None})
            == same
        )
        assert before.interpreted is None


@pytest.mark.parametrize(
    "run", [search.semantic_search, search.fulltext_search, search.hybrid_search]
)
def test_the_request_is_read_into_filters_and_every_result_meets_them(run):
    page = run(query=REQUEST, limit=10, interpret=True)
    assert page.interpreted is not None
    assert page.interpreted.filters["rooms_count"] == 2
    assert page.interpreted.text == "метро"
    assert page.interpreted.summary.startswith("Зрозуміли: 2 кімнати · Квартира · до 60")
    assert page.query == REQUEST
    assert page.filters["rooms_count"] == 2 and page.filters["max_price"] == 60000
    assert len(page.listings) == 10
    for card in page.listings:
        assert card.rooms_count == 2
        assert card.property_type == "Квартира"
        assert card.deal_type == "sale"
        assert usd(card) <= 60000 + 0.01


def test_the_same_request_uninterpreted_ranks_other_listings_first():
    plain = search.hybrid_search(query=REQUEST, limit=10)
    assert any(card.rooms_count != 2 or usd(card) > 60000 for card in plain.listings)


def test_the_callers_filters_win():
    page = search.hybrid_search(
        query="двокімнатна квартира у Львові",
        filters={"rooms_count": 3, "city": "Київ"},
        limit=10,
        interpret=True,
    )
    assert page.filters["rooms_count"] == 3 and page.filters["city"] == "Київ"
    assert set(page.interpreted.overridden) == {"rooms_count", "city"}
    assert all(card.rooms_count == 3 and card.city == "Київ" for card in page.listings)
    assert "2 кімнати" not in page.interpreted.summary
    # all that was read is the caller's to say: the summary does not claim nothing was found
    every = search.hybrid_search(
        query="двокімнатна квартира",
        filters={"rooms_count": 3, "property_type": "house"},
        interpret=True,
    )
    assert set(every.interpreted.overridden) == {"rooms_count", "property_type"}
    assert every.interpreted.summary == understanding.SUMMARY_ALL_OVERRIDDEN
    plain = search.hybrid_search(query="світла і затишна", limit=1, interpret=True)
    assert plain.interpreted.summary == understanding.SUMMARY_NOTHING


@pytest.mark.parametrize(
    ("request_text", "refused"),
    [
        ("квартира у Львові на 300 поверсі", {"floor"}),
        ("квартира у Львові " + "1" * 16 + " м²", {"min_area", "max_area"}),
        ("квартира у Львові до 5000000 млн грн", {"max_price", "currency"}),
    ],
)
def test_a_value_no_filter_accepts_is_refused_and_the_rest_still_applies(request_text, refused):
    page = search.fulltext_search(query=request_text, limit=5, interpret=True)
    assert set(page.interpreted.refused) == refused
    assert all(name in page.interpreted.refused[name] for name in refused - {"currency"})
    assert not refused & set(page.filters) - {"currency"}
    assert not refused & set(page.interpreted.filters)
    assert not any(set(chip.filters) & refused for chip in page.interpreted.chips)
    assert page.filters["city"] == "Львів" and page.filters["property_type"] == "apartment"
    assert page.interpreted.summary == "Зрозуміли: Квартира · Львів"
    assert page.total > 0 and all(card.city == "Львів" for card in page.listings)


def test_a_request_read_whole_has_nothing_refused():
    page = search.fulltext_search(query="квартира у Львові на 3 поверсі", interpret=True)
    assert page.interpreted.refused == {}
    assert "refused" not in page.interpreted.model_dump(mode="json")
    assert page.filters["floor"] == 3


def test_a_request_that_is_all_filters_is_a_pure_filter_in_full_text():
    page = search.fulltext_search(query="трикімнатна квартира у Львові", interpret=True)
    assert page.mode == "filter"
    assert page.interpreted.text == ""
    expected = PropertyListing.objects.filter(
        rooms_count=3, city="Львів", property_type__slug="apartment", listing_status="active"
    ).count()
    assert page.total == expected


def test_an_order_asked_for_sorts_a_full_text_page_unless_the_caller_chose_one():
    page = search.fulltext_search(query="найдешевші квартири у Львові", interpret=True)
    assert page.sort_by == "price_asc" and page.mode == "filter"
    assert page.interpreted.text == ""
    assert page.interpreted.summary == "Зрозуміли: спочатку дешевші · Квартира · Львів"
    prices = [usd(card) for card in page.listings if card.price is not None]
    assert len(prices) >= 5 and prices == sorted(prices)
    assert all(card.city == "Львів" for card in page.listings)
    biggest = search.fulltext_search(query="самые большие квартиры в Киеве", interpret=True)
    areas = [card.total_area for card in biggest.listings if card.total_area is not None]
    assert biggest.sort_by == "area_desc" and areas == sorted(areas, reverse=True)
    chosen = search.fulltext_search(
        query="найдешевші квартири у Львові", sort_by="date_desc", interpret=True
    )
    assert chosen.sort_by == "date_desc"
    assert chosen.interpreted.overridden == ["sort_by"]
    assert "дешевші" not in chosen.interpreted.summary


def test_a_price_per_m2_is_read_and_applied_and_the_callers_price_replaces_it():
    page = search.fulltext_search(query="квартири у Львові до 1000 $ за метр", interpret=True)
    assert page.filters["max_price_per_m2"] == 1000 and "max_price" not in page.filters
    assert page.interpreted.summary == (
        "Зрозуміли: Квартира · Львів · до 1\u00a0000 USD/м² · продаж (за ціною)"
    )
    assert page.total > 0
    for card in page.listings:
        assert card.total_area > 0 and usd(card) / card.total_area <= 1000 + 1e-6
    given = search.fulltext_search(
        query="квартири у Львові до 1000 $ за метр",
        filters={"max_price": 90000, "currency": "USD"},
        interpret=True,
    )
    assert "max_price_per_m2" not in given.filters
    assert set(given.interpreted.overridden) == {"max_price_per_m2", "currency"}


def test_how_recently_published_is_read_from_the_local_date_and_applied():
    from django.utils import timezone

    page = search.fulltext_search(query="квартири у Львові за останні 2 роки", interpret=True)
    today = timezone.localdate()
    leap_day = (today.month, today.day) == (2, 29)
    since = today.replace(year=today.year - 2, day=28 if leap_day else today.day)
    assert page.filters["published_after"] == since.isoformat()
    expected = PropertyListing.objects.filter(
        city="Львів",
        property_type__slug="apartment",
        listing_status="active",
        publish_date__date__gte=since,
    ).count()
    assert page.total == expected > 0
    assert page.interpreted.text == ""


@pytest.mark.parametrize("run", [search.semantic_search, search.hybrid_search])
def test_an_order_asked_for_is_refused_with_its_reason_where_the_search_cannot_sort(run):
    page = run(query="найдешевші квартири у Львові", limit=5, interpret=True)
    assert page.sort_by is None
    assert page.interpreted.refused == {
        "sort_by": understanding.ORDER_NOT_APPLIED.format(order="price_asc")
    }
    assert "search_by_metadata" in page.interpreted.refused["sort_by"]
    assert not any("sort_by" in chip.filters for chip in page.interpreted.chips)
    assert page.interpreted.summary == "Зрозуміли: Квартира · Львів"
    assert all(card.city == "Львів" for card in page.listings)


@pytest.mark.parametrize("run", [search.fulltext_search, search.hybrid_search])
def test_an_order_no_sort_by_gives_is_named_and_its_words_not_searched_for(run):
    # "sort by date ascending" searched for its words found nothing in full text
    page = run(query="квартири у Львові, sort by date ascending", limit=5, interpret=True)
    assert page.interpreted.refused == {
        "sort_by": understanding.ORDER_UNAVAILABLE.format(order="date_asc")
    }
    assert "date_desc" in page.interpreted.refused["sort_by"]
    assert page.interpreted.text == ""
    assert page.total > 0 and all(card.city == "Львів" for card in page.listings)


@pytest.mark.parametrize("given", ["Kyiv", "київ", "Києві", "Киев", "  КИЇВ "])
def test_place_names_in_filters_resolve_to_the_value_present(given):
    page = search.fulltext_search(filters={"city": given}, limit=5)
    assert page.filters["city"] == "Київ"
    assert all(card.city == "Київ" for card in page.listings)
    if given.strip() != "Київ":
        assert page.names_resolved == {"city": {"given": given.strip(), "value": "Київ"}}


@pytest.mark.parametrize("group_by", ["district", "metro_station"])
def test_a_group_named_with_its_city_filters_as_that_place_of_that_city(group_by):
    # listing_stats names a district of no filtered city "Шевченківський (Київ)": an agent
    # that filters by the group it read gets that place of that city
    groups = search.listing_stats(group_by=group_by).groups
    named = next(g for g in groups if g.group and "(" in g.group)
    place, city = named.group[:-1].split(" (")
    page = search.fulltext_search(filters={group_by: named.group}, limit=50)
    assert (page.filters[group_by], page.filters["city"]) == (place, city)
    assert page.total == named.count and page.total_exact
    assert page.names_resolved[group_by] == {"given": named.group, "value": place}
    stats = search.listing_stats(filters={group_by: named.group})
    assert stats.total == named.count
    other = "Львів" if city != "Львів" else "Київ"
    with pytest.raises(InvalidArgument):  # another city filtered: no such place there
        search.fulltext_search(filters={group_by: named.group, "city": other})


def test_place_names_resolve_in_stats_too():
    stats = search.listing_stats(filters={"city": "Lviv"})
    assert stats.filters["city"] == "Львів"
    assert (
        stats.total == PropertyListing.objects.filter(city="Львів", listing_status="active").count()
    )


def test_a_place_that_matches_nothing_is_an_error_naming_the_nearest():
    with pytest.raises(InvalidArgument) as error:
        search.semantic_search(query="квартира", filters={"city": "Кииев"})
    nearest = understanding.live_gazetteer().nearest("city", "Кииев")
    assert nearest[0] == "Київ"
    assert error.value.message == BAD_FILTER_VALUE.format(
        key="city",
        problem=understanding.PLACE_UNKNOWN.format(value="Кииев", suggestions=" or ".join(nearest)),
    )
    with pytest.raises(InvalidArgument) as error:
        search.fulltext_search(filters={"district": "Zzzzz"})
    assert error.value.message == BAD_FILTER_VALUE.format(
        key="district", problem=understanding.PLACE_UNKNOWN_NO_SUGGESTION.format(value="Zzzzz")
    )


@pytest.mark.parametrize("given", ["house", "House", "Будинок", "будинки", "houses", "дом"])
def test_a_property_type_filter_resolves_to_the_slug_present(given):
    page = search.fulltext_search(filters={"property_type": given}, limit=5)
    houses = PropertyListing.objects.filter(property_type__slug="house", listing_status="active")
    assert page.filters["property_type"] == "house"
    assert page.total == houses.count() > 0
    if given != "house":
        assert page.names_resolved == {"property_type": {"given": given, "value": "house"}}
    else:
        assert page.names_resolved is None


@pytest.mark.parametrize(
    "run",
    [
        lambda f: search.semantic_search(query="квартира", filters=f),
        lambda f: search.fulltext_search(filters=f),
        lambda f: search.hybrid_search(query="квартира", filters=f),
        lambda f: search.listing_stats(filters=f),
    ],
)
def test_a_property_type_that_names_no_type_is_an_error_listing_the_slugs(run):
    slugs = sorted(understanding.live_property_types())
    assert {"apartment", "house"} <= set(slugs)
    with pytest.raises(InvalidArgument) as error:
        run({"property_type": "castle"})
    assert error.value.message == BAD_FILTER_VALUE.format(
        key="property_type",
        problem=understanding.PROPERTY_TYPE_UNKNOWN.format(
            value="castle", allowed=", ".join(slugs)
        ),
    )


def test_interpret_must_be_a_boolean():
    with pytest.raises(InvalidArgument) as error:
        search.hybrid_search(query="квартира", interpret="yes")
    assert error.value.message == understanding.INTERPRET_NOT_BOOL


def test_not_top_floor_keeps_listings_below_the_top():
    page = search.fulltext_search(
        query="квартира не на останньому поверсі", limit=50, interpret=True
    )
    assert page.filters["not_top_floor"] is True
    assert page.listings
    assert all(card.floor < card.floors_count for card in page.listings)


def test_top_floor_keeps_listings_on_the_top_floor_and_false_below_it():
    page = search.fulltext_search(query="квартира на останньому поверсі", limit=50, interpret=True)
    assert page.filters["top_floor"] is True
    assert page.listings
    assert all(card.floor == card.floors_count for card in page.listings)
    below = search.fulltext_search(query=None, filters={"top_floor": False}, limit=50)
    not_top = search.fulltext_search(query=None, filters={"not_top_floor": True}, limit=50)
    assert below.total == not_top.total > 0
    assert all(card.floor < card.floors_count for card in below.listings)


def test_kitchen_year_metro_distance_and_storeys_keep_only_the_listings_they_say():
    everything = search.fulltext_search(query=None, limit=1).total
    for filters, column, low, high in (
        ({"min_kitchen_area": 12}, "kitchen_area", 12, None),
        ({"max_kitchen_area": 8}, "kitchen_area", None, 8),
        ({"min_living_area": 40}, "living_area", 40, None),
        ({"max_living_area": 20}, "living_area", None, 20),
        ({"min_building_year": 2010}, "building_year", 2010, None),
        ({"max_building_year": 1970}, "building_year", None, 1970),
        ({"max_metro_distance": 500}, "metro_distance_meters", None, 500),
        ({"min_floors_count": 10}, "floors_count", 10, None),
        ({"max_floors_count": 5}, "floors_count", None, 5),
        ({"min_floors_count": 9, "max_floors_count": 9}, "floors_count", 9, 9),
    ):
        narrowed = search.fulltext_search(query=None, filters=filters, limit=50)
        assert 0 < narrowed.total < everything, filters
        ids = [card.id for card in narrowed.listings]
        rows = PropertyListing.objects.using("listings").filter(pk__in=ids)
        assert len(rows) == len(ids)
        for row in rows:
            value = getattr(row, column)
            assert (low is None or value >= low) and (high is None or value <= high), filters


def test_kitchen_building_year_and_metro_distance_are_read_from_a_request():
    request = "квартира з кухнею від 9 м2 у будинку після 1990 року до метро 1 км"
    page = search.fulltext_search(query=request, limit=50, interpret=True)
    assert page.interpreted.text == ""
    read = {"min_kitchen_area": 9, "min_building_year": 1991, "max_metro_distance": 1000}
    assert {name: page.filters[name] for name in read} == read
    rows = PropertyListing.objects.using("listings").filter(pk__in=[c.id for c in page.listings])
    assert len(rows) == len(page.listings) > 0
    for row in rows:
        assert row.kitchen_area >= 9 and row.building_year >= 1991
        assert row.metro_distance_meters <= 1000
    living = search.semantic_search(query="квартира житловою площею від 35 м2", interpret=True)
    assert living.filters["min_living_area"] == 35 and living.listings
    rows = PropertyListing.objects.using("listings").filter(pk__in=[c.id for c in living.listings])
    assert all(row.living_area >= 35 for row in rows)


def test_heating_bathroom_parking_and_view_keep_only_the_listings_they_say():
    everything = search.fulltext_search(query=None, limit=1).total
    for filters, column, kept in (
        ({"heating_type": "individual"}, "heating_type", {"autonomous"}),  # a synonym
        ({"bathroom_type": "роздільний"}, "bathroom_type", {"separate"}),  # its label
        ({"parking_type": "underground"}, "parking_type", {"underground"}),
        ({"window_view": "sea"}, "window_view", {"water"}),
    ):
        page = search.fulltext_search(query=None, filters=filters, limit=50)
        assert 0 < page.total < everything, filters
        assert page.filters[column] == next(iter(kept))  # shown in its documented form
        rows = PropertyListing.objects.using("listings").filter(
            pk__in=[c.id for c in page.listings]
        )
        assert {getattr(row, column) for row in rows} == kept, filters
    with_parking = search.fulltext_search(query=None, filters={"has_parking": True}, limit=50)
    without = search.fulltext_search(query=None, filters={"has_parking": False}, limit=50)
    none = search.fulltext_search(query=None, filters={"parking_type": "none"}, limit=1)
    assert without.total == none.total > 0 and with_parking.total > 0
    ids = [card.id for card in with_parking.listings]
    kinds = set(
        PropertyListing.objects.using("listings")
        .filter(pk__in=ids)
        .values_list("parking_type", flat=True)
    )
    assert kinds and None not in kinds and "none" not in kinds
    with pytest.raises(InvalidArgument) as error:
        search.fulltext_search(query=None, filters={"heating_type": "solar"})
    assert "heating_type" in error.value.message and "autonomous" in error.value.message


def test_a_kitchen_building_year_or_storeys_range_upside_down_is_refused():
    for low, high, values in (
        ("min_kitchen_area", "max_kitchen_area", (2000, 1990)),
        ("min_living_area", "max_living_area", (60, 30)),
        ("min_building_year", "max_building_year", (2000, 1990)),
        ("min_floors_count", "max_floors_count", (16, 9)),
    ):
        with pytest.raises(InvalidArgument) as error:
            search.fulltext_search(query=None, filters={low: values[0], high: values[1]})
        assert low in error.value.message and high in error.value.message


EMPTIED = "двокімнатна квартира у Львові до 5 доларів"


@pytest.mark.parametrize(
    "run", [search.semantic_search, search.fulltext_search, search.hybrid_search]
)
def test_an_empty_page_says_what_dropping_each_filter_lets_in(run):
    page = run(query=EMPTIED, limit=5, interpret=True)
    assert page.total == 0 and not page.listings
    dropped = {tuple(entry.dropped): entry for entry in page.if_dropped}
    # A price's bounds and their currency are one filter; the currency alone narrows nothing.
    assert ("max_price",) in dropped and not any("currency" in names for names in dropped)
    assert {"city", "listing_status", "rooms_count"} <= {n for names in dropped for n in names}
    # Every word of it is read: full text is a pure filter, the count of the rest.
    expected = search.fulltext_search(query="двокімнатна квартира у Львові", interpret=True)
    assert expected.interpreted.text == "" and expected.mode == "filter"
    assert dropped[("max_price",)].total == expected.total > 0
    # Nothing anywhere costs under $5: no other filter dropped alone lets a listing in.
    assert all(entry.total == 0 for names, entry in dropped.items() if names != ("max_price",))


def test_a_full_text_page_emptied_by_its_words_says_so():
    page = search.fulltext_search(query="зюзюкавиця", filters={"city": "Львів"}, limit=5)
    assert page.total == 0
    dropped = {tuple(entry.dropped): entry.total for entry in page.if_dropped}
    lviv = search.fulltext_search(query=None, filters={"city": "Львів"}, limit=1).total
    assert dropped[("query",)] == lviv > 0
    assert dropped[("city",)] == 0  # the word is nowhere


@pytest.mark.parametrize("words", ["балкон", "Оболон"])  # full text; substrings alone
def test_each_dropped_filter_counts_what_the_search_again_finds(words):
    from listings.search import filtering

    raw = {"city": "Київ", "rooms_count": 1, "max_price": 5, "currency": "USD"}
    page = search.fulltext_search(query=words, filters=raw, limit=5)
    assert page.total == 0 and page.mode == "ilike_fallback"
    dropped = {tuple(entry.dropped): entry for entry in page.if_dropped}
    groups = filtering.one_dropped(search._resolved(raw))
    lifted = {tuple(names): narrowed for names, narrowed in groups}
    assert set(dropped) == {("query",), *lifted}
    alone = search.fulltext_search(query=None, filters=raw, limit=1)
    assert (dropped[("query",)].total, dropped[("query",)].total_exact) == (alone.total, True)
    modes = set()
    for names, narrowed in lifted.items():
        again = search.fulltext_search(query=words, filters=narrowed, limit=1)
        assert again.total_exact, "past the cap: the count is a lower bound, the total an estimate"
        assert (dropped[names].total, dropped[names].total_exact) == (again.total, True), names
        modes.add(again.mode)
    # full text's counts where it matches, the substrings' where it does not
    assert ("fulltext" in modes) == (words == "балкон") and "ilike_fallback" in modes
    assert dropped[("max_price",)].total > 0


def test_groups_one_read_of_the_substrings_leaves_unsettled_are_counted_each(settings):
    from listings.search import filtering

    raw = {"city": "Київ", "rooms_count": 1, "max_price": 5, "currency": "USD"}
    truth = {
        tuple(names): search.fulltext_search(query="Оболон", filters=narrowed, limit=1).total
        for names, narrowed in filtering.one_dropped(search._resolved(raw))
    }
    cap = 3  # the read stops at 4 listings: groups with fewer are counted alone
    assert any(found > cap for found in truth.values())
    assert any(found <= cap for found in truth.values())
    settings.TOTAL_COUNT_CAP = cap
    page = search.fulltext_search(query="Оболон", filters=raw, limit=5)
    dropped = {tuple(entry.dropped): (entry.total, entry.total_exact) for entry in page.if_dropped}
    del dropped[("query",)]
    assert dropped == {names: (min(found, cap), found <= cap) for names, found in truth.items()}


def test_substrings_are_not_read_again_when_the_page_took_longer_than_the_time_left():
    import time

    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    from listings.search import filtering, text

    filters = search._resolved({"city": "Львів"})
    groups = filtering.one_dropped(filters)
    with CaptureQueriesContext(connections["listings"]) as read:
        deadline = time.monotonic() + 10
        quick = text._without_each("зюзюкавиця", filters, groups, deadline, took_ms=5)
    assert [names for names, _ in quick] == [["query"], ["city"], ["listing_status"]]
    # the filters alone; full text under each group dropped; one read of the substrings
    assert len(read) == 3 and "FILTER" in read[-1]["sql"]
    assert quick[1][1] == quick[2][1] == (0, True)  # the word is nowhere
    with CaptureQueriesContext(connections["listings"]) as read:
        deadline = time.monotonic() + 10
        slow = text._without_each("зюзюкавиця", filters, groups, deadline, took_ms=50_000)
    # a page that took past the time left: the substrings are not read again
    assert [names for names, _ in slow] == [["query"]] and len(read) == 2
    assert slow[0][1] == quick[0][1] and slow[0][1][0] > 0


def test_a_page_with_listings_or_past_the_end_has_no_if_dropped():
    assert search.semantic_search(query=REQUEST, limit=3, interpret=True).if_dropped is None
    far = search.fulltext_search(query=None, filters={"city": "Львів"}, limit=5, offset=10000)
    assert far.total > 0 and not far.listings and far.if_dropped is None


def test_a_count_past_its_time_is_left_out_and_the_connection_still_serves(monkeypatch):
    import time

    from django.db.models.expressions import RawSQL

    from listings.filterslots import FilterValues
    from listings.search import filtering, understood

    class Slow(FilterValues):  # every row takes 20 ms to match
        def queryset(self, *args):
            sleep = RawSQL("0 * length(pg_sleep(0.02)::text)", [])
            return super().queryset(*args).filter(id__gt=sleep)

    real = filtering.filter_values

    def slow(filters, rates):  # the counts' values only, not the page's
        found = real(filters, rates)
        return Slow(found.filters, found.key, found.names, found.values)

    monkeypatch.setattr(filtering, "filter_values", slow)
    monkeypatch.setattr(understood, "IF_DROPPED_BUDGET_MS", 150)
    filtering._COUNTS.clear()  # compiled with the sleep, and forgotten after
    started = time.monotonic()
    page = search.semantic_search(query=EMPTIED, limit=5, interpret=True)
    assert time.monotonic() - started < 5  # not 5 groups × 1 001 rows × 20 ms
    assert page.total == 0 and page.if_dropped == []
    monkeypatch.undo()
    filtering._COUNTS.clear()
    again = search.semantic_search(query=EMPTIED, limit=5, interpret=True)
    assert [entry.dropped for entry in again.if_dropped][:2] == [["city"], ["listing_status"]]


def test_one_read_counts_what_a_count_each_counts_and_stops_at_its_time():
    import time

    from django.db.models.expressions import RawSQL

    from listings.search import filtering

    filters = search._resolved({"city": "Львів", "min_rooms": 2, "max_floor": 150})
    groups = [names for names, _ in filtering.one_dropped(filters)]
    each = filtering.Matches().counts(
        [lifted for _, lifted in filtering.one_dropped(filters)], 5000
    )
    read = filtering.Matches().sampled(filters, groups, 5000)
    # where one read of all of them settles a count, it is the count of that group alone
    # (here the city's lifted fills the read: more than the cap)
    assert len(read) == len(each) == len(groups) and not each[0][1]
    assert all(found in {None, counted} for found, counted in zip(read, each, strict=True))
    # under the cap, every one is settled
    few = search._resolved({"city": "Львів", "rooms_count": 5, "max_floor": 3})
    few_groups = filtering.one_dropped(few)
    expected = filtering.Matches().counts([lifted for _, lifted in few_groups], 5000)
    assert filtering.Matches().sampled(few, [names for names, _ in few_groups], 5000) == expected
    assert all(exact for _, exact in expected)

    def slow(queryset):  # every listing matches, each after 5 ms
        return queryset.filter(id__gt=RawSQL("0 * length(pg_sleep(0.005)::text)", []))

    started = time.monotonic()
    assert filtering.Matches(("every listing, slowly",), slow).sampled(filters, groups, 200) is None
    assert time.monotonic() - started < 5  # 1 001 × 5 ms: cut at 200 ms
    # the statement cut short: the connection serves the next call
    assert search.fulltext_search(query="квартира", filters={"city": "Львів"}, limit=1).total
    assert filtering.Matches().sampled(filters, groups, 5000) == read
