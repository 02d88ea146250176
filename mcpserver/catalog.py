"""What tools/list shows: titles, the icon, a fixed order and compact schemas; cache hints.

Every session pays for tools/list in tokens. Pydantic's schemas repeat a `title` per field,
and each search tool carried the whole filter documentation and the full card schema
(~10 KB a tool); describe_schema documents the filters once, so the list keeps the names and
types only, and search tools publish a small output schema that every detail level fits.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from django.conf import settings
from mcp.server.caching import CacheHint
from mcp_types import Icon
from mcp_types import Tool as MCPTool

from listings import types

# The order tools/list shows them in: the usual first call first.
TOOL_TITLES = {
    "hybrid_search": "Hybrid search (meaning + words)",
    "search_similar_listings": "Semantic search",
    "search_by_metadata": "Full-text and filter search",
    "find_similar_to_listing": "More like this listing",
    "get_listing_by_id": "Listing card by id",
    "listing_stats": "Price statistics",
    "price_trends": "Price trends",
    "market_context": "Is this a good price?",
    "find_duplicates": "Duplicate listings",
    "describe_schema": "Schema and allowed values",
}
SEARCH_TOOLS = frozenset(
    {"search_similar_listings", "search_by_metadata", "hybrid_search", "find_similar_to_listing"}
)
DETAILS = types.DETAILS  # the detail levels, typed once (listings.types.Detail)
DETAIL_ARGUMENT = {
    "enum": list(DETAILS),
    "default": "card",
    "description": "brief: id, title, price, deal, place, rooms, area, score; full: all fields.",
}
# Once per tool that takes filters: describe_schema says what each means and allows.
FILTERS_DESCRIPTION = "Optional, AND-ed; see describe_schema."
ICON_PATH = "static/mcpserver/icon.svg"
# A line break inside a paragraph, unless a list item follows it.
WRAPPED_LINE = re.compile(r"(?<=\S)\n(?=[^\n\-*•\d])")

_CARD = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
PAGE_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "total": {"type": "integer"},
        "total_exact": {"type": "boolean"},
        "limit": {"type": "integer"},
        "offset": {"type": "integer"},
        "mode": {"type": "string"},
        "detail": {"enum": list(DETAILS)},
        "has_more": {"type": "boolean"},
        "next_offset": {"type": ["integer", "null"]},
        "truncated": {"type": "boolean"},
        "listings": {"type": "array", "items": _CARD},
    },
    "required": ["listings", "has_more", "next_offset"],
}


def icons() -> list[Icon]:
    base = settings.MCP_PUBLIC_URL or f"http://{settings.MCP_HOST}:{settings.MCP_PORT}"
    url = f"{base.rstrip('/')}/{ICON_PATH}"
    # no `sizes`: optional, and an SVG has none (10 tools, 160 bytes of tools/list)
    return [Icon(src=url, mime_type="image/svg+xml")]


def cache_hints() -> dict[Any, CacheHint]:
    """The same for every caller (no per-agent content), so `public`."""
    hint = CacheHint(ttl_ms=settings.MCP_CACHE_TTL_SEC * 1000, scope="public")
    methods = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
    return {method: hint for method in (*methods, "server/discover")}


def _strip(node: Any, keys: frozenset[str]) -> Any:
    """`node` without the schema keywords in `keys` (property *names* are kept)."""
    if isinstance(node, list):
        return [_strip(item, keys) for item in node]
    if not isinstance(node, dict):
        return node
    result = {}
    for key, value in node.items():
        if key in keys and not isinstance(value, dict):
            continue
        if key in {"properties", "$defs"}:
            result[key] = {name: _strip(sub, keys) for name, sub in value.items()}
        else:
            result[key] = _strip(value, keys)
    return result


def _nullable(node: Any) -> Any:
    """`anyOf: [{"type": T, ...}, {"type": "null"}]` as `{"type": [T, "null"], ...}`; no
    `default: null`. The same values validate, in a third of the bytes."""
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _nullable(value) for key, value in node.items()}
    if node.get("default", 0) is None:
        del node["default"]
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (other,) = [option for option in options if option != {"type": "null"}]
        if isinstance(other.get("type"), str):
            del node["anyOf"]
            node.update({**other, "type": [other["type"], "null"]})
            if isinstance(other.get("enum"), list):  # an enum lists every value it allows
                node["enum"] = [*other["enum"], None]
    return node


def compact_input(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    schema = _nullable(_strip(schema, frozenset({"title"})))
    defs = schema.get("$defs", {})
    properties = schema.get("properties", {})
    if "Filters" in defs and "filters" in properties:
        # Names only: the server checks each value and says what is allowed.
        names: dict[str, Any] = {name: {} for name in defs.pop("Filters").get("properties", {})}
        properties["filters"] = {
            "type": ["object", "null"],
            "properties": names,
            "additionalProperties": False,
            "description": FILTERS_DESCRIPTION,
        }
    if not defs:
        schema.pop("$defs", None)
    if name in SEARCH_TOOLS:
        properties["detail"] = DETAIL_ARGUMENT
    return schema


def compact_output(name: str, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if name in SEARCH_TOOLS:
        return PAGE_OUTPUT_SCHEMA
    if schema is None:
        return None
    # Top-level names only: what a host checks a result against, at a fraction of the bytes.
    shown: dict[str, Any] = {"type": "object"}
    if "properties" in schema:
        shown["properties"] = {name: {} for name in schema["properties"]}
    if name == "get_listing_by_id":
        # A card requires its id, as in a search page's cards: the 38 field names again as
        # `required` were 600 bytes of every tools/list.
        shown["required"] = _CARD["required"]
    elif schema.get("required"):
        shown["required"] = schema["required"]
    return shown


def unwrapped(docstring: str) -> str:
    """A docstring as a description: without the indentation every line carried, and each
    paragraph on one line, list items on their own (the source's wrapping at 96 columns
    means nothing to a host, and was a byte per line of tools/list)."""
    text = inspect.cleandoc(docstring)
    return WRAPPED_LINE.sub(" ", text)


def publish(tools: list[MCPTool]) -> list[MCPTool]:
    """The tools as tools/list shows them: in TOOL_TITLES order (others after, by name)."""
    order = {name: index for index, name in enumerate(TOOL_TITLES)}
    shown = []
    for tool in sorted(tools, key=lambda t: (order.get(t.name, len(order)), t.name)):
        update = {
            "title": tool.title or TOOL_TITLES.get(tool.name),
            "description": unwrapped(tool.description) if tool.description else None,
            "icons": tool.icons or icons(),
            "input_schema": compact_input(tool.name, tool.input_schema),
            "output_schema": compact_output(tool.name, tool.output_schema),
        }
        shown.append(tool.model_copy(update=update))
    return shown
