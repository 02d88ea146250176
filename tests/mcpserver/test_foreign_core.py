"""The real server on scratch databases it did not create: no `ukrainian` configuration, no
HNSW index, all-zero embeddings, huge texts (issue 11, items 1, 2, 7, 8, 9)."""

from __future__ import annotations

import json
import math

import httpx
import psycopg
import pytest
from django.conf import settings
from mcp import Client

from listings import capabilities, search
from listings.results import CARD_MAX_BYTES, PAGE_MAX_BYTES
from tests.mcpserver.conftest import start_server, stop_server
from tests.scratch_db import HUGE_ROOMS, embedded_server, make_scratch_database

pytestmark = pytest.mark.anyio

QUERY = "двокімнатна квартира біля метро з балконом"
FTS_WARNING = capabilities.FTS_CONFIG_MISSING.format(config="ukrainian", fallback="simple")


INTERPRETING = {"search_similar_listings", "search_by_metadata", "hybrid_search"}


async def fifty_cards(client: Client, tool: str, arguments: dict) -> tuple[object, list[dict]]:
    # The query as it is: reading constraints out of it is tested in test_interpret_tools.py.
    raw = {"interpret": False} if tool in INTERPRETING else {}
    """The first result and the first 50 cards, over as many pages as the budget makes."""
    cards: list[dict] = []
    first = None
    offset = 0
    while len(cards) < 50:
        result = await client.call_tool(tool, {**arguments, "limit": 50, "offset": offset, **raw})
        first = first or result
        page = result.structured_content
        cards += page["listings"]
        if not page["has_more"]:
            break
        offset = page["next_offset"]
    return first, cards[:50]


def error_of(result) -> dict:
    assert result.is_error
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def bare_database(listings_db):
    """No `ukrainian` configuration (uk_alt instead), no HNSW index, zero vectors, huge texts."""
    return make_scratch_database(
        "core_bare", ukrainian=False, hnsw=False, zero_vectors=3, huge_texts=50, alt_config=True
    )


def _server_on(url: str, tmp_dir):
    """The server on a scratch database, taking the HNSW branch whatever the filter keeps."""
    return start_server(
        tmp_dir, LISTINGS_DATABASE_URL=url, EMBEDDER="offline", EXACT_VECTOR_SEARCH_MAX_ROWS="0"
    )


@pytest.fixture(scope="module")
def bare_server(bare_database, tmp_path_factory):
    server = _server_on(bare_database[0], tmp_path_factory.mktemp("bare"))
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def indexed_database(listings_db):
    """Our shape, with zero vectors, on which the planner prefers indexes."""
    return make_scratch_database("core_indexed", zero_vectors=3, prefer_indexes=True)


@pytest.fixture(scope="module")
def indexed_server(indexed_database, tmp_path_factory):
    server = _server_on(indexed_database[0], tmp_path_factory.mktemp("indexed"))
    yield server
    stop_server(server)


async def test_without_the_ukrainian_config_text_search_falls_back_to_simple(bare_server):
    async with Client(bare_server.mcp_url) as client:
        for _ in range(2):
            text = await client.call_tool(
                "search_by_metadata", {"query": "квартира", "interpret": False}
            )
            assert not text.is_error, text.content[0].text
            assert text.structured_content["fts_config"] == "simple"
            assert text.structured_content["mode"] == "fulltext"
        hybrid = await client.call_tool(
            "hybrid_search", {"query": QUERY, "limit": 5, "interpret": False}
        )
        assert not hybrid.is_error, hybrid.content[0].text
        assert hybrid.structured_content["fts_config"] == "simple"
        assert len(hybrid.structured_content["listings"]) == 5
        schema = (await client.call_tool("describe_schema", {})).structured_content
    full_text = schema["full_text"]
    assert (full_text["configured"], full_text["fts_config"]) == ("ukrainian", "simple")
    assert full_text["config_found"] is False and full_text["morphology"] is False
    assert FTS_WARNING in schema["database_warnings"]
    health = httpx.get(f"{bare_server.url}/health", timeout=10).json()
    assert health["status"] == "degraded"
    assert health["database"]["full_text"]["fts_config"] == "simple"
    assert FTS_WARNING in health["database"]["warnings"]
    log = bare_server.log_text()
    assert log.count(FTS_WARNING) == 1  # once per process, not per call or connection
    assert "internal_error" not in log and "Traceback" not in log


