"""The real app under uvicorn, called with the SDK's streamable-HTTP client."""

from __future__ import annotations

import json
import time

import anyio
import httpx
import pytest
from mcp import Client

pytestmark = pytest.mark.anyio

TOOLS = {
    "search_similar_listings",
    "search_by_metadata",
    "hybrid_search",
    "find_similar_to_listing",
    "get_listing_by_id",
    "listing_stats",
    "describe_schema",
    "price_trends",
    "market_context",
    "find_duplicates",
}
MODES = ["legacy", "2026-07-28"]
QUERY = "двокімнатна квартира біля метро з балконом"


def error_of(result) -> dict:
    assert result.is_error
    return json.loads(result.content[0].text)


@pytest.mark.parametrize("mode", MODES)
async def test_lists_every_tool_read_only_with_output_schemas(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.idempotent_hint is True
            assert tool.annotations.open_world_hint is False
            assert tool.annotations.destructive_hint is False
            assert tool.output_schema is not None
            assert tool.description
        schema = tools["search_similar_listings"].input_schema
        assert schema["properties"]["limit"]["maximum"] == 50
        assert "filters" in schema["properties"]
        if mode == "legacy":  # 2026-07-28 clients learn instructions from server/discover
            assert "Ukrainian" in (client.instructions or "")


@pytest.mark.parametrize("mode", MODES)
async def test_every_tool_answers_with_structured_and_text_content(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        semantic = await client.call_tool(
            "search_similar_listings", {"query": QUERY, "filters": {"city": "Київ"}, "limit": 5}
        )
        assert not semantic.is_error
        page = semantic.structured_content
        assert page["mode"] == "semantic" and len(page["listings"]) == 5
        assert json.loads(semantic.content[0].text) == page
        assert all(card["city"] == "Київ" for card in page["listings"])
        listing_id = page["listings"][0]["id"]

        text = await client.call_tool(
            "search_by_metadata", {"query": "квартири з балконом", "interpret": False}
        )
        assert text.structured_content["mode"] == "fulltext"
        hybrid = await client.call_tool("hybrid_search", {"query": QUERY, "limit": 3})
        assert hybrid.structured_content["listings"][0]["fused_score"] > 0
        similar = await client.call_tool("find_similar_to_listing", {"listing_id": listing_id})
        assert listing_id not in [c["id"] for c in similar.structured_content["listings"]]
        card = await client.call_tool("get_listing_by_id", {"listing_id": listing_id})
        assert card.structured_content["id"] == listing_id
        assert "embedding" not in card.structured_content
        stats = await client.call_tool(
            "listing_stats", {"filters": {"deal_type": "sale"}, "group_by": "city"}
        )
        assert stats.structured_content["groups"][0]["count"] > 0
        schema = await client.call_tool("describe_schema", {})
        assert schema.structured_content["embedding"]["dimension"] == 768


async def test_resources(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        templates = (await client.list_resource_templates()).resource_templates
        assert any(t.uri_template == "listing://{listing_id}" for t in templates)
        resources = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"schema://property_listings", "stats://database"} <= resources
        stats = json.loads((await client.read_resource("stats://database")).contents[0].text)
        assert stats["total_listings"] > 0 and stats["top_cities_active"]
        schema = json.loads(
            (await client.read_resource("schema://property_listings")).contents[0].text
        )
        assert schema["table"] == "property_listings"
        listing = json.loads((await client.read_resource("listing://1")).contents[0].text)
        assert listing["id"] == 1


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "message"),
    [
        (
            "search_similar_listings",
            {"query": QUERY, "limit": 500},
            "invalid_argument",
            "'limit' must be an integer from 1 to 50.",
        ),
        (
            "search_similar_listings",
            {"query": QUERY, "filters": {"town": "Київ"}},
            "invalid_argument",
            None,
        ),
        (
            "search_similar_listings",
            {"query": QUERY, "limit": "many"},
            "invalid_argument",
            "'limit' must be an integer from 1 to 50.",
        ),
        (
            "search_by_metadata",
            {"filters": {"deal_type": "buy"}},
            "invalid_argument",
            "Filter 'deal_type': must be one of sale, rent_long, rent_short (or a synonym listed in describe_schema).",
        ),
        ("search_similar_listings", {}, "invalid_argument", "Missing required argument 'query'."),
        # a name or value close to an allowed one says which it probably meant
        (
            "get_listing_by_id",
            {"id": 5},
            "invalid_argument",
            "Unknown argument 'id' (did you mean 'listing_id'?). Allowed arguments: listing_id.",
        ),
        (
            "search_by_metadata",
            {"query": QUERY, "sort_by": "price"},
            "invalid_argument",
            "'sort_by' must be one of: relevance, price_asc, price_desc, date_desc, area_desc; "
            "did you mean 'price_asc' or 'price_desc'?",
        ),
        (
            "listing_stats",
            {"group_by": "rooms"},
            "invalid_argument",
            "'group_by' must be one of: city, district, metro_station, rooms_count, deal_type, "
            "property_type, building_type, renovation_status; did you mean 'rooms_count'?",
        ),
        (
            "price_trends",
            {"period": "week"},
            "invalid_argument",
            "'period' must be one of: month, quarter.",
        ),
        (
            "get_listing_by_id",
            {"listing_id": 999999999},
            "not_found",
            "Listing 999999999 does not exist.",
        ),
    ],
)
async def test_errors_are_json_with_a_stable_code(mcp_server, tool, arguments, code, message):
    async with Client(mcp_server.mcp_url) as client:
        error = error_of(await client.call_tool(tool, arguments))
    assert error["code"] == code
    if message:
        assert error["error"] == message
    else:
        assert error["error"].startswith(
            "Unknown filter 'town' (did you mean 'city'?). Allowed filters: city,"
        )


