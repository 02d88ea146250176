"""The staff admin on the real embedded PostgreSQL: read-only, searchable, cheap to page."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from django.contrib import admin as django_admin
from django.contrib.auth import get_user_model
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from listings import admin as listings_admin
from listings import market, search
from listings.admin import changelist
from listings.models import PropertyListing, PropertyType
from tests.reposts import OUR_SITE, reposted_listing

pytestmark = [
    pytest.mark.django_db(databases=["default", "listings"]),
    pytest.mark.usefixtures("listings_access"),
]

CHANGELIST = reverse("admin:listings_propertylisting_changelist")
SEMANTIC = reverse("admin:listings_propertylisting_semantic")
NBSP = "\u00a0"
# A service column fetched as a column (the full-text rank may read search_vector).
SELECTED_SERVICE_COLUMN = re.compile(
    r'(?:SELECT|,) "property_listings"\."(?:embedding|search_vector|raw_data_id)"(?:,| FROM)'
)


def change_url(listing_id: int) -> str:
    return reverse("admin:listings_propertylisting_change", args=[listing_id])


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-not-used")
    client.force_login(user)
    return client


@pytest.fixture
def listing_admin():
    return django_admin.site._registry[PropertyListing]


def listed_ids(response) -> list[int]:
    """Listing ids in the changelist's rows, in order."""
    html = response.content.decode()
    return [
        int(pk) for pk in re.findall(r'<th class="field-id"><a href="[^"]*/(\d+)/change/', html)
    ]


def _ids(page) -> list[int]:
    return [card.id for card in page.listings]


def text(response) -> str:
    return unescape(response.content.decode())


# --- the changelist --------------------------------------------------------------------


def test_changelist_shows_listing_columns(staff):
    response = staff.get(CHANGELIST)
    assert response.status_code == 200
    newest = PropertyListing.objects.order_by("-id").first()
    assert listed_ids(response)[0] == newest.id
    body = text(response)
    for header in ("заголовок", "місто", "район", "тип угоди", "ціна", "кімнат", "площа"):
        assert header in body.lower()
    assert "Пошук за змістом" in body
    assert "3" + NBSP + "000 оголошень" in body  # exact below the count cap


def test_price_is_one_column_with_its_currency():
    assert listings_admin.format_price(65000, "USD") == f"65{NBSP}000{NBSP}USD"
    assert listings_admin.format_price(1250.5, "EUR") == f"1{NBSP}250,5{NBSP}EUR"
    assert listings_admin.format_price(None, "USD") is None
    assert listings_admin.format_area(71.6) == f"71,6{NBSP}м²"


def test_changelist_price_cell_is_formatted(staff):
    listing = PropertyListing.objects.filter(price__isnull=False).order_by("-id").first()
    response = staff.get(CHANGELIST)
    expected = listings_admin.format_price(listing.price, listing.currency)
    assert expected in response.content.decode()


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"deal_type__exact": "rent_long"}, {"deal_type": "rent_long"}),
        ({"listing_status__exact": "sold"}, {"listing_status": "sold"}),
        ({"city": "Львів"}, {"city": "Львів"}),
        ({"property_type": "2"}, {"property_type_id": 2}),
        ({"building_type__exact": "brick"}, {"building_type": "brick"}),
        ({"renovation_status__exact": "euro"}, {"renovation_status": "euro"}),
        ({"rooms_count": "2"}, {"rooms_count": 2}),
        ({"rooms_count": "5+"}, {"rooms_count__gte": 5}),
        ({"heating_type": "autonomous"}, {"heating_type": "autonomous"}),
        ({"bathroom_type": "separate"}, {"bathroom_type": "separate"}),
        ({"parking_type": "underground"}, {"parking_type": "underground"}),
        ({"window_view": "water"}, {"window_view": "water"}),
    ],
)
def test_each_filter_narrows_the_list(staff, params, expected):
    response = staff.get(CHANGELIST, {**params, "all": ""})
    assert response.status_code == 200
    matching = PropertyListing.objects.filter(**expected)
    ids = listed_ids(response)
    assert ids, params
    assert set(ids) <= set(matching.values_list("id", flat=True))
    total = matching.count()
    if total <= 200:  # "show all" lists every match
        assert len(ids) == total
    assert f"{listings_admin._number(total, 0)} оголошен" in text(response)


