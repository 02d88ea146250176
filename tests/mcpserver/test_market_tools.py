"""The market tools and the market:// resource through the real MCP client over HTTP."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from mcp import Client

from listings import market
from mcpserver import shaping

pytestmark = pytest.mark.anyio

MARKET_TOOLS = {"price_trends", "market_context", "find_duplicates"}


def error_of(result) -> dict:
    assert result.is_error
    return json.loads(result.content[0].text)


async def test_market_tools_are_listed_read_only_with_output_schemas(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) >= MARKET_TOOLS
    for name in MARKET_TOOLS:
        tool = tools[name]
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.output_schema is not None and tool.description
    assert tools["price_trends"].input_schema["properties"]["period"]["enum"] == [
        "month",
        "quarter",
    ]


async def test_market_tools_answer_with_structured_content(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        trend = await client.call_tool(
            "price_trends",
            {"filters": {"city": "Київ", "deal_type": "sale"}, "period": "quarter"},
        )
        assert not trend.is_error
        body = trend.structured_content
        assert json.loads(trend.content[0].text) == body
        assert body["period"] == "quarter" and body["series"][0]["points"]
        assert all(p["period"][4:6] == "-Q" for p in body["series"][0]["points"])

        page = await client.call_tool(
            "search_by_metadata",
            {"filters": {"city": "Київ", "deal_type": "sale", "rooms_count": 2}, "limit": 1},
        )
        listing_id = page.structured_content["listings"][0]["id"]
        context = await client.call_tool("market_context", {"listing_id": listing_id})
        assert not context.is_error
        assert context.structured_content["listing_id"] == listing_id
        assert context.structured_content["verdict"]

        duplicates = await client.call_tool("find_duplicates", {"listing_id": listing_id})
        assert not duplicates.is_error
        assert duplicates.structured_content["rule"] == market.DUPLICATE_RULE


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "message"),
    [
        ("price_trends", {"period": "week"}, "invalid_argument", None),
        (
            "market_context",
            {"listing_id": 999999999},
            "not_found",
            "Listing 999999999 does not exist.",
        ),
        ("find_duplicates", {"listing_id": 0}, "invalid_argument", None),
        ("market_context", {"listing_id": 1, "currency": "BTC"}, "invalid_argument", None),
    ],
)
async def test_market_tool_errors(mcp_server, tool, arguments, code, message):
    async with Client(mcp_server.mcp_url) as client:
        error = error_of(await client.call_tool(tool, arguments))
    assert error["code"] == code
    if message:
        assert error["error"] == message
    assert "Traceback" not in error["error"] and "SELECT" not in error["error"]


async def test_market_tools_take_a_currency_as_agents_spell_it(mcp_server):
    """ "usd" and "грн" are what listing_stats takes; the market tools read them the same."""
    async with Client(mcp_server.mcp_url) as client:
        for spelled, code in (("usd", "USD"), ("грн", "UAH"), ("€", "EUR")):
            trends = await client.call_tool("price_trends", {"currency": spelled})
            context = await client.call_tool(
                "market_context", {"listing_id": 1, "currency": spelled}
            )
            stats = await client.call_tool("listing_stats", {"currency": spelled})
            for result in (trends, context, stats):
                assert not result.is_error, result.content[0].text
                assert result.structured_content["currency"] == code


async def test_market_resource(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        templates = (await client.list_resource_templates()).resource_templates
        assert any(t.uri_template == "market://{city}" for t in templates)
        for uri in ("market://Львів", f"market://{quote('Львів')}"):
            body = json.loads((await client.read_resource(uri)).contents[0].text)
            assert body["filters"]["city"] == "Львів"
            assert {s["group"] for s in body["series"]} >= {"sale", "rent_long"}


async def test_search_tools_fold_duplicates_unless_told_not_to(mcp_server, listings_access):
    from asgiref.sync import sync_to_async

    from listings.models import PropertyListing

    copy = await sync_to_async(
        lambda: (
            PropertyListing.objects.exclude(url_source__startswith="https://example-realty.ua/")
            .filter(listing_status="active", floor__isnull=False)
            .order_by("id")
            .values("city", "deal_type", "rooms_count", "floor")
            .first()
        )
    )()
    filters = {**copy, "listing_status": "any"}
    async with Client(mcp_server.mcp_url) as client:
        folded = await client.call_tool("search_by_metadata", {"filters": filters, "limit": 50})
        every = await client.call_tool(
            "search_by_metadata",
            {"filters": filters, "limit": 50, "collapse_duplicates": False},
        )
        brief = await client.call_tool(
            "search_by_metadata", {"filters": filters, "limit": 50, "detail": "brief"}
        )
    folded_page, every_page = folded.structured_content, every.structured_content
    # a brief page says so too: how many were folded, and into which card
    brief_page = brief.structured_content
    assert brief_page["duplicates_collapsed"] == folded_page["duplicates_collapsed"]
    assert [c.get("duplicate_ids") for c in brief_page["listings"]] == [
        c.get("duplicate_ids") for c in folded_page["listings"]
    ]
    assert (
        shaping.brief_text_page(folded_page)["duplicates_collapsed"]
        == (folded_page["duplicates_collapsed"])
    )
    assert folded_page["duplicates_collapsed"] >= 1
    assert every_page["duplicates_collapsed"] == 0
    assert len(folded_page["listings"]) + folded_page["duplicates_collapsed"] == len(
        every_page["listings"]
    )
    notes = [c["duplicates_note"] for c in folded_page["listings"] if c.get("duplicate_ids")]
    assert notes and all(note.endswith("цього об'єкта") for note in notes)


async def test_more_like_this_leaves_out_the_listings_own_reposts(mcp_server, listings_access):
    """find_similar_to_listing of a re-posted flat: its re-post, the first neighbour of the
    plain search, is not on the page, and the page's warnings say why."""
    from asgiref.sync import sync_to_async

    from tests.reposts import reposted_listing

    listing_id, reposts, _ = await sync_to_async(reposted_listing)()
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool("find_similar_to_listing", {"listing_id": listing_id})
    page = result.structured_content
    assert not reposts & {card["id"] for card in page["listings"]}
    assert page["duplicates_collapsed"] >= 1
    assert page["warnings"][0].startswith(f"Listing {listing_id} is also posted as ")