async def test_health_and_admin_are_served_by_the_same_process(mcp_server):
    async with httpx.AsyncClient(base_url=mcp_server.url) as http:
        health = (await http.get("/health")).json()
        assert health["database"]["reachable"] is True
        assert health["database"]["pgvector"].startswith("0.8")
        assert health["embedder"]["reachable"] is True
        admin = await http.get("/admin/", follow_redirects=False)
        assert admin.status_code == 302 and "/admin/login/" in admin.headers["location"]


async def test_foreign_host_is_refused(mcp_server):
    async with httpx.AsyncClient() as http:
        response = await http.post(
            mcp_server.mcp_url,
            headers={
                "Host": "evil.example:80",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
            content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
        )
    assert response.status_code == 421


async def test_foreign_origin_is_refused(mcp_server):
    async with httpx.AsyncClient() as http:
        response = await http.post(
            mcp_server.mcp_url,
            headers={
                "Origin": "http://evil.example",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
            content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
        )
    assert response.status_code == 403


@pytest.mark.parametrize(
    "header",
    [None, "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer", "Bearer s3cret-token-but-longer"],
)
async def test_tokens_are_required_when_configured(mcp_server_with_tokens, header):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if header is not None:
        headers["Authorization"] = header
    async with httpx.AsyncClient() as http:
        response = await http.post(
            mcp_server_with_tokens.mcp_url,
            headers=headers,
            content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
        )
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


async def test_a_valid_token_gets_through(mcp_server_with_tokens):
    import httpx2

    http = httpx2.AsyncClient(headers={"Authorization": "Bearer other-token"})
    from mcp.client.streamable_http import streamable_http_client

    async with (
        http,
        Client(streamable_http_client(mcp_server_with_tokens.mcp_url, http_client=http)) as client,
    ):
        tools = (await client.list_tools()).tools
    assert len(tools) == len(TOOLS)


async def test_concurrent_calls_do_not_serialise(mcp_server, listings_db):
    """Eight agents at once: their queries run in the database side by side.

    Serialised calls (one thread for every request) would never have two queries of the
    server active at the same moment; a watcher polls pg_stat_activity while they run.
    """
    import threading

    from django.conf import settings

    from demo import embedded as embedded_db

    server = embedded_db.configured_server()
    most_active = 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal most_active
        with server.connect("postgres") as conn:
            while not stop.is_set():
                active = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE usename = 'vmk_reader' "
                    "AND state = 'active' AND query ILIKE '%property_listings%'"
                ).fetchone()[0]
                most_active = max(most_active, active)

    async def one_call(client: Client) -> float:
        started = time.perf_counter()
        result = await client.call_tool(
            "hybrid_search", {"query": "простора квартира з балконом біля парку", "limit": 50}
        )
        assert not result.is_error
        return time.perf_counter() - started

    async with Client(mcp_server.mcp_url) as client:
        await one_call(client)  # warm the cache and the pool
        single = min([await one_call(client) for _ in range(3)])
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        started = time.perf_counter()
        # Bursts of eight until the watcher has seen two at once (at most five): a page's
        # statements take milliseconds here, and serialised calls never overlap however
        # many bursts are sent.
        for _ in range(5):
            async with anyio.create_task_group() as group:
                for _ in range(8):
                    group.start_soon(one_call, client)
            if most_active >= 2:
                break
        together = time.perf_counter() - started
        stop.set()
        watcher.join(5)
    assert most_active >= 2, (most_active, together, single)
    # The pool bounds the server's connections whatever the concurrency.
    with server.connect("postgres") as conn:
        connected = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'vmk_reader'"
        ).fetchone()[0]
    assert connected <= 2 * settings.DB_POOL_MAX  # the test process and the server