@pytest.mark.parametrize(
    ("params", "filters"),
    [
        ({"deal_type": "rent_long", "city": "Львів"}, {"deal_type": "rent_long", "city": "Львів"}),
        ({"listing_status": "sold", "city": "Львів"}, {"listing_status": "sold", "city": "Львів"}),
        ({"property_type": "2", "rooms_count": "5+"}, {"property_type_id": 2, "min_rooms": 5}),
        (
            {"renovation_status": "euro", "rooms_count": "3", "city": "Львів"},
            {"renovation_status": "euro", "rooms_count": 3, "city": "Львів"},
        ),
        (  # "з ремонтом": cosmetic, euro or designer
            {"renovation_status": "renovated", "rooms_count": "3", "city": "Львів"},
            {"renovation_status": "renovated", "rooms_count": 3, "city": "Львів"},
        ),
    ],
)
def test_sidebar_filters_are_the_tools_filters(staff, params, filters):
    response = staff.get(CHANGELIST, {**params, "all": ""})
    assert response.status_code == 200
    # The admin lists every status unless told: the tools' filters with listing_status "any".
    page = search.fulltext_search(filters={"listing_status": "any", **filters}, limit=50)
    assert page.total_exact and 0 < page.total <= 200, page.total  # "show all" lists them all
    assert f"{listings_admin._number(page.total, 0)} оголошен" in text(response)
    assert {card.id for card in page.listings} <= set(listed_ids(response))


def test_a_sidebar_value_the_tools_refuse_is_a_bad_lookup_not_an_error(staff):
    refused = staff.get(CHANGELIST, {"deal_type": "no-such-deal"})
    assert refused.status_code == 302 and "e=1" in refused["Location"]  # Django's bad lookup
    narrowed = search.narrowed(PropertyListing.objects.all(), {"city": "Львів"})
    assert narrowed.count() == PropertyListing.objects.filter(city="Львів").count()


@pytest.mark.parametrize(
    "params",
    [{"raw_data_id": "1"}, {"embedding__isnull": "True"}, {"description__icontains": "сад"}],
)
def test_url_filters_beyond_the_sidebar_are_refused(staff, params):
    assert staff.get(CHANGELIST, params).status_code == 400


def test_filter_choices_come_from_enums_and_a_cached_city_list(staff, listing_admin):
    from listings import describe

    describe._live_cache.clear()
    staff.get(CHANGELIST)
    with CaptureQueriesContext(connections["listings"]) as queries:
        response = staff.get(CHANGELIST)
    body = text(response)
    for city in ("Київ", "Львів", "Івано-Франківськ"):
        assert f'<a href="?city={quote(city)}">{city}</a>' in body
    assert "подобова оренда" in body and "Земельна ділянка" in body
    assert not any("DISTINCT" in q["sql"] or "GROUP BY" in q["sql"] for q in queries)
    cities = listings_admin.cached_cities()
    assert cities.index("Вінниця") < cities.index("Івано-Франківськ") < cities.index("Київ")


def test_search_with_an_inflected_word_finds_listings(staff):
    response = staff.get(CHANGELIST, {"q": "квартири"})
    assert response.status_code == 200
    ids = listed_ids(response)
    assert ids
    texts = PropertyListing.objects.filter(id__in=ids).values_list(
        "title", "description", "generated_description", "address_raw"
    )
    assert all("квартир" in " ".join(map(str, row)).lower() for row in texts)
    assert any("квартира" in (row[0] or "").lower() for row in texts)
    # the same morphology as search.fulltext_search
    page = search.fulltext_search(query="квартири", filters={"listing_status": "any"}, limit=5)
    assert page.mode == "fulltext"
    matched, _ = search.fulltext_queryset(query="квартири")
    assert set(ids) <= set(matched.values_list("id", flat=True))


