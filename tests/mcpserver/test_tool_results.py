"""A tool's answer is made once: its structured content, and our compact text block."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from mcp.server.mcpserver.utilities import func_metadata
from mcp.shared.inbound import validate_mcp_param_headers
from pydantic import Field

from mcpserver.server import VmkMCPServer, mcp

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


def test_only_a_tool_declaring_mcp_param_headers_has_them_checked():
    """The SDK checks a call's Mcp-Param-* headers against its tool's schema by walking it
    twice (0.1 ms for a search tool): skipped for a tool that declares none, where the check
    can reject nothing; a tool that declares one is checked as before."""
    stray = {"mcp-param-city": "Львів", "mcp-param-query": "інше"}
    arguments = {"query": "квартира", "filters": {"city": "Київ"}}
    for tool in ("search_similar_listings", "hybrid_search", "get_listing_by_id"):
        assert mcp._tool_input_schema(tool) is None
        full = mcp._tool_manager.get_tool(tool).parameters
        assert validate_mcp_param_headers(full, arguments, stray) is None  # as skipping

    server = VmkMCPServer("headers")

    @server.tool()
    def routed(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        return region

    schema = server._tool_input_schema("routed")
    assert schema is not None
    assert validate_mcp_param_headers(schema, {"region": "a"}, {"mcp-param-region": "b"})
    assert validate_mcp_param_headers(schema, {"region": "a"}, {"mcp-param-region": "a"}) is None
