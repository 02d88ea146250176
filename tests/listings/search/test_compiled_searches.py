"""Searches through statements compiled once per shape (listings.compiled) answer exactly as
the ORM's statements built anew for each call do: the same pages, totals and paths, for
filter combinations, thresholds, metrics, offsets and every text mode."""

from __future__ import annotations

import pytest
from django.conf import settings

from demo.generator import duplicate_of
from listings import compiled, market, search, vectorplan
from listings.models import PropertyListing
from listings.search import hybrid as hybrid_search
from listings.search import stats as stats_search
from listings.search import text as text_search
from listings.search import vector as vector_search

pytestmark = pytest.mark.usefixtures("listings_access")


class LeftToTheOrm(compiled.Statements):
    """Compiles nothing: every statement is built and sent by the ORM, as before."""

    def statement(self, *args, **kwargs):
        return compiled.UNCOMPILABLE


CACHES = [
    (vector_search, "_PAGES"),
    (vector_search, "_BY_IDS"),
    (text_search, "_TEXT"),
    (hybrid_search, "_CARDS"),
    (stats_search, "_STATS"),
    (market, "_TRENDS"),
    (market, "_COMPARABLES"),
    (market, "_DUPLICATES"),
    (market, "_LISTING"),
]


def both_ways(monkeypatch, call, *, compiles=True):
    """`call()` with compiled statements (twice: compiled, then reused) and through the ORM."""
    for module, name in CACHES:
        getattr(module, name).clear()
    first, reused = call(), call()
    assert compiled_statements() > 0 or not compiles  # the first call compiled what it sent
    with monkeypatch.context() as patched:
        for module, name in CACHES:
            patched.setattr(module, name, LeftToTheOrm())
        orm = call()
    return first, reused, orm


def compiled_statements():
    held = [value for module, name in CACHES for value in getattr(module, name)._cache.values()]
    return sum(statement is not compiled.UNCOMPILABLE for statement in held)


def same_page(page):
    return page.model_dump(exclude={"embedding_note"})


QUERY = "світла квартира з балконом біля парку"
SEMANTIC = [
    {},
    {"city": "Київ"},
    {"city": "Львів", "rooms_count": 2},
    {"deal_type": "rent", "max_price": 20000, "currency": "UAH"},
    {"has_balcony": True, "min_area": 40},
    {"min_price_per_m2": 500, "max_price_per_m2": 2500, "currency": "USD"},
]


@pytest.mark.parametrize("filters", SEMANTIC)
def test_semantic_pages_match_the_orms(monkeypatch, filters):
    first, reused, orm = both_ways(
        monkeypatch, lambda: search.semantic_search(query=QUERY, filters=filters, limit=7)
    )
    assert same_page(first) == same_page(reused) == same_page(orm)
    assert first.listings, filters
    if first.index_used == search.EXACT_PATH:  # its page's cards by id, in one array
        assert vector_search._BY_IDS._cache


@pytest.mark.parametrize(
    "options",
    [
        {"offset": 5, "limit": 5},
        {"min_similarity": 0.2},
        {"distance_metric": "l2"},
        {"distance_metric": "inner_product", "filters": {"city": "Київ"}},
    ],
)
def test_semantic_options_match_the_orms(monkeypatch, options):
    first, reused, orm = both_ways(
        monkeypatch, lambda: search.semantic_search(query=QUERY, **options)
    )
    assert same_page(first) == same_page(reused) == same_page(orm)


def test_two_queries_of_one_shape_get_their_own_neighbours(monkeypatch):
    # the statement is reused; the vector it sends is each call's own
    vectorplan.forget_plans()
    one = search.semantic_search(query="будинок з ділянкою за містом", limit=5)
    other = search.semantic_search(query="офіс у центрі міста", limit=5)
    assert [c.id for c in one.listings] != [c.id for c in other.listings]
    _, _, orm = both_ways(
        monkeypatch, lambda: search.semantic_search(query="офіс у центрі міста", limit=5)
    )
    assert [c.id for c in other.listings] == [c.id for c in orm.listings]


