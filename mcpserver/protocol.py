"""Protocol answers the SDK (mcp 2.3) gets wrong for this server, fixed around it.

At the JSON-RPC layer (an SDK middleware, `ProtocolFixes`):
- `prompts/get` of an unknown prompt or with bad arguments: -32602 with a message, not
  error code 0 (2025 revisions) or -32603 with a logged traceback (2026-07-28);
- `resources/read` of schema://property_listings carries the cache hint of the lists.

At the HTTP layer (ASGI around the SDK's /mcp app, `HttpFixes`):
- a batch or a body that is JSON but not a JSON-RPC message: -32600 Invalid Request, not
  -32602 with a pydantic dump;
- an `MCP-Protocol-Version` header the server does not speak: 400 with -32022 listing every
  revision it does speak (the SDK sends it to the 2026 classifier, which complains about
  `_meta` and names 2026-07-28 only);
- `GET` (and `DELETE`) /mcp in stateless mode: 405 with `Allow: POST` (the SDK holds an idle
  SSE stream open; this server sends no server-initiated messages);
- no `Mcp-Session-Id` on a 400 (in stateful mode the SDK hands out a session it never
  registered).

At the wire (`install_utf8_answers`): a 2026-07-28 answer is UTF-8 JSON, as 2025 answers
are. The SDK writes those with `json.dumps`' default, every Cyrillic letter a `\\uXXXX`
escape: a 10-card page on the demo database 43 052 bytes instead of 22 166, and 0.07 ms more
to encode.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from mcp.server import _streamable_http_modern as sdk_modern  # private: see below
from mcp.server.context import CallNext, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCResponse,
    ReadResourceResult,
)
from mcp_types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from listings.errors import SearchError

logger = logging.getLogger("vmk.mcp")
CACHED_RESOURCES = frozenset({"schema://property_listings"})
UNKNOWN_PROMPT = "Unknown prompt '{name}'. Prompts: {prompts}."
PROMPT_ARGUMENTS = "Prompt '{name}': {problem}"
BATCH_NOT_SUPPORTED = "Invalid Request: batches are not supported; send one JSON-RPC message."
NOT_A_MESSAGE = "Invalid Request: the body is not a JSON-RPC 2.0 request or notification."
UNSUPPORTED_VERSION = (
    "Unsupported MCP-Protocol-Version '{version}'. Supported: "
    + ", ".join(MODERN_PROTOCOL_VERSIONS)
    + " (per request), and "
    + ", ".join(HANDSHAKE_PROTOCOL_VERSIONS)
    + " (after initialize)."
)
SUPPORTED_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"


class ProtocolFixes:
    """SDK middleware (see the module docstring)."""

    def __init__(self, server: Any) -> None:
        self.server = server

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method == "prompts/get":
            return await self._prompt(ctx, call_next)
        result = await call_next(ctx)
        uri = str((ctx.params or {}).get("uri", ""))
        if ctx.method == "resources/read" and uri in CACHED_RESOURCES:
            ttl = settings.MCP_CACHE_TTL_SEC * 1000
            if isinstance(result, ReadResourceResult):
                result = result.model_copy(update={"ttl_ms": ttl, "cache_scope": "public"})
            elif isinstance(result, dict) and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                # Already in wire form: the SDK serialises inside the middleware chain.
                result = {**result, "ttlMs": ttl, "cacheScope": "public"}
        return result

    async def _prompt(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        name = (ctx.params or {}).get("name")
        prompts = [prompt.name for prompt in await self.server.list_prompts()]
        if not isinstance(name, str) or name not in prompts:
            message = UNKNOWN_PROMPT.format(name=str(name)[:100], prompts=", ".join(prompts))
            raise MCPError(code=INVALID_PARAMS, message=message)
        try:
            return await call_next(ctx)
        except ValueError as exc:  # the SDK's wrapper of a missing or invalid argument
            problem = _cause_message(exc)
            raise MCPError(
                code=INVALID_PARAMS, message=PROMPT_ARGUMENTS.format(name=name, problem=problem)
            ) from None


def _cause_message(exc: BaseException) -> str:
    """Our SearchError's constant message if one is in the chain, else the first line."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, SearchError):
            return cause.message
        cause = cause.__cause__ or cause.__context__
    return str(exc).splitlines()[0][:300]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _send_error(
    send: Send,
    status: int,
    code: int,
    message: str,
    data: Any = None,
    headers: Iterable = (),
    request_id: Any = None,
) -> None:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _is_message(value: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response object (the SDK checks the rest)."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return False
    if "method" in value:
        return isinstance(value["method"], str)
    return "id" in value and ("result" in value or "error" in value)


class HttpFixes:
    """ASGI middleware around the SDK's streamable HTTP app (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "")
        if settings.MCP_STATELESS_HTTP and method in {"GET", "DELETE"}:
            await send(
                {
                    "type": "http.response.start",
                    "status": 405,
                    "headers": [(b"allow", b"POST"), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        decoded = None
        if method == "POST":
            checked = await self._checked_body(receive, send)
            if checked is None:
                return
            receive, decoded = checked
        version = _header(scope, VERSION_HEADER)
        if version is not None and version not in SUPPORTED_VERSIONS:
            request_id = decoded.get("id") if isinstance(decoded, dict) else None
            await _send_error(
                send,
                400,
                UNSUPPORTED_PROTOCOL_VERSION,
                UNSUPPORTED_VERSION.format(version=version[:40]),
                # `supported` is what server/discover lists (the per-request revisions);
                # the 2025 revisions are spoken after an `initialize` handshake.
                {
                    "supported": list(MODERN_PROTOCOL_VERSIONS),
                    "requested": version[:40],
                    "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
                },
                request_id=request_id,
            )
            return
        await self.app(scope, receive, _without_session_on_400(send))

    async def _checked_body(self, receive: Receive, send: Send) -> tuple[Receive, Any] | None:
        """The request's receive replaying its body, and the body decoded (None when it is
        not JSON or too large to look at); None when an error was sent instead."""
        messages: list[Message] = []
        size = 0
        more = True
        while more:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            more = bool(message.get("more_body"))
            if size > settings.MCP_MAX_BODY_BYTES:
                break  # the SDK answers 413; nothing to inspect
        if not more and size <= settings.MCP_MAX_BODY_BYTES:
            body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
            try:
                decoded = json.loads(body)
            except (ValueError, RecursionError):
                decoded = None  # the SDK answers -32700 Parse error
            else:
                if isinstance(decoded, list):
                    await _send_error(send, 400, INVALID_REQUEST, BATCH_NOT_SUPPORTED)
                    return None
                if not _is_message(decoded):
                    request_id = decoded.get("id") if isinstance(decoded, dict) else None
                    await _send_error(
                        send, 400, INVALID_REQUEST, NOT_A_MESSAGE, request_id=request_id
                    )
                    return None
        else:
            decoded = None
        pending = list(messages)

        async def replay() -> Message:
            if pending:
                return pending.pop(0)
            return await receive()

        return replay, decoded


def _without_session_on_400(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start" and message.get("status") == 400:
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != SESSION_HEADER]
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


# The SDK's writers of 2026-07-28 answers (mcp 2.3, `mcp.server._streamable_http_modern`),
# kept for the one case they handle differently; None in an SDK that has renamed them.
_SDK_WRITE: Any = getattr(sdk_modern, "_write", None)
_SDK_SSE_EVENT: Any = getattr(sdk_modern, "_sse_event", None)


def _wire_json(msg: JSONRPCResponse | JSONRPCError | JSONRPCNotification) -> str:
    """The message as compact UTF-8 JSON: pydantic's encoder, the same dump the SDK makes
    before `json.dumps` escapes it."""
    return msg.model_dump_json(by_alias=True, exclude_none=True)


async def _write_utf8(
    msg: JSONRPCResponse | JSONRPCError, scope: Scope, receive: Receive, send: Send
) -> None:
    if isinstance(msg, JSONRPCError) and msg.id is None:
        # `id: null` must be on the wire, which exclude_none drops: the SDK's own path.
        await _SDK_WRITE(msg, scope, receive, send)
        return
    status = 200
    if isinstance(msg, JSONRPCError):
        status = ERROR_CODE_HTTP_STATUS.get(msg.error.code, status)
    response = Response(_wire_json(msg), status_code=status, media_type="application/json")
    await response(scope, receive, send)


def _sse_event_utf8(msg: JSONRPCResponse | JSONRPCError | JSONRPCNotification) -> bytes:
    return f"event: message\r\ndata: {_wire_json(msg)}\r\n\r\n".encode()


def install_utf8_answers() -> bool:
    """Have the SDK write 2026-07-28 answers (JSON and SSE events) as UTF-8 JSON; where an
    SDK no longer has the writers this replaces, say so and leave its own (escaped)."""
    if _SDK_WRITE is None or _SDK_SSE_EVENT is None:
        logger.warning(
            "2026-07-28 answers are sent as the MCP SDK writes them, Cyrillic escaped: "
            "this SDK has no _write/_sse_event in mcp.server._streamable_http_modern"
        )
        return False
    sdk_modern._write = _write_utf8
    sdk_modern._sse_event = _sse_event_utf8
    return True