def test_search_is_ranked_by_relevance_and_paginates(staff, listing_admin, monkeypatch):
    monkeypatch.setattr(listing_admin, "list_per_page", 10)
    first = staff.get(CHANGELIST, {"q": "балкон"})
    second = staff.get(CHANGELIST, {"q": "балкон", "p": "2"})
    assert len(listed_ids(first)) == 10
    assert listed_ids(second) and not set(listed_ids(first)) & set(listed_ids(second))
    best = search.fulltext_search(query="балкон", filters={"listing_status": "any"}, limit=10)
    assert listed_ids(first) == _ids(best)


def test_a_word_in_most_listings_is_ranked_as_the_tool_ranks_it_then_newest_first(
    staff, listing_admin, monkeypatch, settings
):
    # The tool ranks the FTS_RANK_CANDIDATES newest matches; the admin shows those first in
    # the same order, then every other match newest first (its count stays all matches).
    settings.FTS_RANK_CANDIDATES = 15
    settings.TOTAL_COUNT_CAP = 100_000
    monkeypatch.setattr(listing_admin, "list_per_page", 10)
    filters = {"listing_status": "any"}
    best = search.fulltext_search(query="квартира", filters=filters, limit=15)
    assert best.total > 30
    first = listed_ids(staff.get(CHANGELIST, {"q": "квартира"}))
    second = listed_ids(staff.get(CHANGELIST, {"q": "квартира", "p": "2"}))
    third = listed_ids(staff.get(CHANGELIST, {"q": "квартира", "p": "3"}))
    assert first + second[:5] == _ids(best)
    assert first != sorted(first, reverse=True)  # by rank, not by date
    rest = second[5:] + third
    assert len(rest) == 15 and rest == sorted(rest, reverse=True)
    assert max(rest) < min(_ids(best))  # the unranked matches are older than the ranked


def test_search_falls_back_to_substrings_and_says_so(staff):
    response = staff.get(CHANGELIST, {"q": "імнатн"})
    assert listed_ids(response)
    assert listings_admin.ILIKE_FALLBACK_NOTE in text(response)


def test_a_bad_search_term_is_a_message_not_an_error(staff):
    response = staff.get(CHANGELIST, {"q": "x" * 1001})
    assert response.status_code == 200
    assert "Пошук не виконано" in text(response)
    assert listed_ids(response) == []


def _usd(listing) -> float | None:
    if listing.price is None:
        return None
    return float(listing.price) / settings.EXCHANGE_RATES[listing.currency]


def test_ordering_by_price_converts_currencies_and_puts_unpriced_last(staff, listing_admin):
    column = listing_admin.list_display.index("price_display")
    up = listed_ids(staff.get(CHANGELIST, {"o": str(column), "rooms_count": "2"}))
    down = listed_ids(staff.get(CHANGELIST, {"o": f"-{column}", "rooms_count": "2"}))
    listings = PropertyListing.objects.in_bulk(up + down)
    cheapest = [_usd(listings[i]) for i in up]
    dearest = [_usd(listings[i]) for i in down]
    assert len(up) == 50 and None not in cheapest and None not in dearest
    assert cheapest == sorted(cheapest)
    assert dearest == sorted(dearest, reverse=True)
    everything = [
        _usd(listing)
        for listing in PropertyListing.objects.filter(rooms_count=2, price__isnull=False)
    ]
    assert cheapest[0] == pytest.approx(min(everything))
    assert dearest[0] == pytest.approx(max(everything))
    # the unpriced come last in both directions
    assert PropertyListing.objects.filter(rooms_count=2, price__isnull=True).exists()


