"""/mcp over streamable HTTP: transport settings, bearer tokens, and the lifespan."""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from django.conf import settings
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from vmkproject import telemetry

from . import audit, keys
from .protocol import HttpFixes
from .runner import current_agent
from .server import mcp

UNAUTHORIZED = {"error": "A valid bearer token is required for /mcp.", "code": "unauthorized"}

# Extra token checkers (agent keys stored in the database plug in here); each returns the
# key's name for a valid token, or None.
token_checkers: list[Callable[[str], Awaitable[str | None]]] = [keys.agent_key_name]
# Whether tokens are required even with MCP_AUTH_TOKENS empty (e.g. agent keys exist).
auth_switches: list[Callable[[], Awaitable[bool]]] = [keys.keys_in_use]


def _with_bare_hosts(patterns: Iterable[str]) -> list[str]:
    """'host:*' also admits 'host' without a port (clients omit the default port)."""
    result: list[str] = []
    for pattern in patterns:
        result.append(pattern)
        if pattern.endswith(":*"):
            result.append(pattern[:-2])
    return result


def transport_security() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=_with_bare_hosts(settings.MCP_ALLOWED_HOSTS),
        allowed_origins=_with_bare_hosts(settings.MCP_ALLOWED_ORIGINS),
    )


def static_token_name(token: str) -> str | None:
    """Constant-time comparison against every configured token."""
    matched = None
    for index, expected in enumerate(settings.MCP_AUTH_TOKENS):
        if hmac.compare_digest(token.encode(), expected.encode()):
            matched = f"token-{index + 1}"
    return matched


async def auth_required() -> bool:
    if settings.MCP_AUTH_TOKENS:
        return True
    for switch in auth_switches:
        if await switch():
            return True
    return False


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


async def caller_name(scope: Scope) -> str | None:
    """The name of the static token or agent key the request's bearer token matches."""
    token = bearer_token(scope)
    name = None
    if token is not None and len(token) <= 512:
        name = static_token_name(token)
        for checker in token_checkers:
            name = name or await checker(token)
    return name


class AuthenticatedMCP:
    """The SDK's streamable HTTP app behind an optional bearer-token check."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = None
        if scope["type"] == "http" and await auth_required():
            name = await caller_name(scope)
            if name is None:
                await _send_json(send, 401, UNAUTHORIZED, [(b"www-authenticate", b"Bearer")])
                return
            scope.setdefault("state", {})["agent"] = name
        # Tool calls run in tasks spawned from this one, which inherit the context: the audit
        # log reads the name from there.
        reset = current_agent.set(name)
        try:
            with telemetry.context_from_headers(scope.get("headers", [])):
                await self.app(scope, receive, send)
        finally:
            current_agent.reset(reset)


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]
) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": payload})


_app_built = False


def _ensure_transport() -> None:
    global _app_built
    if not _app_built:
        # Builds the session manager with our transport settings; its own routes are unused.
        mcp.streamable_http_app(
            streamable_http_path="/mcp",
            json_response=settings.MCP_JSON_RESPONSE,
            stateless_http=settings.MCP_STATELESS_HTTP,
            max_request_body_size=settings.MCP_MAX_BODY_BYTES,
            transport_security=transport_security(),
            host=settings.MCP_HOST,
        )
        _app_built = True


def mcp_routes() -> list[Route]:
    _ensure_transport()
    endpoint = AuthenticatedMCP(HttpFixes(StreamableHTTPASGIApp(mcp.session_manager)))
    return [Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"])]


@contextlib.asynccontextmanager
async def mcp_lifespan() -> AsyncIterator[None]:
    _ensure_transport()
    # The audit log stops after the session manager, so in-flight calls are still written.
    async with audit.running(), mcp.session_manager.run():
        yield