async def test_without_an_hnsw_index_vector_search_says_it_ran_exactly(bare_server):
    async with Client(bare_server.mcp_url) as client:
        page = (
            await client.call_tool(
                "search_similar_listings", {"query": QUERY, "limit": 5, "interpret": False}
            )
        ).structured_content
        schema = (await client.call_tool("describe_schema", {})).structured_content
    assert page["index_used"] == search.EXACT_PATH
    assert page["total_exact"] is True
    assert schema["indexes"]["vector_hnsw"] is None
    assert schema["indexes"]["full_text_gin"] == "ix_property_listings_search_vector_gin"
    assert capabilities.HNSW_MISSING in schema["database_warnings"]


async def test_the_exact_ranking_counts_no_all_zero_vector(bare_server, bare_database):
    """The exact scan reads each vector once: an all-zero one has a NaN distance, which is
    neither ranked nor counted (the norm is no longer checked row by row)."""
    url, picked = bare_database
    with psycopg.connect(url) as conn:
        embedded = conn.execute(
            "SELECT count(*) FROM property_listings WHERE embedding IS NOT NULL"
        ).fetchone()[0]
    async with Client(bare_server.mcp_url) as client:
        result = await client.call_tool(
            "search_similar_listings",
            {
                "query": QUERY,
                "filters": {"listing_status": "any"},
                "limit": 50,
                "offset": embedded - len(picked["zero"]) - 5,
                "interpret": False,
                "collapse_duplicates": False,
            },
        )
    page = result.structured_content
    assert page["index_used"] == search.EXACT_PATH
    assert (page["total"], page["total_exact"]) == (embedded - len(picked["zero"]), True)
    assert len(page["listings"]) == 5  # the last ones ranked: no zero vector after them
    assert not {card["id"] for card in page["listings"]} & set(picked["zero"])
    assert all(math.isfinite(card["similarity_score"]) for card in page["listings"])


@pytest.mark.parametrize("fixture", ["bare", "indexed"])
async def test_zero_vectors_are_never_neighbours(fixture, request):
    server = request.getfixturevalue(f"{fixture}_server")
    _, picked = request.getfixturevalue(f"{fixture}_database")
    zero = picked["zero"]
    async with Client(server.mcp_url) as client:
        # every card of a full page counts here: no folding of duplicates
        semantic, semantic_cards = await fifty_cards(
            client,
            "search_similar_listings",
            {"query": QUERY, "collapse_duplicates": False},
        )
        source = semantic_cards[0]["id"]
        _, similar_cards = await fifty_cards(
            client, "find_similar_to_listing", {"listing_id": source}
        )
        empty = await client.call_tool("find_similar_to_listing", {"listing_id": zero[0]})
        card = await client.call_tool("get_listing_by_id", {"listing_id": zero[0]})
    for cards in (semantic_cards, similar_cards):
        assert len(cards) == 50
        assert not set(zero) & {c["id"] for c in cards}
        assert all(math.isfinite(c["similarity_score"]) for c in cards)
    expected = search.HNSW_INDEX if fixture == "indexed" else search.EXACT_PATH
    assert semantic.structured_content["index_used"] == expected
    # an all-zero vector has no direction: the listing's text is embedded instead
    assert not empty.is_error, empty.content[0].text
    assert empty.structured_content["embedding_note"] == search.EMBEDDED_NOW_NOTE.format(
        listing_id=zero[0], why=search.EMPTY_EMBEDDING
    )
    assert not set(zero) & {c["id"] for c in empty.structured_content["listings"]}
    assert card.structured_content["has_embedding"] is False


