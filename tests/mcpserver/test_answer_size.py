"""What a page of cards costs on the wire (issue 13, item 6; the README's figures)."""

from __future__ import annotations

import json

import httpx
import pytest

QUERY = "двокімнатна квартира біля метро з балконом"
# The whole HTTP response body of tools/call on the test database (README: Performance): the
# text block, structuredContent and a resource link per card. A 50-card page is cut at a
# whole card by MCP_MAX_RESULT_TOKENS (10 000 estimated tokens: 30 000 bytes of text).
WIRE_LIMITS = {10: 24 * 1024, 50: 64 * 1024}
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


def _call(url: str, limit: int) -> bytes:
    response = httpx.post(
        url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "search_similar_listings",
                "arguments": {"query": QUERY, "limit": limit, "collapse_duplicates": False},
            },
        },
        headers={
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
        },
        timeout=60,
    )
    assert response.status_code == 200, response.text[:300]
    return response.content


@pytest.mark.parametrize("limit", [10, 50])
def test_a_page_of_cards_stays_within_its_wire_size(mcp_server, limit):
    body = _call(mcp_server.mcp_url, limit)
    result = json.loads(body)["result"]
    page = result["structuredContent"]
    cut = limit > 10
    assert page["truncated"] is cut and page["has_more"] is True
    assert len(page["listings"]) < limit if cut else len(page["listings"]) == limit
    assert page["next_offset"] == len(page["listings"])
    print(f"{limit}-card page: {len(page['listings'])} cards, {len(body)} bytes on the wire")
    assert len(body) <= WIRE_LIMITS[limit], len(body)
    # The text block is the same page as compact UTF-8 JSON, once.
    text = result["content"][0]["text"]
    links = [part for part in result["content"][1:] if part["type"] == "resource_link"]
    assert len(links) == len(page["listings"])
    assert json.loads(text) == page
    assert "\\u04" not in text and '": ' not in text
    for card in page["listings"]:
        # A field sent with nothing in it is left out; cosine distance is 1 − similarity.
        assert not [key for key in ONLY_WHEN_SET & set(card) if card[key] in (None, False, [])]
        assert "distance" not in card and card["similarity_score"] > -1
