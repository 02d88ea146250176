"""Every MCP tool and resource through the SDK's HTTP client against both foreign variants."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from listings import search, types
from listings.errors import MIXED_DEALS_SORT_WARNING
from tests.fake_ollama import FakeOllama

from . import builder, expect
from .builder import Hostile

pytestmark = pytest.mark.anyio
VARIANTS = list(builder.VARIANTS)
QUERY = "двокімнатна квартира біля метро з балконом"
TEXT_SEARCH_TOOLS = {"search_similar_listings", "search_by_metadata", "hybrid_search"}


class Session:
    """An MCP client whose every call is checked: no internal_error, no leaks, no HTTP 500."""

    def __init__(self, client: Client, recorder: Any) -> None:
        self.client = client
        self.recorder = recorder

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if tool in TEXT_SEARCH_TOOLS:
            # These tests are about the databases, not about reading requests into filters
            # (tests/mcpserver/test_interpret_tools.py): the query is searched as it is.
            arguments = {"interpret": False, **arguments}
        result = await self.client.call_tool(tool, arguments)
        text = getattr(result.content[0], "text", "") if result.content else ""
        where = f"{tool}({builder.dumps(arguments)[:200]})"
        assert not expect.leaks(text), f"{where} shows {expect.leaks(text)}: {text[:500]}"
        if result.is_error:
            assert json.loads(text)["code"] != "internal_error", f"{where}: {text[:500]}"
        return result

    async def ok(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.call(tool, arguments)
        assert not result.is_error, f"{tool}({arguments}) failed: {result.content[0].text[:500]}"
        return result.structured_content

    async def error(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.call(tool, arguments)
        assert result.is_error, f"{tool}({arguments}) should fail"
        return json.loads(result.content[0].text)


@asynccontextmanager
async def session(run, recorder):
    async def hook(response: httpx2.Response) -> None:
        if "json" in response.headers.get("content-type", ""):
            await response.aread()
            recorder.record(response, response.text)
        else:
            recorder.record(response, "")

    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(120.0), event_hooks={"response": [hook]}) as http,
        Client(streamable_http_client(run.server.mcp_url, http_client=http)) as client,
    ):
        yield Session(client, recorder)
    assert not recorder.problems(), recorder.problems()


def ids(page: dict[str, Any]) -> list[int]:
    """Every listing a page returns, the ones folded into a card as duplicates included (the
    hostile rows of one kind are alike enough to be folded)."""
    return [
        listing_id
        for card in page["listings"]
        for listing_id in (card["id"], *(card.get("duplicate_ids") or []))
    ]


def test_the_fake_ollama_returns_768_dimensional_vectors(fake_ollama: FakeOllama):
    answer = httpx.post(
        f"{fake_ollama.url}/api/embed", json={"model": "nomic-embed-text", "input": ["квартира"]}
    ).json()
    assert len(answer["embeddings"]) == 1 and len(answer["embeddings"][0]) == 768


FILTER_CASES = [
    {},
    {"city": "Київ", "deal_type": "sale"},
    {"listing_status": "any", "min_rooms": 1, "max_rooms": 3, "has_balcony": True},
    {"min_price": 10000, "max_price": 200000, "currency": "USD"},
    {"max_price": 2000000, "currency": "UAH", "deal_type": "sale"},
    {"min_area": 30, "max_area": 120, "min_floor": 2, "max_floor": 20},
    {"property_type": "apartment", "published_after": "2024-01-01"},
    {"published_after": "2024-01-01", "published_before": "2025-12-31"},
    {"building_type": "brick", "renovation_status": "euro"},
    {"top_floor": True, "min_floor": 2},
    {"not_top_floor": True, "top_floor": False},
    {"min_kitchen_area": 8, "max_kitchen_area": 20, "max_metro_distance": 1500},
    {"min_building_year": 1990, "max_building_year": 2020},
    {"min_living_area": 15, "max_living_area": 60},
    {"min_price_per_m2": 500, "max_price_per_m2": 3000, "currency": "USD"},
    {"min_floors_count": 5, "max_floors_count": 16},
    {"heating_type": "autonomous", "bathroom_type": "separate"},
    {"has_parking": True, "window_view": "water"},
    {"parking_type": "underground", "has_parking": True},
]


@pytest.mark.parametrize("name", VARIANTS)
async def test_every_tool_with_a_range_of_filters(foreign, recorder, name):
    run = foreign[name]
    async with session(run, recorder) as mcp:
        for filters in FILTER_CASES:
            for tool, extra in (
                ("search_similar_listings", {"query": QUERY}),
                ("search_by_metadata", {"query": "квартира з балконом"}),
                ("search_by_metadata", {}),
                ("hybrid_search", {"query": QUERY}),
                ("listing_stats", {"group_by": "city"}),
            ):
                result = await mcp.call(tool, {**extra, "filters": filters})
                assert not result.is_error, (tool, filters, result.content[0].text[:300])
        for sort_by in ("relevance", "price_asc", "price_desc", "date_desc", "area_desc"):
            page = await mcp.ok(
                "search_by_metadata", {"query": "квартира", "sort_by": sort_by, "limit": 20}
            )
            assert page["listings"], sort_by
        first = await mcp.ok("search_by_metadata", {"filters": {}, "limit": 10, "offset": 0})
        second = await mcp.ok("search_by_metadata", {"filters": {}, "limit": 10, "offset": 10})
        assert not set(ids(first)) & set(ids(second))
        for metric in ("cosine", "l2", "inner_product"):
            await mcp.ok(
                "search_similar_listings", {"query": QUERY, "distance_metric": metric, "limit": 5}
            )
        for group_by in types.GROUP_BY:
            for currency in ("USD", "EUR", "UAH"):
                await mcp.ok("listing_stats", {"group_by": group_by, "currency": currency})
        schema = await mcp.ok("describe_schema", {})
        assert schema["embedding"]["dimension"] == 768
        normal = run.facts["normal_id"]
        similar = await mcp.ok("find_similar_to_listing", {"listing_id": normal, "limit": 10})
        assert similar["listings"] and normal not in ids(similar)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize(
    "listing_id",
    [
        Hostile.ALL_NULL, Hostile.HTML, Hostile.EMOJI, Hostile.RUSSIAN, Hostile.CONTROL,
        Hostile.NULL_CURRENCY, Hostile.BLOCK, Hostile.NULL_STATUS, Hostile.ZERO_VECTORS[0],
        Hostile.HUGE[0],
    ],
)  # fmt: skip
async def test_hostile_rows_are_served_as_they_are(foreign, recorder, name, listing_id):
    async with session(foreign[name], recorder) as mcp:
        card = await mcp.ok("get_listing_by_id", {"listing_id": listing_id})
        assert card["id"] == listing_id
        assert "embedding" not in card and "search_vector" not in card and "raw_json" not in card
        resource = await mcp.client.read_resource(f"listing://{listing_id}")
        assert json.loads(resource.contents[0].text)["id"] == listing_id
        if listing_id == Hostile.CONTROL:
            assert card["title"] == builder.CONTROL_TITLE
        if listing_id == Hostile.BLOCK:
            assert card["building_type"] == "block"


@pytest.mark.parametrize("name", VARIANTS)
async def test_resources(foreign, recorder, name):
    async with session(foreign[name], recorder) as mcp:
        stats = json.loads((await mcp.client.read_resource("stats://database")).contents[0].text)
        assert stats["total_listings"] > 0
        schema = json.loads(
            (await mcp.client.read_resource("schema://property_listings")).contents[0].text
        )
        assert schema["table"] == "property_listings"


# --- item 1: no `ukrainian` configuration (variant B) ---------------------------------------


async def test_item1_text_search_falls_back_to_simple_and_says_so(bare, recorder):
    async with session(bare, recorder) as mcp:
        text = await mcp.call("search_by_metadata", {"query": "квартира з балконом"})
        assert not text.is_error, f"item 1: search_by_metadata fails: {text.content[0].text}"
        hybrid = await mcp.call("hybrid_search", {"query": QUERY})
        assert not hybrid.is_error, f"item 1: hybrid_search fails: {hybrid.content[0].text}"
        assert expect.fts_config_of(hybrid.structured_content) == [expect.FALLBACK_CONFIG], (
            "item 1: hybrid_search does not say fts_config 'simple'"
        )
        assert expect.fts_config_of(text.structured_content) == [expect.FALLBACK_CONFIG], (
            "item 1: search_by_metadata does not say fts_config 'simple'"
        )
        schema = await mcp.ok("describe_schema", {})
        assert expect.FALLBACK_CONFIG in expect.fts_config_of(schema) or (
            schema["full_text"].get("config") == expect.FALLBACK_CONFIG
        ), "item 1: describe_schema does not say the configuration in use is 'simple'"
    health = httpx.get(f"{bare.url}/health").json()
    assert expect.fts_config_of(health) == [expect.FALLBACK_CONFIG], (
        f"item 1: /health does not say fts_config 'simple': {health}"
    )
    warnings = [
        line for line in bare.log().splitlines() if "WARNING" in line and "ukrainian" in line
    ]
    assert warnings, "item 1: no warning logged about the missing 'ukrainian' configuration"


async def test_item1_collector_uses_ukrainian(collector, recorder):
    async with session(collector, recorder) as mcp:
        page = await mcp.ok("search_by_metadata", {"query": "квартири з балконами"})
        assert page["listings"]
        assert expect.fts_config_of(page) == ["ukrainian"], "item 1: fts_config not reported"


# --- item 2: morphology judged by behaviour (variant A: dictionary `ukrainian_huns`) ---------


async def test_item2_morphology_of_a_hunspell_dictionary_named_otherwise(collector, recorder):
    async with session(collector, recorder) as mcp:
        schema = await mcp.ok("describe_schema", {})
        page = await mcp.ok("search_by_metadata", {"query": "квартири", "limit": 5})
    assert page["mode"] == "fulltext" and page["listings"]
    assert expect.morphology_of(schema) == [True], (
        f"item 2: 'ukrainian_huns' reported as morphology {expect.morphology_of(schema)}"
    )


# --- item 4: currencies as scrapers write them ------------------------------------------------

MONEY_UNDER_50K_USD = {
    Hostile.USD_LOWER, Hostile.GRN, Hostile.HRYVNIA_SIGN, Hostile.DOLLAR_SIGN,
    Hostile.EURO_SIGN, Hostile.UO, Hostile.UAH_LOWER,
}  # fmt: skip
# By the USD price: 44000 uah, 1.2 M ₴, 30000 $, 1.5 M грн, 42000 у.о., 40000 €, 45000 usd, 90000.
MONEY_ORDER = [
    Hostile.UAH_LOWER, Hostile.HRYVNIA_SIGN, Hostile.DOLLAR_SIGN, Hostile.GRN, Hostile.UO,
    Hostile.EURO_SIGN, Hostile.USD_LOWER, Hostile.USD_DEAR,
]  # fmt: skip


@pytest.mark.parametrize("name", VARIANTS)
async def test_item4_price_filters_sorting_and_stats_see_every_spelling(foreign, recorder, name):
    async with session(foreign[name], recorder) as mcp:
        cheap = await mcp.ok(
            "search_by_metadata",
            {"filters": {"city": builder.MONEY_CITY, "max_price": 50000, "currency": "USD"}},
        )
        assert set(ids(cheap)) == MONEY_UNDER_50K_USD, (
            f"item 4: max_price 50000 USD finds {sorted(ids(cheap))}, "
            f"missing {sorted(MONEY_UNDER_50K_USD - set(ids(cheap)))}"
        )
        in_uah = await mcp.ok(
            "search_by_metadata",
            {"filters": {"city": builder.MONEY_CITY, "max_price": 2000000, "currency": "UAH"}},
        )
        assert {Hostile.USD_LOWER, Hostile.GRN} <= set(ids(in_uah)), (
            "item 4: 'до 2 млн грн' misses the 45000 usd or the грн row"
        )
        ordered = await mcp.ok(
            "search_by_metadata",
            {"filters": {"city": builder.MONEY_CITY}, "sort_by": "price_asc", "limit": 20},
        )
        assert [i for i in ids(ordered) if i != Hostile.NULL_CURRENCY] == MONEY_ORDER, (
            f"item 4: price_asc order {ids(ordered)}"
        )
        # the table holds sales and rents (in its own spellings): a price sort without a deal
        # type says it mixed them; with one it has nothing to say
        assert ordered["warnings"] == [MIXED_DEALS_SORT_WARNING], ordered.get("warnings")
        one_deal = await mcp.ok(
            "search_by_metadata",
            {"filters": {"deal_type": "продаж"}, "sort_by": "price_desc", "detail": "brief"},
        )
        assert "warnings" not in one_deal and one_deal["listings"]
        stats = await mcp.ok("listing_stats", {"filters": {"city": builder.MONEY_CITY}})
        assert stats["groups"][0]["count"] >= len(MONEY_ORDER)
        assert 1 in expect.left_out_counts(stats) or any(
            "1" in warning and "currenc" in warning.lower() for warning in stats["warnings"]
        ), f"item 4: stats do not say one price without currency was left out: {stats}"


@pytest.mark.parametrize("name", VARIANTS)
async def test_item4_market_tools_read_every_spelling_as_stats_do(foreign, recorder, name):
    """market_context, price_trends and listing_stats count the same priced listings: a
    price in `usd`, `$` or `грн` is a price, not a listing without one."""
    async with session(foreign[name], recorder) as mcp:
        context = await mcp.ok("market_context", {"listing_id": Hostile.USD_LOWER})
        assert context["price"] == 45000.0, f"item 4: 45000 usd read as {context['price']}"
        # its comparables: the other rows of the city, every spelling priced (a NULL
        # currency too where DEFAULT_CURRENCY names one); those priced within 8 % of it
        # (40000 €, 42000 у.о.) are the same flat by find_duplicates' rule, left out and named
        counted = context["comparables_count"] + len(context["reposts_left_out"])
        assert counted >= len(MONEY_ORDER) - 1, f"item 4: {context}"
        assert set(context["reposts_left_out"]) == {Hostile.EURO_SIGN, Hostile.UO}, context
        # by the USD price only the 90000 USD row is dearer
        assert context["percentile"] > 75, f"item 4: {context}"
        city = {"city": builder.MONEY_CITY, "listing_status": "any"}
        trends = await mcp.ok("price_trends", {"filters": city})
        stats = await mcp.ok("listing_stats", {"filters": city})
        priced = sum(point["priced_count"] for point in trends["series"][0]["points"])
        assert priced == stats["groups"][0]["priced_count"] >= len(MONEY_ORDER), (
            f"item 4: trends count {priced} priced listings, stats {stats['groups'][0]}"
        )
        # asked in no currency, both answer in the one most of the city's prices are in:
        # usd, $, у.о. and USD are four dollar prices, not four currencies of one each
        assert stats["currency"] == trends["currency"] == "USD", (stats, trends["currency"])


@pytest.mark.parametrize("name", VARIANTS)
async def test_market_tools_on_every_hand_made_row_and_a_range_of_filters(foreign, recorder, name):
    """The market tools' compiled statements take each listing's own values (NULLs, odd
    currencies, 1 KB districts, a real-typed area) and each filter: an answer or a typed
    error, never internal_error (the session checks every call)."""
    hostile = [value for key, value in vars(Hostile).items() if key.isupper()]
    answered = 0
    async with session(foreign[name], recorder) as mcp:
        for listing_id in [foreign[name].facts["normal_id"], *hostile]:
            for tool in ("market_context", "find_duplicates"):
                result = await mcp.call(tool, {"listing_id": listing_id})
                answered += not result.is_error
        assert answered >= len(hostile), f"market tools answered {answered} calls"
        for filters in FILTER_CASES:
            for group_by in (None, "city", "deal_type", "rooms_count", "property_type"):
                trend = await mcp.ok(
                    "price_trends", {"filters": filters, "group_by": group_by, "period": "quarter"}
                )
                assert trend["series"] is not None, (filters, group_by)


# --- item 5: values outside the documented enums ---------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
async def test_item5_filters_accept_present_values_and_map_synonyms(foreign, recorder, name):
    async with session(foreign[name], recorder) as mcp:
        vocab = {"city": builder.VOCAB_CITY, "listing_status": "any"}

        async def found(**filters: Any) -> set[int]:
            result = await mcp.call(
                "search_by_metadata", {"filters": {**vocab, **filters}, "limit": 50}
            )
            assert not result.is_error, f"item 5: {filters} refused: {result.content[0].text}"
            return set(ids(result.structured_content))

        euro = await found(renovation_status="euro")
        assert {Hostile.EURO, Hostile.EURO_REPAIR, Hostile.EVROREMONT} <= euro, (
            f"item 5: renovation_status='euro' finds {sorted(euro)}"
        )
        assert Hostile.STANDARD in await found(renovation_status="standard")
        renovated = await found(renovation_status="renovated")  # any renovation done
        assert {Hostile.EURO, Hostile.EURO_REPAIR, Hostile.EVROREMONT} <= renovated, (
            f"item 5: renovation_status='renovated' finds {sorted(renovated)}"
        )
        assert Hostile.STANDARD not in renovated, "item 5: an unknown value read as renovated"
        assert Hostile.EURO_REPAIR in await found(renovation_status="euro_repair")
        assert Hostile.BLOCK in await found(building_type="block")
        assert Hostile.DAILY in await found(deal_type="rent_short"), "item 5: daily ≠ rent_short"
        assert Hostile.DAILY in await found(deal_type="daily")
        assert Hostile.INACTIVE in await found(listing_status="inactive")
        active = await found(listing_status="active")
        assert Hostile.ACTIVE_UPPER in active, "item 5: 'ACTIVE' is not active (case)"
        schema = await mcp.ok("describe_schema", {})
        for synonym, target in (
            ("euro_repair", "euro"),
            ("Євроремонт", "euro"),
            ("walking", "walk"),
            ("courtyard", "yard"),
            ("daily", "rent_short"),
        ):
            assert expect.maps(schema, synonym, target) or expect.maps(
                schema, synonym.lower(), target
            ), f"item 5: describe_schema shows no synonym {synonym} → {target}"


@pytest.mark.parametrize("name", VARIANTS)
async def test_item5_price_trends_filter_and_group_enum_spellings_as_stats_do(
    foreign, recorder, name
):
    async with session(foreign[name], recorder) as mcp:
        vocab = {"city": builder.VOCAB_CITY, "listing_status": "any"}
        trends = await mcp.ok("price_trends", {"filters": vocab, "group_by": "deal_type"})
        stats = await mcp.ok("listing_stats", {"filters": vocab, "group_by": "deal_type"})
        counts = {series["group"]: series["count"] for series in trends["series"]}
        assert "daily" not in counts and counts.get("rent_short", 0) >= 1, (
            f"item 5: trends group 'daily' apart from rent_short: {counts}"
        )
        assert counts == {row["group"]: row["count"] for row in stats["groups"]}, (
            f"item 5: trends groups {counts}, stats {stats['groups']}"
        )
        daily = await mcp.ok("price_trends", {"filters": {**vocab, "deal_type": "daily"}})
        assert sum(series["count"] for series in daily["series"]) >= 1, (
            "item 5: price_trends finds no 'daily' listing for deal_type 'daily'"
        )


# --- item 6: NULL listing_status ----------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
async def test_item6_null_status_rows_have_a_policy_and_are_counted(foreign, recorder, name):
    run = foreign[name]
    async with session(run, recorder) as mcp:
        default = await mcp.ok("search_by_metadata", {"filters": {"city": builder.VOCAB_CITY}})
        chosen = await mcp.call(
            "search_by_metadata",
            {"filters": {"city": builder.VOCAB_CITY, "listing_status": expect.NULL_STATUS_VALUE}},
        )
        selected = set() if chosen.is_error else set(ids(chosen.structured_content))
        assert Hostile.NULL_STATUS in set(ids(default)) | selected, (
            "item 6: a NULL-status listing is neither in the default search nor selected by "
            f"listing_status={expect.NULL_STATUS_VALUE!r}"
        )
        schema = await mcp.ok("describe_schema", {})
    assert run.facts["null_status"] in expect.null_counts_for(schema, "listing_status"), (
        f"item 6: describe_schema does not report {run.facts['null_status']} NULL statuses"
    )


@pytest.mark.parametrize("name", VARIANTS)
async def test_an_empty_pages_counts_are_what_each_search_again_finds(foreign, recorder, name):
    """if_dropped's counts (one statement of counts, the words' full-text matches under every
    filter dropped, one read of the substrings) on the collector's types and spellings: the
    price in every currency spelling, statuses of its own, its text-search configuration."""
    filters = {"city": builder.MONEY_CITY, "max_price": 1, "currency": "USD"}  # nothing at $1
    async with session(foreign[name], recorder) as mcp:
        found: dict[str, int] = {}
        for query in ("квартира", "зюзюкавиця"):  # in the city's titles; in no listing
            page = await mcp.ok(
                "search_by_metadata", {"query": query, "filters": filters, "interpret": False}
            )
            assert page["total"] == 0, page
            dropped = {tuple(entry["dropped"]): entry for entry in page["if_dropped"]}
            assert set(dropped) == {("query",), ("city",), ("listing_status",), ("max_price",)}
            for names, entry in dropped.items():
                lifted = {key: value for key, value in filters.items() if key not in names}
                if names == ("listing_status",):
                    lifted["listing_status"] = "any"
                again_args = {"filters": lifted, "interpret": False}
                if names != ("query",):
                    again_args["query"] = query
                again = await mcp.ok("search_by_metadata", again_args)
                assert (entry["total"], entry["total_exact"]) == (
                    again["total"],
                    again["total_exact"],
                ), (query, names, entry, again["total"])
            found[query] = dropped[("max_price",)]["total"]
    # the word is in every title of the city: dropping the price lets them in
    assert found == {"квартира": found["квартира"], "зюзюкавиця": 0} and found["квартира"] >= 8


# --- item 7: zero vectors ---------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
async def test_item7_zero_vectors_are_skipped(foreign, recorder, name):
    async with session(foreign[name], recorder) as mcp:
        # an all-zero vector is like no other listing: its text is embedded instead
        empty = await mcp.ok(
            "find_similar_to_listing", {"listing_id": Hostile.ZERO_VECTORS[0], "limit": 50}
        )
        assert empty["embedding_note"] == search.EMBEDDED_NOW_NOTE.format(
            listing_id=Hostile.ZERO_VECTORS[0], why=search.EMPTY_EMBEDDING
        ), f"item 7: {empty.get('embedding_note')}"
        assert not set(ids(empty)) & set(Hostile.ZERO_VECTORS), "item 7: zero vectors as neighbours"
        nothing = await mcp.error("find_similar_to_listing", {"listing_id": Hostile.ALL_NULL})
        assert nothing["code"] == "not_found", f"item 7: {nothing}"
        zero_city = {"city": builder.ZERO_CITY}
        semantic = await mcp.ok(
            "search_similar_listings", {"query": QUERY, "filters": zero_city, "limit": 50}
        )
        hybrid = await mcp.ok("hybrid_search", {"query": QUERY, "filters": zero_city, "limit": 50})
        similar = await mcp.ok(
            "find_similar_to_listing",
            {"listing_id": Hostile.ZERO_NEIGHBOURS[0], "filters": zero_city, "limit": 50},
        )
        wide = await mcp.ok("search_similar_listings", {"query": QUERY, "limit": 50})
    for page in (semantic, similar, wide, empty):
        scores = [card["similarity_score"] for card in page["listings"]]
        assert None not in scores, f"item 7: a null similarity_score in {page['mode']}"
    assert set(ids(semantic)) == set(Hostile.ZERO_NEIGHBOURS), (
        f"item 7: semantic search in {builder.ZERO_CITY} returns {sorted(ids(semantic))}"
    )
    assert not set(ids(similar)) & set(Hostile.ZERO_VECTORS), "item 7: zero vectors as neighbours"
    assert set(Hostile.ZERO_NEIGHBOURS) <= set(ids(hybrid))


# --- item 8: bounded result size --------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
async def test_item8_a_page_of_huge_rows_stays_within_budget(foreign, recorder, name):
    run = foreign[name]
    # Folding off: the largest page is 50 distinct cards (the huge rows are alike enough to fold).
    arguments = {"filters": {"city": builder.HUGE_CITY}, "limit": 50, "collapse_duplicates": False}
    async with session(run, recorder) as mcp:
        result = await mcp.call("search_by_metadata", arguments)
        assert not result.is_error
        text = result.content[0].text
        semantic = await mcp.ok("search_similar_listings", {"query": QUERY, **arguments})
    cards = result.structured_content["listings"]
    # 50 cards, or fewer cut at a whole card by the answer budget (MCP_MAX_RESULT_TOKENS),
    # saying so and where the next page starts.
    for page in (result.structured_content, semantic):
        shown = len(page["listings"])
        assert shown == 50 or (
            0 < shown < 50 and page["truncated"] is True and page["next_offset"] == shown
        ), f"item 8: {shown} cards, truncated={page.get('truncated')}"
    size = len(text.encode())
    assert size <= expect.PAGE_TEXT_BUDGET, f"item 8: a 50-card page is {size} bytes of text"
    assert "\n" not in text, "item 8: tool text is indented JSON, not compact"
    assert all(any(expect.truncation_flags(card)) for card in cards), (
        "item 8: cut cards carry no truncation flag"
    )
    body = httpx.post(
        run.server.mcp_url,
        headers={
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search_by_metadata", "arguments": arguments},
        },
        timeout=120,
    )
    assert body.status_code == 200
    assert len(body.content) <= expect.PAGE_HTTP_BUDGET, (
        f"item 8: the HTTP body of a 50-card page is {len(body.content)} bytes"
    )


# --- item 9: index_used says what ran ---------------------------------------------------------


async def test_item9_index_used_names_the_real_index_or_none(foreign, recorder):
    pages = {}
    for name, run in foreign.items():
        async with session(run, recorder) as mcp:
            pages[name] = await mcp.ok("search_similar_listings", {"query": QUERY, "limit": 10})
            pages[f"{name} schema"] = await mcp.ok("describe_schema", {})
    bare_index = pages["bare"]["index_used"] or ""
    assert "hnsw" not in bare_index.lower() and "ix_property_listings" not in bare_index, (
        f"item 9: index_used on a database without HNSW says {bare_index!r}"
    )
    # On a table this small the planner may rank by a sequential scan even on the index path:
    # index_used names the index only when the plan scans it, never an index A does not have.
    assert pages["collector"]["index_used"] in {builder.HNSW_INDEX, search.EXACT_PATH}, (
        f"item 9: index_used on variant A says {pages['collector']['index_used']!r}, "
        f"the index is {builder.HNSW_INDEX}"
    )
    assert builder.HNSW_INDEX in json.dumps(pages["collector schema"]), (
        f"item 9: describe_schema on variant A does not name its index {builder.HNSW_INDEX}"
    )
    facts = expect.index_facts(pages["bare schema"])
    assert facts and all(expect.says_missing(item) for item in facts), (
        f"item 9: describe_schema does not say the vector index is missing: {facts}"
    )
    health = httpx.get(f"{foreign['bare'].url}/health").json()
    facts = expect.index_facts(health)
    assert facts and all(expect.says_missing(item) for item in facts), (
        f"item 9: /health does not say the vector index is missing: {health}"
    )


# --- item 13: resources give the tools' errors ----------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("listing://999999999", "Listing 999999999 does not exist."),
        ("listing://abc", "'listing_id' must be a positive integer."),
    ],
)
async def test_item13_resource_errors_are_the_tools_messages(foreign, recorder, name, uri, message):
    run = foreign[name]
    logged = len(run.log())
    async with session(run, recorder) as mcp:
        with pytest.raises(MCPError) as excinfo:
            await mcp.client.read_resource(uri)
    text = str(excinfo.value)
    assert message in text, f"item 13: {uri} answers {text!r}"
    assert "Error creating resource from template" not in text, f"item 13: {uri}: {text!r}"
    assert "Traceback" not in run.log()[logged:], "item 13: a traceback in the server log"