def test_ordering_by_area_and_date(staff, listing_admin):
    area = listing_admin.list_display.index("area_display")
    date = listing_admin.list_display.index("published")
    by_area = listed_ids(staff.get(CHANGELIST, {"o": f"-{area}"}))
    largest = PropertyListing.objects.order_by("-total_area", "-id").values_list("id", flat=True)
    assert by_area[:5] == list(largest[:5])
    by_date = listed_ids(staff.get(CHANGELIST, {"o": str(date)}))
    oldest = PropertyListing.objects.order_by("publish_date", "-id").values_list("id", flat=True)
    assert by_date[:5] == list(oldest[:5])


# --- cheap at a million rows -----------------------------------------------------------


def _changelist_queries(client, **params):
    with (
        CaptureQueriesContext(connections["listings"]) as listings,
        CaptureQueriesContext(connections["default"]) as default,
    ):
        response = client.get(CHANGELIST, params)
    assert response.status_code == 200
    return response, _uncommented(listings.captured_queries), default.captured_queries


def _uncommented(queries):
    """The statements without the leading SQL comment naming the view (SQL_COMMENTS)."""
    return [{**query, "sql": re.sub(r"^/\*.*?\*/ ", "", query["sql"])} for query in queries]


@pytest.mark.parametrize("params", [{}, {"city": "Київ"}, {"q": "квартира"}])
def test_changelist_query_count_does_not_grow_with_page_size(
    staff, listing_admin, monkeypatch, params
):
    # Warm the cached filter choices and database facts from empty, so that facts cached by
    # an earlier test cannot expire (META_TTL_SEC) in the middle of this one.
    search._recent.clear()
    staff.get(CHANGELIST, params)
    counts = {}
    for per_page in (10, 100):
        monkeypatch.setattr(listing_admin, "list_per_page", per_page)
        response, on_listings, on_default = _changelist_queries(staff, **params)
        assert len(listed_ids(response)) == per_page
        counts[per_page] = (len(on_listings), len(on_default))
        for query in on_listings:
            sql = query["sql"]
            # never a full COUNT(*) and never the big service columns in a page view
            if "COUNT(" in sql.upper():
                assert "LIMIT" in sql.upper(), sql
            assert not SELECTED_SERVICE_COLUMN.search(sql), sql
    assert counts[10] == counts[100]


def test_without_filters_a_big_table_is_counted_by_the_planner(staff, monkeypatch):
    monkeypatch.setattr(listings_admin.EstimatedCountPaginator, "count_cap", 100)
    response, on_listings, _ = _changelist_queries(staff)
    assert any(query["sql"].startswith("EXPLAIN") for query in on_listings)
    assert not any("COUNT(" in query["sql"].upper() for query in on_listings)
    assert re.search(r"≈\s*3\s000 оголошень", text(response).replace(NBSP, " "))


def test_with_filters_a_big_result_is_estimated_too(staff, monkeypatch):
    monkeypatch.setattr(listings_admin.EstimatedCountPaginator, "count_cap", 100)
    response, on_listings, _ = _changelist_queries(staff, listing_status__exact="active")
    # "≈ 2 472 оголошення" or "≈ 2 475 оголошень": the noun agrees with the estimate
    assert re.search(r"≈\s*[\d\s]+ оголошен(?:ня|ь) \(оцінка\)", text(response).replace(NBSP, " "))
    assert not any("COUNT(" in query["sql"].upper() for query in on_listings)


def test_a_result_estimated_small_is_counted_up_to_the_cap(staff, monkeypatch):
    monkeypatch.setattr(listings_admin.EstimatedCountPaginator, "count_cap", 100)
    monkeypatch.setattr(changelist, "_planner_rows", lambda queryset: 50)  # misestimated
    response, on_listings, _ = _changelist_queries(staff, listing_status__exact="active")
    assert "понад 100 оголошень" in text(response)
    counts = [q["sql"] for q in on_listings if "COUNT(" in q["sql"].upper()]
    assert counts and all("LIMIT 101" in sql for sql in counts)


