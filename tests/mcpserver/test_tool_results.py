"""A tool's answer is made once: its structured content, and our compact text block."""

from __future__ import annotations

import json

import pytest
from mcp.server.mcpserver.utilities import func_metadata

from mcpserver.server import mcp

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("listings_access")]


async def test_a_model_answer_skips_the_sdks_indented_text_and_keeps_its_content(monkeypatch):
    """The SDK writes the answer as indented JSON for its text block (0.12 ms for a 10-card
    page, 0.35 ms for 50), which answers.finish replaces: it is no longer made."""
    arguments = {"query": "квартира з балконом", "limit": 10, "interpret": False}
    before = await mcp.call_tool("search_similar_listings", dict(arguments))
    made: list[object] = []
    original = func_metadata._convert_to_content
    monkeypatch.setattr(
        func_metadata, "_convert_to_content", lambda value: made.append(value) or original(value)
    )
    after = await mcp.call_tool("search_similar_listings", dict(arguments))
    assert made == []
    assert after.structured_content == before.structured_content
    assert len(after.structured_content["listings"]) == 10
    text = after.content[0].text
    assert json.loads(text) == after.structured_content and "\n" not in text

    # A tool that answers with a dict (no model) still gets the SDK's own conversion.
    schema = await mcp.call_tool("describe_schema", {})
    assert made and schema.structured_content["columns"]
    assert json.loads(schema.content[0].text) == schema.structured_content
