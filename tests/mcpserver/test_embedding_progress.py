"""While the demo's embeddings are being filled in: /health says how far, semantic and hybrid
search rank the embedded listings and say so, full text and filters see every listing."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client

from demo import schema
from listings.embedders_progress import (
    EMBEDDING_IN_PROGRESS_NOTE,
    EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY_NOTE,
)
from tests.mcpserver.conftest import start_server, stop_server
from tests.scratch_db import embedded_server, make_scratch_database

pytestmark = pytest.mark.anyio

ROWS = 60
EMBEDDED = 25


@pytest.fixture(scope="module")
def half_embedded(listings_db):
    """60 listings of which only the first 25 have a vector, the demo's progress in vmk_meta."""
    url, _ = make_scratch_database("bg_progress", rows=ROWS)
    with embedded_server().connect("bg_progress") as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM property_listings ORDER BY id")]
        conn.execute("UPDATE property_listings SET embedding = NULL WHERE id > %s", [ids[24]])
        schema.write_meta(
            conn, embedding_pending="1", embedding_done=str(EMBEDDED), embedding_total=str(ROWS)
        )
    return url, set(ids[:EMBEDDED])


@pytest.fixture(scope="module")
def progress_server(half_embedded, tmp_path_factory):
    url, _ = half_embedded
    server = start_server(
        tmp_path_factory.mktemp("progress"), LISTINGS_DATABASE_URL=url, EMBEDDER="offline"
    )
    yield server
    stop_server(server)


NOTE = EMBEDDING_IN_PROGRESS_NOTE.format(done=EMBEDDED, total=ROWS)


async def test_health_says_how_far_the_embedding_is(progress_server):
    health = httpx.get(f"{progress_server.url}/health", timeout=10).json()
    assert health["database"]["embedding"] == {"done": EMBEDDED, "total": ROWS, "complete": False}
    assert health["status"] == "ok"  # it serves meanwhile


async def test_semantic_search_ranks_the_embedded_listings_and_says_so(
    progress_server, half_embedded
):
    _, embedded_ids = half_embedded
    async with Client(progress_server.mcp_url) as client:
        semantic = await client.call_tool(
            "search_similar_listings", {"query": "квартира", "limit": 50, "interpret": False}
        )
        assert not semantic.is_error, semantic.content[0].text
        page = semantic.structured_content
        assert page["embedding_note"] == NOTE
        assert {card["id"] for card in page["listings"]} <= embedded_ids
        assert page["listings"]  # the embedded ones (some copied rows had no vector)

        hybrid = await client.call_tool(
            "hybrid_search", {"query": "квартира", "limit": 50, "interpret": False}
        )
        assert not hybrid.is_error, hybrid.content[0].text
        assert hybrid.structured_content["embedding_note"] == NOTE
        # The text leg still finds listings without a vector.
        assert {card["id"] for card in hybrid.structured_content["listings"]} - embedded_ids

        # A request not in the listings' script: no text side, so the note says who is left
        # out and where to find them.
        english = await client.call_tool(
            "hybrid_search", {"query": "cozy flat", "limit": 50, "interpret": False}
        )
        assert not english.is_error, english.content[0].text
        assert english.structured_content["filters"]["fulltext_mode"] == "fulltext_skipped"
        assert english.structured_content["embedding_note"] == (
            EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY_NOTE.format(done=EMBEDDED, total=ROWS)
        )
        assert {card["id"] for card in english.structured_content["listings"]} <= embedded_ids

        text = await client.call_tool(
            "search_by_metadata", {"query": "квартира", "limit": 50, "interpret": False}
        )
        assert not text.is_error, text.content[0].text
        assert "embedding_note" not in text.structured_content
    log = progress_server.log_text()
    assert "internal_error" not in log and "Traceback" not in log


async def test_a_database_without_progress_has_no_note(mcp_server):
    health = httpx.get(f"{mcp_server.url}/health", timeout=10).json()
    assert "embedding" not in health["database"]
    async with Client(mcp_server.mcp_url) as client:
        semantic = await client.call_tool(
            "search_similar_listings", {"query": "квартира", "interpret": False}
        )
    assert not semantic.is_error
    assert "embedding_note" not in semantic.structured_content