async def test_a_page_of_huge_texts_stays_within_its_byte_budget(bare_server):
    async with Client(bare_server.mcp_url) as client:
        result = await client.call_tool(
            "search_by_metadata",
            {"filters": {"rooms_count": HUGE_ROOMS, "listing_status": "any"}, "limit": 50},
        )
        detail = await client.call_tool(
            "get_listing_by_id", {"listing_id": result.structured_content["listings"][0]["id"]}
        )
    page = result.structured_content
    # Past the size budget the page is cut at a whole card and says where to go on.
    assert 0 < len(page["listings"]) < 50 and page["truncated"] is True
    assert page["next_offset"] == len(page["listings"]) and page["has_more"] is True
    text = result.content[0].text
    assert len(text.encode()) <= min(PAGE_MAX_BYTES, 3 * settings.MCP_MAX_RESULT_TOKENS)
    assert json.loads(text) == page
    assert "\n" not in text and '": ' not in text  # compact
    assert "квартира" in text  # Cyrillic as itself, not \u-escaped
    for card in page["listings"]:
        size = len(json.dumps(card, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= CARD_MAX_BYTES
        assert {"title", "city", "district", "metro_station", "url_source", "currency"} <= set(
            card["truncated_fields"]
        )
        assert card["snippet_truncated"] is True
    full = detail.structured_content
    assert len(full["description"]) <= 20_000
    assert {"description", "address_raw", "city"} <= set(full["truncated_fields"])


PARTIAL_INDEX = "ix_listings_kyiv_embedding_hnsw"
DENSER_INDEX = "ix_listings_embedding_hnsw_m24"


@pytest.fixture(scope="module")
def partial_database(listings_db):
    """No whole-table HNSW index: a partial one for Київ, as `check_listings_db --advise`
    proposes for a big city, on which the planner prefers indexes."""
    url, picked = make_scratch_database("core_partial", hnsw=False, prefer_indexes=True)
    with embedded_server().connect("core_partial") as conn:
        conn.execute(
            f"CREATE INDEX {PARTIAL_INDEX} ON property_listings "
            "USING hnsw (embedding vector_cosine_ops) WHERE city = 'Київ'"
        )
    return url, picked


@pytest.fixture(scope="module")
def partial_server(partial_database, tmp_path_factory):
    server = _server_on(partial_database[0], tmp_path_factory.mktemp("partial"))
    yield server
    stop_server(server)


async def _semantic(client, city):
    result = await client.call_tool(
        "search_similar_listings",
        {"query": QUERY, "limit": 10, "filters": {"city": city}, "interpret": False},
    )
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_a_partial_hnsw_index_ranks_the_filter_its_where_fits(partial_server):
    """index_used names the index the plan scans: the partial one for Київ; Львів, which no
    index serves, is ranked exactly (before, any plan not on the whole-table index was run
    as the exact scan, and a database with only partial indexes never used them)."""
    async with Client(partial_server.mcp_url) as client:
        kyiv = await _semantic(client, "Київ")
        lviv = await _semantic(client, "Львів")
        schema = (await client.call_tool("describe_schema", {})).structured_content
    assert kyiv["index_used"] == PARTIAL_INDEX and len(kyiv["listings"]) == 10
    assert {card["city"] for card in kyiv["listings"]} == {"Київ"}
    scores = [card["similarity_score"] for card in kyiv["listings"]]
    assert scores == sorted(scores, reverse=True)
    assert lviv["index_used"] == search.EXACT_PATH and len(lviv["listings"]) == 10
    assert {card["city"] for card in lviv["listings"]} == {"Львів"}
    assert schema["indexes"]["vector_hnsw"] is None
    assert schema["indexes"]["vector_hnsw_other"] == [PARTIAL_INDEX]
    log = partial_server.log_text()
    assert "internal_error" not in log and "Traceback" not in log


async def test_index_used_names_the_index_the_planner_picked_among_two(indexed_database, tmp_path):
    """A denser HNSW index built beside the old one (--advise's rebuild): whichever the plan
    scans is the one reported, and the search stays on an index."""
    url, _ = indexed_database
    with embedded_server().connect("core_indexed") as conn:
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {DENSER_INDEX} ON property_listings "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 24, ef_construction = 100)"
        )
    server = _server_on(url, tmp_path)
    try:
        async with Client(server.mcp_url) as client:
            page = await _semantic(client, "Київ")
            schema = (await client.call_tool("describe_schema", {})).structured_content
    finally:
        stop_server(server)
        with embedded_server().connect("core_indexed") as conn:
            conn.execute(f"DROP INDEX IF EXISTS {DENSER_INDEX}")
    both = {"ix_property_listings_embedding_hnsw", DENSER_INDEX}
    assert page["index_used"] in both and len(page["listings"]) == 10
    indexes = schema["indexes"]
    assert {indexes["vector_hnsw"], *indexes["vector_hnsw_other"]} == both
