"""MCP error results: JSON {"error", "code"} with nothing internal in them."""

from __future__ import annotations

import json

from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR as JSONRPC_INTERNAL_ERROR
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent
from pydantic import ValidationError

from listings import search
from listings.errors import InvalidArgument, NotFound, SearchError
from listings.filters import FILTER_NAMES, explain_filter_error

INTERNAL_ERROR = SearchError("The server could not complete this call; it has been logged.")

ARGUMENT_MESSAGES = {
    "limit": search.LIMIT_RANGE,
    "offset": search.OFFSET_RANGE,
    "distance_metric": search.METRIC_UNKNOWN,
    "sort_by": search.SORT_UNKNOWN,
    "min_similarity": search.MIN_SIMILARITY_RANGE,
    "group_by": search.GROUP_BY_UNKNOWN,
    "listing_id": search.LISTING_ID_INVALID,
    "query": search.QUERY_REQUIRED,
}
MISSING_ARGUMENT = "Missing required argument '{name}'."
BAD_ARGUMENT = "Argument '{name}' is not valid: {problem}."
FILTERS_MESSAGE = "'filters' must be an object with these keys: {allowed}."


def error_result(error: SearchError) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(error.as_dict(), ensure_ascii=False))],
        is_error=True,
    )


def explain_validation(exc: ValidationError) -> str:
    """One actionable sentence for the first problem in the tool's arguments."""
    from django.conf import settings

    error = exc.errors()[0]
    location = [part for part in error.get("loc", ()) if not isinstance(part, int)]
    name = str(location[0]) if location else ""
    kind = error.get("type", "")
    if kind == "missing":
        return MISSING_ARGUMENT.format(name=name)
    if name == "filters":
        inner = [str(part) for part in location[1:]]
        # Pydantic names the union member ("Filters") before the field: drop it.
        inner = [part for part in inner if part != "Filters"]
        if kind in {"model_type", "dict_type", "model_attributes_type"} and not inner:
            return FILTERS_MESSAGE.format(allowed=", ".join(FILTER_NAMES))
        return explain_filter_error({**error, "loc": tuple(inner)})
    template = ARGUMENT_MESSAGES.get(name)
    if template is not None:
        return template.format(
            max_limit=settings.MAX_LIMIT, max_offset=search.MAX_OFFSET, allowed="USD, EUR, UAH"
        )
    if name == "currency":
        return search.CURRENCY_UNKNOWN.format(allowed=", ".join(settings.EXCHANGE_RATES))
    problem = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return BAD_ARGUMENT.format(name=name or "arguments", problem=problem[:1].lower() + problem[1:])


def resource_error(error: SearchError, uri: str, code: int | None = None) -> MCPError:
    """The JSON-RPC error of a failed resource read: the tool's message, and its
    {"error", "code"} in `data`. A missing listing or a bad id is the caller's mistake
    (`code`, by default -32602 as the SDK's ResourceNotFoundError); anything else -32603."""
    if code is None:
        mistake = isinstance(error, NotFound | InvalidArgument)
        code = INVALID_PARAMS if mistake else JSONRPC_INTERNAL_ERROR
    return MCPError(code=code, message=error.message, data={**error.as_dict(), "uri": uri})
