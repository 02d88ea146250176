"""Metrics of every MCP request (an SDK middleware) and the /metrics endpoint.

The SDK's own OpenTelemetry middleware (outermost) opens the request's span; this one runs
inside it and times the request for `mcp_server_operation_duration_seconds`. A tool that
fails returns an MCP tool error rather than raising; its error type is the stable code in
that error's JSON text (invalid_argument, not_found, ...).
"""

from __future__ import annotations

import json
import time
from typing import Any

from mcp.server.context import CallNext, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from pydantic import ValidationError

from vmkproject import metrics

UNKNOWN_TOOL = "unknown"


def _texts(result: Any) -> list[str]:
    """The text parts of a tools/call result (a CallToolResult or its wire-form dict)."""
    if isinstance(result, CallToolResult):
        return [getattr(part, "text", "") for part in result.content]
    if isinstance(result, dict):
        return [
            part.get("text", "") for part in result.get("content") or [] if isinstance(part, dict)
        ]
    return []


def _is_error(result: Any) -> bool:
    if isinstance(result, CallToolResult):
        return bool(result.is_error)
    return isinstance(result, dict) and result.get("isError") is True


def _error_code(texts: list[str]) -> str:
    """The `code` of a tool error's JSON text (mcpserver.errors.error_result)."""
    for text in texts:
        try:
            code = json.loads(text).get("code")
        except (ValueError, AttributeError):
            continue
        if isinstance(code, str) and code:
            return code
    return "tool_error"


class OperationMetrics:
    """Times each inbound MCP request by method, tool and error type.

    A tool name the server does not have is labelled UNKNOWN_TOOL: names come from clients,
    and each new label value would be a new series.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.tools: frozenset[str] | None = None

    async def _tool_label(self, ctx: ServerRequestContext[Any, Any]) -> str:
        name = ctx.params.get("name") if ctx.params else None
        if ctx.method != "tools/call" or not isinstance(name, str):
            return ""
        if self.tools is None:
            self.tools = frozenset(tool.name for tool in await self.server.list_tools())
        return name if name in self.tools else UNKNOWN_TOOL

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        tool = await self._tool_label(ctx)
        started = time.perf_counter()
        error = ""
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            error = str(exc.error.code)
            raise
        except ValidationError:
            error = "invalid_params"
            raise
        except Exception as exc:
            error = type(exc).__qualname__
            raise
        else:
            if tool:
                texts = _texts(result)
                if _is_error(result):
                    error = _error_code(texts)
                metrics.RESPONSE_BYTES.labels(tool).inc(sum(len(t.encode()) for t in texts))
            return result
        finally:
            metrics.OPERATION_DURATION.labels(ctx.method, tool, error).observe(
                time.perf_counter() - started
            )