# --- the detail page -------------------------------------------------------------------


def test_detail_page_groups_fields_and_links_the_source_and_neighbours(staff):
    listing = (
        PropertyListing.objects.filter(embedding__isnull=False, url_source__startswith="https://")
        .order_by("id")
        .first()
    )
    response = staff.get(change_url(listing.id))
    assert response.status_code == 200
    body = text(response)
    for heading in (
        "Основне",
        "Ціна",
        "Розташування",
        "Будинок і квартира",
        "Зручності",
        "Джерело і контакти",
        "Схожі оголошення",
    ):
        assert heading in body
    assert listing.title in body
    assert f'<a href="{listing.url_source}" target="_blank"' in body
    neighbours = market.collapsing(search.similar_to_listing)(
        listing_id=listing.id, filters={"listing_status": "any"}, limit=10
    )
    assert len(neighbours.listings) + neighbours.duplicates_collapsed == 10
    for card in neighbours.listings:
        assert f'href="{change_url(card.id)}" class="neighbour-link"' in body
    first_score = f"{neighbours.listings[0].similarity_score:.3f}".replace(".", ",")
    assert first_score in body
    # read-only: no form fields, no save buttons
    assert 'name="_save"' not in body
    assert "<textarea" not in body


def test_detail_page_never_shows_service_columns(staff):
    listing = PropertyListing.objects.filter(embedding__isnull=False).order_by("id").first()
    vector_start = f"{listing.embedding[0]:.4f}"[:6]
    body = text(staff.get(change_url(listing.id)))
    for column in ("embedding", "search_vector", "raw_data_id", "created_at", "updated_at"):
        assert f"field-{column}" not in body
    assert str(listing.raw_data_id) not in body
    assert "'квартир" not in body  # no tsvector lexemes
    assert vector_start not in body


def test_detail_page_leaves_the_listings_reposts_out_of_its_neighbours(staff):
    """As find_similar_to_listing does: a re-post of this flat is no neighbour of it; the
    note names it, and the duplicates block below links it."""
    listing_id, reposts, raw_ids = reposted_listing({"listing_status": "any"})
    shown = reposts & set(raw_ids)
    body = text(staff.get(change_url(listing_id)))
    neighbours = body.split('id="neighbours"', 1)[1].split('id="market-context"', 1)[0]
    for repost in shown:
        assert f'href="{change_url(repost)}" class="neighbour-link"' not in neighbours
        assert f'href="{change_url(repost)}" class="duplicate-link"' in body
    ids = ", ".join(f"#{i}" for i in sorted(shown, key=raw_ids.index))
    assert listings_admin.REPOSTS_LEFT_OUT_NOTE.format(ids=ids) in neighbours


def test_listing_without_embedding_shows_neighbours_of_its_text_embedded_now(staff):
    listing = PropertyListing.objects.filter(embedding__isnull=True).order_by("id").first()
    response = staff.get(change_url(listing.id))
    assert response.status_code == 200
    body = text(response)
    assert listings_admin.EMBEDDED_NOW_ADMIN_NOTE in body
    assert body.count("neighbour-link") == listings_admin.NEIGHBOURS_LIMIT
    assert f"#{listing.id} " not in body.split(listings_admin.EMBEDDED_NOW_ADMIN_NOTE, 1)[1]


def test_unknown_listing_redirects_with_a_message(staff):
    response = staff.get(change_url(10**12), follow=True)
    assert response.status_code == 200
    assert response.redirect_chain


# --- semantic search page --------------------------------------------------------------


def test_changelist_links_to_the_semantic_search_page(staff):
    assert f'href="{SEMANTIC}"' in staff.get(CHANGELIST).content.decode()