def test_more_like_this_matches_the_orms_and_leaves_the_listing_out(monkeypatch):
    from listings.models import PropertyListing

    ids = list(
        PropertyListing.objects.filter(embedding__isnull=False)
        .order_by("id")
        .values_list("id", flat=True)[:2]
    )
    pages = {}
    for listing_id in ids:
        first, reused, orm = both_ways(
            monkeypatch,
            lambda listing_id=listing_id: search.similar_to_listing(listing_id=listing_id, limit=6),
        )
        assert same_page(first) == same_page(reused) == same_page(orm)
        assert listing_id not in [card.id for card in first.listings]
        pages[listing_id] = [card.id for card in first.listings]
    assert pages[ids[0]] != pages[ids[1]]


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "балкон"},
        {"query": "квартира", "filters": {"city": "Київ"}, "offset": 10},
        {"query": "квартира", "sort_by": "price_asc"},
        {"query": "zzzqx балкон"},  # no listing has both: the substring fallback
        {"query": "балк"},  # a part of a word: no lexeme, the substring fallback finds it
        {"query": "ремон квар", "filters": {"city": "Київ"}, "limit": 5},
        {"query": "100% _балк"},  # LIKE's own characters, escaped
        {"filters": {"city": "Львів"}, "sort_by": "date_desc"},
        {"filters": {"deal_type": "sale"}, "sort_by": "price_desc", "limit": 20},
    ],
)
def test_full_text_and_filter_pages_match_the_orms(monkeypatch, arguments):
    first, reused, orm = both_ways(monkeypatch, lambda: search.fulltext_search(**arguments))
    assert same_page(first) == same_page(reused) == same_page(orm)
    if arguments.get("query") in {"балк", "ремон квар"}:
        assert first.mode == "ilike_fallback" and first.listings


def test_words_of_one_substring_shape_find_their_own_listings(monkeypatch):
    """The ILIKE fallback's statement has a placeholder per word: two requests of as many
    words share it, each finding its own listings."""
    balk, lodzh = (search.fulltext_search(query=word, limit=5) for word in ("балк", "лоджі"))
    assert balk.mode == lodzh.mode == "ilike_fallback"
    assert balk.total != lodzh.total
    _, _, orm = both_ways(monkeypatch, lambda: search.fulltext_search(query="лоджі", limit=5))
    assert same_page(lodzh) == same_page(orm)


@pytest.mark.parametrize(
    "query",
    ["квартира з балконом біля парку", "zzzqx балкон світла", "flat with a park view"],
)
def test_hybrid_pages_match_the_orms(monkeypatch, query):
    first, reused, orm = both_ways(monkeypatch, lambda: search.hybrid_search(query=query))
    assert same_page(first) == same_page(reused) == same_page(orm)
    assert first.listings
    text_only = [card for card in first.listings if card.semantic_rank is None]
    if text_only:  # their cards (with the text's headline) came by id, in one array
        assert hybrid_search._CARDS._cache


def test_different_words_of_one_shape_rank_their_own_matches(monkeypatch):
    balcony = search.fulltext_search(query="балкон", limit=5)
    park = search.fulltext_search(query="парк", limit=5)
    assert balcony.mode == park.mode == "fulltext"
    assert [c.id for c in balcony.listings] != [c.id for c in park.listings]
    _, _, orm = both_ways(monkeypatch, lambda: search.fulltext_search(query="парк", limit=5))
    assert same_page(park) == same_page(orm)


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"group_by": "city"},
        {"filters": {"city": "Київ"}, "group_by": "deal_type", "currency": "UAH"},
        {"filters": {"deal_type": "sale", "min_rooms": 2}, "group_by": "rooms_count"},
        {"filters": {"min_area": 900000}},  # nothing kept: still one row of zeros
        {"filters": {"min_area": 900000}, "group_by": "city"},
    ],
)
def test_stats_match_the_orms(monkeypatch, arguments):
    first, reused, orm = both_ways(monkeypatch, lambda: search.listing_stats(**arguments))
    assert first.model_dump() == reused.model_dump() == orm.model_dump()
    assert first.groups or arguments.get("group_by")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"filters": {"city": "Київ", "deal_type": "sale"}, "period": "quarter"},
        {"filters": {"deal_type": "rent_long"}, "group_by": "city", "currency": "UAH"},
        {"filters": {"listing_status": "active"}, "group_by": "rooms_count"},
    ],
)
def test_price_trends_match_the_orms(monkeypatch, arguments):
    first, reused, orm = both_ways(monkeypatch, lambda: market.price_trends(**arguments))
    assert first.model_dump() == reused.model_dump() == orm.model_dump()
    assert first.series and any(point.count for point in first.series[0].points)


