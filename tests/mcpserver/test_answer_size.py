"""What a page of cards costs on the wire (issue 13, item 6; the README's figures)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from mcpserver import shaping

from .conftest import RunningServer, call_tool_over_http, start_server, stop_server

QUERY = "двокімнатна квартира біля метро з балконом"
# The whole HTTP response body of tools/call on the test database (README: Performance): the
# text block, structuredContent and a resource link per card. Measured: 10 cards 22 716 bytes
# with MCP_RESULT_TEXT=full, 14 853 with brief (issue 13's target: 15 KB); 50 asked, the page
# is cut at a whole card by MCP_MAX_RESULT_TOKENS (10 000 estimated tokens, 30 000 bytes of
# what the model is given): 28 cards, 58 446 bytes (full), 30 cards, 40 650 bytes (brief).
# (Before "біля" left the searched text the page held other cards: 22 282 bytes for 10.)
WIRE_LIMITS = {
    ("full", 10): 23_000,
    ("full", 50): 59_000,
    ("brief", 10): 15 * 1024,
    ("brief", 50): 42_000,
}
# The same answers gzip-compressed for a client that accepts it (the SDK's httpx client does):
# measured 4 418 bytes for 10 cards with the full text block, 8 923 for 50 (28 cards).
GZIP_WIRE_LIMITS = {10: 5_500, 50: 10_500}
CARDS_KEPT = {("full", 10): 10, ("full", 50): 28, ("brief", 10): 10, ("brief", 50): 30}
ONLY_WHEN_SET = {
    "snippet_truncated",
    "truncated_fields",
    "similarity_score",
    "distance",
    "rank_score",
    "fused_score",
    "semantic_rank",
    "fulltext_rank",
    "duplicate_ids",
    "duplicates_note",
}


def _call(url: str, limit: int, encoding: str = "identity") -> httpx.Response:
    arguments = {"query": QUERY, "limit": limit, "collapse_duplicates": False}
    return call_tool_over_http(url, "search_similar_listings", arguments, encoding)


@pytest.fixture(scope="module")
def brief_text_server(listings_db, tmp_path_factory) -> Iterator[RunningServer]:
    server = start_server(tmp_path_factory.mktemp("server-brief-text"), MCP_RESULT_TEXT="brief")
    yield server
    stop_server(server)


@pytest.mark.parametrize("limit", [10, 50])
@pytest.mark.parametrize("text_form", ["full", "brief"])
def test_a_page_of_cards_stays_within_its_wire_size(request, text_form, limit):
    server = request.getfixturevalue("mcp_server" if text_form == "full" else "brief_text_server")
    response = _call(server.mcp_url, limit)
    assert response.status_code == 200, response.text[:300]
    assert "content-encoding" not in response.headers
    body = response.content
    result = json.loads(body)["result"]
    page = result["structuredContent"]
    cut = limit > 10
    assert page["truncated"] is cut and page["has_more"] is True
    assert len(page["listings"]) == CARDS_KEPT[text_form, limit]
    assert page["next_offset"] == len(page["listings"])
    print(f"{text_form} text, {limit} asked: {len(page['listings'])} cards, {len(body)} bytes")
    assert len(body) <= WIRE_LIMITS[text_form, limit], len(body)
    # The budget counts what a host gives the model: structuredContent, or text and links.
    text = result["content"][0]["text"]
    links = [part for part in result["content"][1:] if part["type"] == "resource_link"]
    link_bytes = sum(len(shaping.compact_json(link).encode()) + 1 for link in links)
    given = shaping.model_bytes(page, text, link_bytes)
    assert shaping.estimate_tokens(given) <= 10_000
    if cut:  # cut because one more card (1 to 3 KB here) would not have fitted
        assert shaping.estimate_tokens(given + 3_000) > 10_000
    assert [link["uri"] for link in links] == [f"listing://{c['id']}" for c in page["listings"]]
    assert all(set(link) == {"type", "uri", "name"} for link in links)  # no title twice
    assert "\\u04" not in text and '": ' not in text
    if text_form == "full":  # the text block is the same page as compact UTF-8 JSON, once
        assert json.loads(text) == page
    else:  # the brief cards, and where the rest is
        brief = json.loads(text)
        assert brief["note"] == shaping.BRIEF_TEXT_NOTE
        assert brief["listings"] == [shaping.brief_card(card) for card in page["listings"]]
        assert brief["next_offset"] == page["next_offset"] and "snippet" not in text
    for card in page["listings"]:
        # A field sent with nothing in it is left out; cosine distance is 1 − similarity.
        assert not [key for key in ONLY_WHEN_SET & set(card) if card[key] in (None, False, [])]
        assert "distance" not in card and card["similarity_score"] > -1


def test_an_unknown_result_text_stops_the_server_at_start():
    env = {**os.environ, "MCP_RESULT_TEXT": "summary"}
    done = subprocess.run(
        [sys.executable, "-c", "import vmkproject.settings"],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured: MCP_RESULT_TEXT must be full or brief" in done.stderr


@pytest.mark.parametrize("limit", [10, 50])
def test_a_client_that_accepts_gzip_gets_the_same_page_compressed(mcp_server, limit):
    plain = _call(mcp_server.mcp_url, limit)
    packed = _call(mcp_server.mcp_url, limit, encoding="gzip")
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    wire = packed.num_bytes_downloaded
    print(f"{limit} asked: {len(plain.content)} bytes plain, {wire} gzip-compressed")
    assert wire <= GZIP_WIRE_LIMITS[limit] < len(plain.content) // 2
    assert json.loads(packed.content)["result"] == json.loads(plain.content)["result"]


def test_a_short_answer_and_an_error_go_uncompressed(mcp_server):
    """Below MCP_GZIP_MIN_BYTES compressing costs more than it saves."""
    for arguments in ({"listing_id": 999_999_999}, {"listing_id": "x"}):
        response = call_tool_over_http(
            mcp_server.mcp_url, "get_listing_by_id", arguments, encoding="gzip"
        )
        assert response.status_code == 200
        assert json.loads(response.content)["result"]["isError"] is True
        assert "content-encoding" not in response.headers
        assert response.num_bytes_downloaded < settings.MCP_GZIP_MIN_BYTES


@pytest.fixture(scope="module")
def uncompressed_server(listings_db, tmp_path_factory) -> Iterator[RunningServer]:
    server = start_server(tmp_path_factory.mktemp("server-no-gzip"), MCP_GZIP_MIN_BYTES="0")
    yield server
    stop_server(server)


def test_compression_can_be_turned_off(uncompressed_server):
    response = _call(uncompressed_server.mcp_url, 10, encoding="gzip")
    assert response.status_code == 200 and "content-encoding" not in response.headers
    assert response.num_bytes_downloaded == len(response.content) > 20_000


@pytest.mark.anyio
async def test_the_sdk_client_receives_pages_compressed_and_reads_them(mcp_server):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    encodings: list[str | None] = []

    async def record(response: httpx2.Response) -> None:
        if response.request.method == "POST":
            encodings.append(response.headers.get("content-encoding"))

    async with (
        httpx2.AsyncClient(event_hooks={"response": [record]}) as http,
        Client(streamable_http_client(mcp_server.mcp_url, http_client=http)) as client,
    ):
        result = await client.call_tool("search_similar_listings", {"query": QUERY, "limit": 10})
    assert not result.is_error
    assert len(result.structured_content["listings"]) == 10
    assert json.loads(result.content[0].text) == result.structured_content
    assert encodings[-1] == "gzip"