async def test_instruction_like_text_comes_back_intact_and_marked_untrusted(
    mcp_server, listings_access
):
    from demo.generator import INSTRUCTION_LIKE_EVERY, INSTRUCTION_LIKE_TEXTS
    from listings.models import PropertyListing
    from listings.results import UNTRUSTED_NOTICE

    listing_id = INSTRUCTION_LIKE_EVERY  # the test database has 3 000 listings
    stored = (
        await PropertyListing.objects.filter(id=listing_id)
        .values_list("description", flat=True)
        .aget()
    )
    planted = INSTRUCTION_LIKE_TEXTS[1]
    assert stored.endswith(planted)
    async with Client(mcp_server.mcp_url) as client:
        card = await client.call_tool("get_listing_by_id", {"listing_id": listing_id})
        assert not card.is_error
        detail = card.structured_content
        assert detail["description"] == stored  # intact: not cut, escaped or rewritten
        assert "description" in detail["untrusted_content"]["fields"]
        assert detail["untrusted_content"]["notice"] == UNTRUSTED_NOTICE
        # The text block is the same JSON: the instruction is a string value inside it.
        assert json.loads(card.content[0].text)["description"] == stored
        # Found by its words like any text, and marked in the search results too.
        found = await client.call_tool(
            "search_by_metadata",
            {"query": "ignore all previous instructions", "filters": {"listing_status": "any"}},
        )
        page = found.structured_content
        assert listing_id in [c["id"] for c in page["listings"]]
        assert "snippet" in page["untrusted_content"]["fields"]
        # Obeying it would be a different call: the server only answered what was asked.
        assert len(page["listings"]) <= 10


async def test_enum_filters_take_values_present_synonyms_and_currency_spellings(mcp_server):
    # Checked in the search layer against the live values, not by the tool's schema.
    async with Client(mcp_server.mcp_url) as client:
        odd = await client.call_tool(
            "search_by_metadata",
            {"filters": {"building_type": "Cinder_Block", "listing_status": "any"}, "limit": 50},
        )
        assert not odd.is_error
        assert {c["id"] for c in odd.structured_content["listings"]}
        assert odd.structured_content["filters"]["building_type"] == "cinder_block"
        synonym = await client.call_tool(
            "search_by_metadata",
            {
                "filters": {
                    "renovation_status": "Євроремонт",
                    "max_price": 2000000,
                    "currency": "грн",
                }
            },
        )
        assert not synonym.is_error
        applied = synonym.structured_content["filters"]
        assert applied["renovation_status"] == "euro" and applied["currency"] == "UAH"
        refused = error_of(
            await client.call_tool("search_by_metadata", {"filters": {"building_type": "straw"}})
        )
        assert refused["code"] == "invalid_argument"
        assert refused["error"] == (
            "Filter 'building_type': must be one of brick, panel, monolith, gas_block, wood, "
            "cinder_block (or a synonym listed in describe_schema)."
        )


async def test_listing_stats_takes_currency_spellings_and_refuses_unknown_ones(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        in_uah = await client.call_tool(
            "listing_stats", {"filters": {"deal_type": "sale"}, "currency": "грн"}
        )
        in_usd = await client.call_tool("listing_stats", {"filters": {"deal_type": "sale"}})
        assert not in_uah.is_error and in_uah.structured_content["currency"] == "UAH"
        uah, usd = in_uah.structured_content["groups"][0], in_usd.structured_content["groups"][0]
        assert uah["median_price"] > 30 * usd["median_price"]
        refused = error_of(await client.call_tool("listing_stats", {"currency": "GBP"}))
        assert refused == {
            "error": "'currency' must be one of: USD, EUR, UAH.",
            "code": "invalid_argument",
        }