def test_a_sentence_no_listing_has_every_word_of_links_to_the_search_by_meaning(staff):
    sentence = "двокімнатна квартира у Львові до 80 тисяч доларів"
    response = staff.get(CHANGELIST, {"q": sentence})
    assert response.status_code == 200 and listed_ids(response) == []
    link = f'href="{SEMANTIC}?mode=hybrid&amp;query={quote(sentence)}"'
    assert link in response.content.decode()
    understood = staff.get(SEMANTIC, {"mode": "hybrid", "query": sentence})
    assert "Зрозуміли" in text(understood) and "Львів" in text(understood)
    # A search that finds listings is not offered the link.
    assert "search-by-meaning" not in staff.get(CHANGELIST, {"q": "квартири"}).content.decode()


def test_semantic_search_page_shows_scored_results_with_links(staff):
    empty = staff.get(SEMANTIC)
    assert empty.status_code == 200
    assert "Пошук за змістом" in text(empty)
    query = "земельна ділянка під забудову"
    response = staff.get(SEMANTIC, {"query": query, "mode": "semantic", "limit": "10"})
    assert response.status_code == 200
    body = text(response)
    expected = market.collapsing(search.semantic_search)(query=query, limit=10, interpret=True)
    for card in expected.listings:
        assert f'href="{change_url(card.id)}" class="result-link"' in body
    assert f"{expected.listings[0].similarity_score:.3f}".replace(".", ",") in body


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_semantic_page_pages_through_the_results(staff, mode):
    query = {"query": "квартира з балконом у Львові", "mode": mode, "limit": "10"}
    first = staff.get(SEMANTIC, query)
    links = first.context["links"]
    assert (links["first"], links["last"], links["previous"]) == (1, 10, None)
    second = staff.get(SEMANTIC + links["next"])
    assert second.context["links"]["first"] == 11
    assert "показано 11–20" in text(second)
    assert 'class="previous-page"' in text(second)
    shown = [row["card"].id for page in (first, second) for row in page.context["results"]]
    run = market.collapsing(search.hybrid_search if mode == "hybrid" else search.semantic_search)
    expected = [
        card.id
        for offset in (0, 10)
        for card in run(query=query["query"], limit=10, offset=offset, interpret=True).listings
    ]
    assert shown == expected  # one order, the pages' duplicates folded as agents get them
    back = staff.get(SEMANTIC + second.context["links"]["previous"])
    assert [row["card"].id for row in back.context["results"]] == shown[:10]
    # a chip removed is another search, from its first page
    assert all("offset" not in chip["remove"] for chip in second.context["chips"])
    # past the end (an estimated total promised more): a way back, not a dead end
    past = staff.get(SEMANTIC, {**query, "offset": "10000"})
    assert "Нічого не знайдено." in text(past) and 'class="previous-page"' in text(past)
    assert "показано 0" in text(past)
    for hand_edited in ("-5", "abc", "99999999"):
        edited = staff.get(SEMANTIC, {**query, "offset": hand_edited})
        assert edited.status_code == 200 and edited.context["links"]["first"] == 1


def test_the_search_page_folds_a_re_posted_listing_into_one_row_naming_its_copies(staff):
    """A planted copy's own title finds it and its re-posts: one row, the others named in it
    (find_duplicates' rule, as the tools fold them); the next page starts after them all."""
    copies = PropertyListing.objects.exclude(url_source__startswith=OUR_SITE).order_by("id")
    for copy in copies[:40]:
        reposts = {m.id for m in market.find_duplicates(listing_id=copy.id).duplicates}
        query = {"query": copy.title, "mode": "semantic", "limit": "10", "city": copy.city}
        response = staff.get(SEMANTIC, query)
        rows = response.context["results"]
        folded = [row["card"] for row in rows if row["card"].duplicate_ids]
        if reposts and folded:
            break
    else:
        raise AssertionError("no planted copy's title finds it with a re-post")
    page = response.context["page"]
    assert page.duplicates_collapsed == sum(len(card.duplicate_ids) for card in folded) >= 1
    shown = {row["card"].id for row in rows}
    assert not shown & {i for card in folded for i in card.duplicate_ids}
    body = text(response)
    first = folded[0]
    named = ", ".join(f"#{i}" for i in first.duplicate_ids)
    assert f"({first.duplicates_note}: {named})" in body
    links = response.context["links"]
    assert links["last"] == len(rows) + page.duplicates_collapsed
    if links["next"]:
        assert f"offset={links['last']}" in links["next"]


