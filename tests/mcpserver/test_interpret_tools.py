"""The search tools read the request by default, say what they read, and take interpret=false."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from listings.filters import BAD_FILTER_VALUE

pytestmark = pytest.mark.anyio

REQUEST = "трикімнатна квартира у Львові з балконом"


@pytest.mark.parametrize("tool", ["search_similar_listings", "search_by_metadata", "hybrid_search"])
async def test_search_tools_show_what_they_read(mcp_server, tool):
    async with Client(mcp_server.mcp_url) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools[tool].input_schema["properties"]["interpret"]["default"] is True
        read = await client.call_tool(tool, {"query": REQUEST, "limit": 10})
        plain = await client.call_tool(tool, {"query": REQUEST, "limit": 10, "interpret": False})
    page = read.structured_content
    assert page["interpreted"]["filters"] == {
        "rooms_count": 3,
        "property_type": "apartment",
        "city": "Львів",
        "has_balcony": True,
    }
    assert page["filters"]["city"] == "Львів" and page["filters"]["rooms_count"] == 3
    assert page["query"] == REQUEST
    assert page["listings"]
    assert all(c["city"] == "Львів" and c["rooms_count"] == 3 for c in page["listings"])
    assert plain.structured_content["interpreted"] is None
    assert "city" not in plain.structured_content["filters"]


async def test_a_place_name_that_matches_nothing_is_an_invalid_argument(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool(
            "hybrid_search", {"query": "квартира", "filters": {"city": "Лондон"}}
        )
        resolved = await client.call_tool(
            "search_by_metadata", {"filters": {"city": "Kharkiv"}, "limit": 3}
        )
    assert result.is_error
    error = json.loads(result.content[0].text)
    assert error["code"] == "invalid_argument"
    assert error["error"] == BAD_FILTER_VALUE.format(
        key="city",
        problem="no listing has 'Лондон'; describe_schema lists the values present",
    )
    page = resolved.structured_content
    assert page["names_resolved"] == {"city": {"given": "Kharkiv", "value": "Харків"}}
    assert all(card["city"] == "Харків" for card in page["listings"])


async def test_a_value_no_filter_accepts_is_refused_by_name_through_mcp(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool(
            "search_by_metadata", {"query": "квартира у Львові на 300 поверсі", "limit": 5}
        )
    assert not result.is_error
    page = result.structured_content
    assert page["interpreted"]["refused"] == {
        "floor": "Filter 'floor': input should be less than or equal to 200."
    }
    assert page["filters"]["city"] == "Львів" and "floor" not in page["filters"]
    assert page["listings"] and all(card["city"] == "Львів" for card in page["listings"])
    assert (
        json.loads(result.content[0].text)["interpreted"]["refused"]
        == page["interpreted"]["refused"]
    )


async def test_an_empty_page_says_what_dropping_each_filter_lets_in_through_mcp(mcp_server):
    arguments = {"query": "двокімнатна квартира у Львові до 5 доларів", "limit": 5}
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool("search_similar_listings", arguments)
        full = await client.call_tool("search_similar_listings", {**arguments, "query": "квартира"})
    assert not result.is_error
    page = result.structured_content
    assert page["total"] == 0
    dropped = {tuple(entry["dropped"]): entry["total"] for entry in page["if_dropped"]}
    assert dropped[("max_price",)] > 0
    assert json.loads(result.content[0].text)["if_dropped"] == page["if_dropped"]
    assert "if_dropped" not in full.structured_content  # absent on a page with listings


async def test_english_and_russian_words_are_searched_as_the_ukrainian_listings_use(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        english = await client.call_tool("search_by_metadata", {"query": "house with a garden"})
        russian = await client.call_tool("hybrid_search", {"query": "можно с домашними животными"})
        brief = await client.call_tool(
            "search_by_metadata", {"query": "house with a garden", "detail": "brief"}
        )
    page = english.structured_content
    assert page["mode"] == "fulltext" and page["listings"]
    assert page["interpreted"]["text"] == "garden"
    assert page["interpreted"]["translated"] == {"garden": "сад"}
    assert all(card["property_type"] == "Будинок" for card in page["listings"])
    hybrid = russian.structured_content
    assert hybrid["filters"]["fulltext_mode"] == "fulltext"
    assert hybrid["interpreted"]["translated"]["животными"] == "тваринами"
    assert brief.structured_content["interpreted"]["translated"] == {"garden": "сад"}
