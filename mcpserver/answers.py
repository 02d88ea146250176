"""The MCP layer around a tool call: arguments in (aliases, `detail`), the answer out (shaped
page, size budget, compact text, resource links)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from listings.errors import InvalidArgument, NotFound, SearchError

from . import aliases, shaping
from .catalog import SEARCH_TOOLS
from .runner import run_search

UNKNOWN_TOOL = "Unknown tool '{name}'. Tools: {tools}."
# The resource-not-found code of the 2025 revisions; 2026-07-28 (SEP-2164) uses -32602.
RESOURCE_NOT_FOUND_2025 = -32002


def unknown_tool(name: str, tools: list[str]) -> MCPError:
    """JSON-RPC -32602: the spec's answer to a tool the server does not have (a tool result
    is kept for argument errors, which the model can correct)."""
    return MCPError(
        code=INVALID_PARAMS,
        message=UNKNOWN_TOOL.format(name=name[:100], tools=", ".join(tools)),
        data={"code": "invalid_argument"},
    )


def prepare(name: str, arguments: dict[str, Any], parameters: dict[str, Any]) -> tuple[dict, str]:
    """Canonical arguments for the tool and the detail level asked for."""
    names = list(parameters.get("properties", {}))
    if name in SEARCH_TOOLS:
        names.append("detail")
    canonical = aliases.canonical(arguments, names)
    detail = shaping.parse_detail(canonical.pop("detail", "card")) if name in SEARCH_TOOLS else ""
    return canonical, detail


async def finish(name: str, result: Any, detail: str) -> Any:
    """The tool's answer as agents get it: compact JSON text (a search page's brief form with
    MCP_RESULT_TEXT=brief), shaped search pages with a resource link per card, every answer
    within MCP_MAX_RESULT_TOKENS (counting structuredContent and the text block)."""
    if not isinstance(result, CallToolResult) or result.is_error:
        return result
    content = result.structured_content
    if content is None:
        return result
    links = []
    budget = settings.MCP_MAX_RESULT_TOKENS
    text_form = settings.MCP_RESULT_TEXT
    if name in SEARCH_TOOLS:
        details = None
        if detail == "full" and content.get("listings"):
            ids = [card["id"] for card in content["listings"]]
            details = await run_search("listing_details", shaping.listing_details, listing_ids=ids)
        content, text = shaping.shaped_answer(
            content, detail=detail, max_tokens=budget, details=details, text=text_form
        )
        links = [shaping.resource_link(card) for card in content["listings"]]
    else:
        if name == "get_listing_by_id":
            content, text = shaping.fit_listing(content, max_tokens=budget)
        else:
            if name == "describe_schema":
                content = {**content, "argument_aliases": aliases.described()}
            text = shaping.compact_json(content)
    block = TextContent(type="text", text=text)
    return result.model_copy(update={"content": [block, *links], "structured_content": content})


def resource_error_code(error: SearchError, protocol_version: str | None) -> int | None:
    """The JSON-RPC code of a caller's mistake in resources/read, by protocol revision."""
    if isinstance(error, NotFound):
        modern = protocol_version in MODERN_PROTOCOL_VERSIONS
        return INVALID_PARAMS if modern else RESOURCE_NOT_FOUND_2025
    if isinstance(error, InvalidArgument):
        return INVALID_PARAMS
    return None