def test_hybrid_search_with_filters(staff):
    response = staff.get(
        SEMANTIC,
        {"query": "квартира з балконом", "mode": "hybrid", "city": "Київ", "deal_type": "sale"},
    )
    assert response.status_code == 200
    expected = market.collapsing(search.hybrid_search)(
        query="квартира з балконом",
        filters={"city": "Київ", "deal_type": "sale"},
        limit=20,
        interpret=True,
    )
    body = text(response)
    assert expected.listings
    for card in expected.listings:
        assert f'href="{change_url(card.id)}" class="result-link"' in body
        assert card.city == "Київ"
    assert "Оцінка RRF" in body


def test_search_errors_are_messages_not_tracebacks(staff, monkeypatch):
    from listings.errors import EmbeddingUnavailable

    def broken(**kwargs):
        raise EmbeddingUnavailable("The embedding service is not reachable.")

    monkeypatch.setattr(search, "semantic_search", broken)
    response = staff.get(SEMANTIC, {"query": "будинок", "mode": "semantic"})
    assert response.status_code == 200
    body = text(response)
    assert "Пошук не виконано: The embedding service is not reachable." in body
    assert "Traceback" not in body


def test_semantic_page_says_while_the_embeddings_are_being_filled_in(staff, monkeypatch):
    from listings import embedders_progress
    from listings.admin.listing import EMBEDDING_IN_PROGRESS, EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY

    query = {"query": "будинок з ділянкою", "mode": "semantic", "limit": "10"}
    embedders_progress.forget()
    assert EMBEDDING_IN_PROGRESS.format(done=25, total=60) not in text(staff.get(SEMANTIC, query))
    monkeypatch.setattr(
        embedders_progress, "_read", lambda: embedders_progress.EmbeddingProgress(25, 60, True)
    )
    embedders_progress.forget()
    try:
        for mode in ("semantic", "hybrid"):
            body = text(staff.get(SEMANTIC, {**query, "mode": mode}))
            assert EMBEDDING_IN_PROGRESS.format(done=25, total=60) in body
        # An English request's hybrid search has no text side: the banner says so.
        english = {**query, "query": "house with a hammock", "mode": "hybrid"}
        body = text(staff.get(SEMANTIC, english))
        assert EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY.format(done=25, total=60) in body
        assert EMBEDDING_IN_PROGRESS.format(done=25, total=60) not in body
    finally:
        embedders_progress.forget()


def test_semantic_form_rejects_an_unknown_mode(staff):
    response = staff.get(SEMANTIC, {"query": "будинок", "mode": "sql"})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()


# --- read-only for everyone ------------------------------------------------------------


def test_superuser_cannot_add_change_or_delete(staff):
    listing = PropertyListing.objects.order_by("id").first()
    title = listing.title
    assert staff.get(reverse("admin:listings_propertylisting_add")).status_code == 403
    assert staff.post(reverse("admin:listings_propertylisting_add"), {}).status_code == 403
    assert staff.post(change_url(listing.id), {"title": "змінено"}).status_code == 403
    delete = reverse("admin:listings_propertylisting_delete", args=[listing.id])
    assert staff.get(delete).status_code == 403
    assert staff.post(delete, {"post": "yes"}).status_code == 403
    bulk = staff.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [listing.id], "post": "yes"}
    )
    assert bulk.status_code == 403
    listing.refresh_from_db()
    assert listing.title == title
    assert 'name="action"' not in staff.get(CHANGELIST).content.decode()


