"""Made for agents (issue #15), through the real SDK client in both protocol modes: tool
metadata and cache hints, instructions, resource links, prompts, completions, argument
aliases, detail levels with paging hints and the size budget."""

from __future__ import annotations

import json
import re

import httpx
import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import DiscoverResult, PromptReference, ResourceTemplateReference

from listings.errors import MIXED_DEALS_SORT_WARNING
from mcpserver import aliases, prompts, shaping
from mcpserver.catalog import TOOL_TITLES

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]
QUERY = "двокімнатна квартира біля метро з балконом"
HOUR_MS = 3_600_000


def error_of(result) -> dict:
    assert result.is_error
    return json.loads(result.content[0].text)


def text_bytes(result) -> int:
    return len(result.content[0].text.encode())


@pytest.mark.parametrize("mode", MODES)
async def test_tools_list_is_ordered_titled_with_an_icon_small_and_cacheable(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        listed = await client.list_tools(cache_mode="refresh")
    assert [tool.name for tool in listed.tools] == list(TOOL_TITLES)
    assert [tool.title for tool in listed.tools] == list(TOOL_TITLES.values())
    icon = listed.tools[0].icons[0]
    assert icon.src.endswith("/static/mcpserver/icon.svg") and icon.mime_type == "image/svg+xml"
    wire = listed.model_dump(by_alias=True, mode="json", exclude_none=True)
    size = len(json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= 20_000, size
    # docstrings without the indentation each of their lines carried
    lines = [line for tool in listed.tools for line in (tool.description or "").splitlines()]
    assert lines and not [line for line in lines if line != line.strip()]
    # and each paragraph on one line: the source's wrapping is not the host's
    wrapped = [tool.name for tool in listed.tools if re.search(r"\S\n\S", tool.description or "")]
    assert not wrapped, wrapped
    if mode != "legacy":  # cache hints are 2026-07-28 fields (SEP-2549)
        assert listed.ttl_ms == HOUR_MS and listed.cache_scope == "public"
    search = listed.tools[0].input_schema["properties"]
    assert search["detail"]["enum"] == ["brief", "card", "full"]
    assert "city" in search["filters"]["properties"]
    async with httpx.AsyncClient(base_url=mcp_server.url) as http:
        served = await http.get("/static/mcpserver/icon.svg")
    assert served.status_code == 200 and served.text.startswith("<svg")


async def test_tools_list_schemas_allow_what_the_tools_take(mcp_server):
    """The compacted schemas validate the arguments the tools accept (a client may check
    them before calling): an optional enum's null too, which a schema listing only the
    values would refuse."""
    takes = {
        "listing_stats": [{"group_by": None}, {"group_by": "city", "currency": "UAH"}],
        "price_trends": [{"group_by": None, "period": "month"}],
        "market_context": [{"listing_id": 1, "currency": None}, {"listing_id": 1}],
        "search_similar_listings": [{"query": QUERY, "min_similarity": None, "limit": 1}],
        "hybrid_search": [{"query": QUERY, "filters": None, "limit": 1}],
    }
    async with Client(mcp_server.mcp_url) as client:
        schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        for name, calls in takes.items():
            validator = jsonschema.Draft202012Validator(schemas[name])
            for arguments in calls:
                assert not (await client.call_tool(name, arguments)).is_error, (name, arguments)
                assert validator.is_valid(arguments), (name, arguments, schemas[name])
    assert not jsonschema.Draft202012Validator(schemas["listing_stats"]).is_valid(
        {"group_by": "colour"}
    )
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)


async def test_instructions_reach_legacy_and_2026_clients(mcp_server):
    async with Client(mcp_server.mcp_url, mode="legacy") as legacy:
        assert "Ukrainian" in (legacy.instructions or "")
    # A 2026-07-28 client learns them from server/discover (mode "auto" asks for it).
    async with Client(mcp_server.mcp_url, mode="auto") as modern:
        assert modern.protocol_version == "2026-07-28"
        assert "Ukrainian" in (modern.instructions or "")
        discovered = modern.session.discover_result
        assert discovered.ttl_ms == HOUR_MS and discovered.cache_scope == "public"
    # A client pinned to 2026-07-28 never asks (the SDK synthesizes an empty discover
    # result); the cacheable discover result is what it can start from instead.
    async with Client(mcp_server.mcp_url, mode="2026-07-28") as pinned:
        assert pinned.instructions is None
        raw = await pinned.session.send_discover("2026-07-28")
    async with Client(
        mcp_server.mcp_url, mode="2026-07-28", prior_discover=DiscoverResult.model_validate(raw)
    ) as reused:
        assert "Ukrainian" in (reused.instructions or "")
        assert not (await reused.call_tool("describe_schema", {})).is_error


@pytest.mark.parametrize("mode", MODES)
async def test_schema_resource_carries_the_cache_hint(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        schema = await client.read_resource("schema://property_listings", cache_mode="refresh")
        listing = await client.read_resource("listing://1", cache_mode="refresh")
    assert json.loads(schema.contents[0].text)["table"] == "property_listings"
    if mode != "legacy":
        assert schema.ttl_ms == HOUR_MS and schema.cache_scope == "public"
        assert listing.ttl_ms == 0


@pytest.mark.parametrize("mode", MODES)
async def test_each_card_is_also_a_resource_link(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        result = await client.call_tool("hybrid_search", {"query": QUERY, "limit": 5})
        cards = result.structured_content["listings"]
        links = [block for block in result.content if block.type == "resource_link"]
        assert [link.uri for link in links] == [f"listing://{card['id']}" for card in cards]
        assert [link.name for link in links] == [f"listing {card['id']}" for card in cards]
        fetched = json.loads((await client.read_resource(links[0].uri)).contents[0].text)
    assert fetched["id"] == cards[0]["id"] and "description" in fetched


@pytest.mark.parametrize(("mode", "not_found_code"), [("legacy", -32002), ("2026-07-28", -32602)])
async def test_listing_resource_errors_use_the_revisions_codes(mcp_server, mode, not_found_code):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        with pytest.raises(MCPError) as missing:
            await client.read_resource("listing://999999999")
        with pytest.raises(MCPError) as invalid:
            await client.read_resource("listing://abc")
    assert missing.value.error.code == not_found_code
    assert missing.value.error.message == "Listing 999999999 does not exist."
    assert missing.value.error.data["code"] == "not_found"
    assert invalid.value.error.code == -32602
    assert invalid.value.error.data["code"] == "invalid_argument"


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_tool_is_a_jsonrpc_invalid_params_error(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("drop_table", {})
    assert raised.value.error.code == -32602
    assert raised.value.error.message.startswith("Unknown tool 'drop_table'. Tools: hybrid_search,")


PROMPT_ARGUMENTS = {
    "find_home": {"request": "2-room flat near the metro", "city": "Київ", "budget": "90000 USD"},
    "market_overview": {"city": "Львів", "deal_type": "rent_long"},
    "compare_listings": {"listing_ids": "1, 2, 3"},
}
# Snake-case words in the prompts that are fields or arguments, not tools.
NOT_TOOLS = {"has_more", "next_offset", "low_sample", "deal_type", "group_by", "rooms_count"}


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_are_listed_rendered_and_name_tools_that_exist(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert set(listed) == set(PROMPT_ARGUMENTS)
        for name, arguments in PROMPT_ARGUMENTS.items():
            assert listed[name].description and listed[name].description.isascii()
            rendered = await client.get_prompt(name, arguments)
            text = rendered.messages[0].content.text
            assert all(value.split(",")[0] in text for value in arguments.values())
            named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text))
            assert named & tools, name
            given = set(arguments.values())
            assert named - NOT_TOOLS - given <= tools, (name, named - tools)
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("delete_everything", {})
        with pytest.raises(MCPError) as bad_ids:
            await client.get_prompt("compare_listings", {"listing_ids": "1"})
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("market_overview", {})
    assert unknown.value.error.code == -32602
    assert unknown.value.error.message == (
        "Unknown prompt 'delete_everything'. Prompts: find_home, market_overview, compare_listings."
    )
    assert bad_ids.value.error.code == -32602
    assert bad_ids.value.error.message == f"Prompt 'compare_listings': {prompts.IDS_INVALID}"
    assert missing.value.error.code == -32602
    assert "city" in missing.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_completions_come_from_the_live_values(mcp_server, mode):
    find_home = PromptReference(name="find_home")
    async with Client(mcp_server.mcp_url, mode=mode) as client:

        async def values(ref, name, value, context=None) -> list[str]:
            answer = await client.complete(ref, {"name": name, "value": value}, context)
            return answer.completion.values

        assert (await values(find_home, "city", "льв"))[0] == "Львів"
        assert "Львів" in await values(find_home, "city", "ЛЬВ")
        assert "Львів" in await values(find_home, "city", "Львова")  # inflected
        assert "Київ" in await values(find_home, "city", "Києві")
        kyiv = await values(find_home, "district", "", {"city": "Київ"})
        assert "Печерський" in kyiv and "Галицький" not in kyiv
        assert "Галицький" in await values(find_home, "district", "гал", {"city": "Львів"})
        assert "Лук'янівська" in await values(find_home, "metro_station", "лук")
        assert await values(find_home, "property_type", "apa") == ["apartment"]
        market = ResourceTemplateReference(uri="market://{city}")
        assert "Харків" in await values(market, "city", "хар")
        overview = PromptReference(name="market_overview")
        assert await values(overview, "deal_type", "rent") == ["rent_long", "rent_short"]
        assert await values(find_home, "request", "квар") == []


@pytest.mark.parametrize("mode", MODES)
async def test_the_seeds_request_shapes_are_aliases(mcp_server, mode):
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        paged = await client.call_tool(
            "search_by_metadata",
            {"filters": {"listing_status": "any"}, "pagination": {"limit": 20, "offset": 5}},
        )
        page = paged.structured_content
        assert (page["limit"], page["offset"]) == (20, 5)
        assert len(page["listings"]) + page["duplicates_collapsed"] == 20
        semantic = await client.call_tool(
            "search_similar_listings", {"query_text": QUERY, "limit": 3}
        )
        assert semantic.structured_content["query"] == QUERY
        area = await client.call_tool(
            "search_by_metadata",
            {"filters": {"min_total_area": 50, "max_total_area": 60}, "limit": 20},
        )
        applied = area.structured_content
        assert applied["filters"]["min_area"] == 50 and applied["filters"]["max_area"] == 60
        assert all(50 <= card["total_area"] <= 60 for card in applied["listings"])
        unknown = error_of(
            await client.call_tool("hybrid_search", {"query": QUERY, "page_size": 20})
        )
        conflict = error_of(
            await client.call_tool(
                "hybrid_search", {"query": QUERY, "limit": 5, "pagination": {"limit": 20}}
            )
        )
        bad = error_of(await client.call_tool("hybrid_search", {"query": QUERY, "pagination": 3}))
        schema = (await client.call_tool("describe_schema", {})).structured_content
    assert unknown == {
        "error": "Unknown argument 'page_size' (did you mean 'limit'?). Allowed arguments: "
        "query, filters, limit, offset, interpret, collapse_duplicates, detail.",
        "code": "invalid_argument",
    }
    assert conflict["error"] == (
        "'pagination.limit' and 'limit' are the same argument with different values."
    )
    assert bad["error"] == aliases.PAGINATION_NOT_OBJECT
    assert schema["argument_aliases"] == {
        "query_text": "query",
        "pagination.limit": "limit",
        "pagination.offset": "offset",
        "filters.min_total_area": "filters.min_area",
        "filters.max_total_area": "filters.max_area",
    }


async def test_a_brief_page_says_what_was_read_and_not_applied(mcp_server):
    arguments = {"query": "найдешевші квартири у Львові", "detail": "brief", "limit": 3}
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool("hybrid_search", arguments)
    said = result.structured_content["interpreted"]
    assert said["summary"] == "Зрозуміли: Квартира · Львів"
    assert list(said["refused"]) == ["sort_by"]  # relevance ranks; the agent is told
    assert "filters" not in said and "chips" not in said


async def test_a_brief_price_sorted_page_says_its_deals_are_mixed_and_each_cards_deal(mcp_server):
    arguments = {"query": "найдешевші квартири у Львові", "detail": "brief", "limit": 20}
    async with Client(mcp_server.mcp_url) as client:
        mixed = (await client.call_tool("search_by_metadata", arguments)).structured_content
        sales = await client.call_tool(
            "search_by_metadata", {**arguments, "filters": {"deal_type": "sale"}}
        )
    assert mixed["warnings"] == [MIXED_DEALS_SORT_WARNING]
    assert {card["deal_type"] for card in mixed["listings"]} <= {"sale", "rent_long", "rent_short"}
    assert all("deal_type" in card for card in mixed["listings"])
    assert "warnings" not in sales.structured_content
    assert {card["deal_type"] for card in sales.structured_content["listings"]} == {"sale"}


async def test_a_brief_page_keeps_the_embedding_note(mcp_server, listings_access):
    from asgiref.sync import sync_to_async

    from listings.models import PropertyListing

    unembedded = await sync_to_async(
        lambda: PropertyListing.objects.filter(embedding__isnull=True).order_by("id").first().id
    )()
    async with Client(mcp_server.mcp_url) as client:
        result = await client.call_tool(
            "find_similar_to_listing", {"listing_id": unembedded, "detail": "brief", "limit": 3}
        )
    page = result.structured_content
    assert "embedded now" in page["embedding_note"] and len(page["listings"]) == 3


@pytest.mark.parametrize("mode", MODES)
async def test_detail_levels_sizes_and_paging_hints(mcp_server, mode):
    arguments = {"query": QUERY, "limit": 10, "collapse_duplicates": False}
    sizes = {}
    async with Client(mcp_server.mcp_url, mode=mode) as client:
        pages = {}
        for detail in ("brief", "card", "full"):
            result = await client.call_tool("hybrid_search", {**arguments, "detail": detail})
            assert not result.is_error
            pages[detail] = result.structured_content
            sizes[detail] = text_bytes(result)
            assert json.loads(result.content[0].text) == pages[detail]
        bad = error_of(await client.call_tool("hybrid_search", {**arguments, "detail": "huge"}))
        following = await client.call_tool(
            "hybrid_search", {**arguments, "offset": pages["card"]["next_offset"]}
        )
    ids = [card["id"] for card in pages["card"]["listings"]]
    for detail, page in pages.items():
        assert page["detail"] == detail and len(page["listings"]) == 10
        assert [card["id"] for card in page["listings"]] == ids
        assert page["has_more"] is True and page["next_offset"] == 10
        assert page["truncated"] is False
    brief = pages["brief"]["listings"][0]
    # a price means nothing without its deal: 900 UAH a day or 900 000 for a sale
    assert all("deal_type" in card for card in pages["brief"]["listings"])
    assert {"id", "title", "score"} <= set(brief) <= {*shaping.BRIEF_FIELDS, "score"}
    assert pages["brief"]["untrusted_content"]["fields"] == ["title"]
    # what was read from the query, in words, without the filters and chips the card page has
    said = pages["brief"]["interpreted"]
    assert said["summary"] == pages["card"]["interpreted"]["summary"]
    assert said["summary"].startswith("Зрозуміли: ") and set(said) <= set(shaping.BRIEF_INTERPRETED)
    full = pages["full"]["listings"][0]
    assert "description" in full and "contact_phone" in full and "fused_score" in full
    assert sizes["brief"] <= 3_300, sizes
    assert sizes["card"] <= 12_000, sizes
    assert sizes["brief"] < sizes["card"] < sizes["full"]
    assert bad["error"] == shaping.DETAIL_UNKNOWN
    assert not {c["id"] for c in following.structured_content["listings"]} & set(ids)
