"""MCP error results: JSON {"error", "code"} with nothing internal in them."""

from __future__ import annotations

import json

from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR as JSONRPC_INTERNAL_ERROR
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent

from listings.errors import InvalidArgument, NotFound, SearchError

INTERNAL_ERROR = SearchError("The server could not complete this call; it has been logged.")


def error_result(error: SearchError) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(error.as_dict(), ensure_ascii=False))],
        is_error=True,
    )


def resource_error(error: SearchError, uri: str, code: int | None = None) -> MCPError:
    """The JSON-RPC error of a failed resource read: the tool's message, and its
    {"error", "code"} in `data`. A missing listing or a bad id is the caller's mistake
    (`code`, by default -32602 as the SDK's ResourceNotFoundError); anything else -32603."""
    if code is None:
        mistake = isinstance(error, NotFound | InvalidArgument)
        code = INVALID_PARAMS if mistake else JSONRPC_INTERNAL_ERROR
    return MCPError(code=code, message=error.message, data={**error.as_dict(), "uri": uri})