def test_index_and_history_pages_work(staff):
    assert staff.get(reverse("admin:index")).status_code == 200
    assert staff.get(reverse("admin:app_list", args=["listings"])).status_code == 200
    listing = PropertyListing.objects.order_by("id").first()
    history = reverse("admin:listings_propertylisting_history", args=[listing.id])
    assert staff.get(history).status_code == 200


def test_property_types_are_read_only_too(staff):
    response = staff.get(reverse("admin:listings_propertytype_changelist"))
    assert response.status_code == 200
    assert "Земельна ділянка" in text(response)
    kind = PropertyType.objects.order_by("id").first()
    detail = staff.get(reverse("admin:listings_propertytype_change", args=[kind.id]))
    assert detail.status_code == 200
    assert 'name="_save"' not in detail.content.decode()
    assert staff.get(reverse("admin:listings_propertytype_add")).status_code == 403
    assert (
        staff.post(reverse("admin:listings_propertytype_change", args=[kind.id]), {}).status_code
        == 403
    )
    delete = reverse("admin:listings_propertytype_delete", args=[kind.id])
    assert staff.post(delete, {"post": "yes"}).status_code == 403


@pytest.mark.parametrize("url", [CHANGELIST, SEMANTIC, "detail"])
def test_non_staff_users_are_sent_to_the_login_page(client, url):
    user = get_user_model().objects.create_user("visitor", password="pw-not-used")
    client.force_login(user)
    if url == "detail":
        url = change_url(PropertyListing.objects.order_by("id").first().id)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_staff_with_view_permission_can_browse(client):
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    # What `migrate` creates once listings has its (unmanaged) initial migration; the
    # content type cache may hold a row an earlier test rolled back.
    ContentType.objects.clear_cache()
    view, _ = Permission.objects.get_or_create(
        codename="view_propertylisting",
        content_type=ContentType.objects.get_for_model(PropertyListing),
        defaults={"name": "Can view оголошення"},
    )
    user = get_user_model().objects.create_user("clerk", password="pw-not-used", is_staff=True)
    user.user_permissions.add(view)
    client.force_login(user)
    assert client.get(CHANGELIST).status_code == 200
    assert client.get(SEMANTIC).status_code == 200
    assert client.get(reverse("admin:listings_propertytype_changelist")).status_code == 403


def _failing_results(error: Exception):
    def get_results(self, request):
        raise error

    return get_results


@pytest.mark.parametrize(
    "cause, message",
    [
        (
            psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
            "took longer than",
        ),
        (psycopg.OperationalError("connection to server at 10.0.0.5 failed"), "not reachable"),
    ],
)
def test_a_page_the_database_cannot_answer_says_so_with_a_503(staff, monkeypatch, cause, message):
    """Django's own changelist queries (a sort no index serves on a large table) run outside
    the search functions: a statement timeout was an HTTP 500 at 1 000 000 listings."""
    from django.db.utils import OperationalError

    error = OperationalError(str(cause))
    error.__cause__ = cause
    monkeypatch.setattr(changelist.ListingChangeList, "get_results", _failing_results(error))
    response = staff.get(CHANGELIST, {"o": "6"})
    assert response.status_code == 503
    page = text(response)
    assert "Сторінку не показано" in page and message in page
    assert "10.0.0.5" not in page and "Traceback" not in page and "canceling" not in page


def test_any_other_error_is_not_taken_for_the_database(staff, monkeypatch):
    monkeypatch.setattr(
        changelist.ListingChangeList, "get_results", _failing_results(ValueError("bug"))
    )
    with pytest.raises(ValueError):
        staff.get(CHANGELIST)


def test_the_renovation_sidebar_offers_any_renovation_done(staff):
    body = staff.get(CHANGELIST).content.decode()
    assert "renovation_status=renovated" in body and ">з ремонтом</a>" in body
