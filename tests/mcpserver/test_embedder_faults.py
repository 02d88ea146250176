"""The embedder failing makes semantic tools fail cleanly; every other tool keeps working."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from .conftest import free_port, start_server, stop_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server_without_ollama(listings_db, tmp_path_factory):
    # Nothing listens on this port: Ollama is down.
    server = start_server(
        tmp_path_factory.mktemp("no-ollama"),
        EMBEDDER="ollama",
        OLLAMA_HOST=f"http://127.0.0.1:{free_port()}",
        OLLAMA_TIMEOUT_SEC="2",
    )
    yield server
    stop_server(server)


async def test_semantic_tools_report_embedding_unavailable_and_others_work(server_without_ollama):
    async with Client(server_without_ollama.mcp_url) as client:
        for tool in ("search_similar_listings", "hybrid_search"):
            result = await client.call_tool(tool, {"query": "квартира біля метро"})
            assert result.is_error
            error = json.loads(result.content[0].text)
            assert error["code"] == "embedding_unavailable"
            assert "Traceback" not in error["error"]
        text = await client.call_tool("search_by_metadata", {"query": "квартира"})
        assert not text.is_error and text.structured_content["total"] > 0
        card = await client.call_tool("get_listing_by_id", {"listing_id": 1})
        assert not card.is_error
        similar = await client.call_tool("find_similar_to_listing", {"listing_id": 1})
        assert not similar.is_error  # stored vectors need no embedding call
        stats = await client.call_tool("listing_stats", {"group_by": "city"})
        assert not stats.is_error