def test_market_context_matches_the_orms_for_every_kind_of_listing(monkeypatch):
    """Listings with and without a district, an area, a price, rooms or a city: each is
    another statement (None is `IS NULL` or no condition), their values placeholders."""
    ids = set(PropertyListing.objects.order_by("id").values_list("id", flat=True)[:12])
    for column in ("district", "total_area", "price", "rooms_count", "city", "deal_type"):
        missing = PropertyListing.objects.filter(**{f"{column}__isnull": True})
        ids |= set(missing.order_by("id").values_list("id", flat=True)[:3])
    scopes = set()
    cities = dict(PropertyListing.objects.filter(id__in=ids).values_list("id", "city"))
    for listing_id in sorted(ids):
        for currency in ("USD", "UAH"):
            first, reused, orm = both_ways(
                monkeypatch,
                lambda: market.market_context(listing_id=listing_id, currency=currency),  # noqa: B023
                compiles=bool(cities[listing_id]),  # no city: no comparables to look for
            )
            assert first.model_dump() == reused.model_dump() == orm.model_dump(), listing_id
            scopes.add(first.scope)
    assert {"district", "city"} <= scopes


def test_find_duplicates_matches_the_orms_for_planted_and_ordinary_listings(monkeypatch):
    """Its candidates' statement takes the listing's values (NULL floors, no district, no
    embedding: other shapes) and reads the listing's embedding itself."""
    ids = list(PropertyListing.objects.order_by("id").values_list("id", flat=True)[:400])
    planted = [i for i in ids if duplicate_of(settings.DEMO_SEED, i) is not None][:15]
    for column in ("floor", "district", "embedding", "floors_count"):
        missing = PropertyListing.objects.filter(**{f"{column}__isnull": True})
        planted += list(missing.order_by("id").values_list("id", flat=True)[:2])
    found = 0
    for listing_id in [*planted, *ids[:10]]:
        first, reused, orm = both_ways(
            monkeypatch,
            lambda: market.find_duplicates(listing_id=listing_id),  # noqa: B023
        )
        assert first.model_dump() == reused.model_dump() == orm.model_dump(), listing_id
        found += len(first.duplicates)
    assert found >= 10  # pairs were there to be found


def test_a_statement_that_can_match_nothing_is_left_to_the_orm():
    """Grouped trends of a filter no listing meets: the groups are none, the IN list empty;
    the ORM sends no statement for it and answers with no series points."""
    market._TRENDS.clear()
    trends = market.price_trends(filters={"min_area": 900000}, group_by="city")
    assert trends.series == []
    assert compiled.UNCOMPILABLE in market._TRENDS._cache.values()


def test_every_statement_of_the_main_searches_is_compiled():
    for module, name in CACHES:
        getattr(module, name).clear()
    search.semantic_search(query=QUERY)
    search.semantic_search(query=QUERY, filters={"city": "Львів", "rooms_count": 2})
    search.similar_to_listing(listing_id=search.semantic_search(query=QUERY).listings[0].id)
    search.fulltext_search(query="балкон")
    search.fulltext_search(filters={"city": "Київ"}, sort_by="price_asc")
    search.fulltext_search(query="балк ремон")
    search.hybrid_search(query="zzzqx балкон світла")
    search.listing_stats(filters={"city": "Київ"})
    search.listing_stats(group_by="deal_type")
    market.price_trends(filters={"deal_type": "sale"}, group_by="city")
    held = {
        (name, key[-1][:2]): statement
        for module, name in CACHES
        for key, statement in getattr(module, name)._cache.items()
    }
    assert len(held) >= 12
    left = [key for key, statement in held.items() if statement is compiled.UNCOMPILABLE]
    assert left == []
