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
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from vmkproject import telemetry

from . import audit, callers, keys, oauth
from .callers import Caller
from .oauth import Refusal
from .protocol import HttpFixes, install_utf8_answers
from .runner import current_agent
from .server import mcp

UNAUTHORIZED = {"error": "A valid bearer token is required for /mcp.", "code": "unauthorized"}
# A token was sent but matches nothing: say so plainly (a host otherwise goes looking for
# OAuth and reports that instead).
BEARER_NOT_VALID = (
    "The bearer token sent is not valid for /mcp (mistyped, revoked or expired): "
    "check the token this server was configured with."
)
FORBIDDEN_CODE = "forbidden"
# zlib level for /mcp answers. A 10-card page (22 282 bytes) is 4 446 bytes at 3 in 0.06 ms,
# 4 087 at 9 in 0.17 ms; a 50-card page 8 938 at 3 in 0.15 ms, 7 671 at 9 in 1.2 ms.
GZIP_LEVEL = 3


async def _oauth_in_use() -> bool:
    return oauth.enabled()


# Extra token checkers (agent keys stored in the database plug in here); each returns the
# caller of a valid token, or None.
token_checkers: list[Callable[[str], Awaitable[Caller | None]]] = [keys.agent_key_caller]
# Whether tokens are required even with MCP_AUTH_TOKENS empty (e.g. agent keys exist).
auth_switches: list[Callable[[], Awaitable[bool]]] = [keys.keys_in_use, _oauth_in_use]


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


def static_token_index(token: str) -> int | None:
    """Constant-time comparison against every configured token; its 1-based index."""
    matched = None
    for index, expected in enumerate(settings.MCP_AUTH_TOKENS):
        if hmac.compare_digest(token.encode(), expected.encode()):
            matched = index + 1
    return matched


def static_token_name(token: str) -> str | None:
    index = static_token_index(token)
    return None if index is None else f"token-{index}"


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


async def resolve_caller(scope: Scope) -> Caller | Refusal | None:
    """The caller the request's bearer token stands for (a static token, an agent key or an
    OAuth access token), a Refusal of an OAuth token, or None."""
    token = bearer_token(scope)
    if token is None or len(token) > 2048:
        return None
    index = static_token_index(token)
    if index is not None:
        return callers.static_token(index)
    for checker in token_checkers:
        found = await checker(token)
        if found is not None:
            return found
    return await oauth.access_token_caller(token, scope)


async def caller_name(scope: Scope) -> str | None:
    """The name of the static token, agent key or OAuth client the request comes with."""
    found = await resolve_caller(scope)
    return found.name if isinstance(found, Caller) else None


async def refuse(scope: Scope, send: Send, refusal: Refusal | None) -> None:
    """401 (or 403) with a WWW-Authenticate challenge that says what is wrong and, with
    OAuth on, where its metadata is (RFC 9728)."""
    sent_token = bearer_token(scope) is not None
    if refusal is not None:
        error = "insufficient_scope" if refusal.status == 403 else "invalid_token"
        code = FORBIDDEN_CODE if refusal.status == 403 else UNAUTHORIZED["code"]
        body, status = {"error": refusal.message, "code": code}, refusal.status
        header = oauth.challenge(scope, error, refusal.message)
    elif sent_token:
        body, status = {"error": BEARER_NOT_VALID, "code": UNAUTHORIZED["code"]}, 401
        header = oauth.challenge(scope, "invalid_token", BEARER_NOT_VALID)
    else:
        body, status = UNAUTHORIZED, 401
        header = oauth.challenge(scope)
    await _send_json(send, status, body, [(b"www-authenticate", header)])


class AuthenticatedMCP:
    """The SDK's streamable HTTP app behind an optional bearer-token check."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = None
        caller: Caller | None = None
        if scope["type"] == "http":
            if await auth_required():
                found = await resolve_caller(scope)
                if not isinstance(found, Caller):
                    await refuse(scope, send, found)
                    return
                caller, name = found, found.name
                scope.setdefault("state", {})["agent"] = name
            else:
                caller = callers.anonymous()
        # Tool calls run in tasks spawned from this one, which inherit the context: the audit
        # log, the quotas and the contacts' masking read the caller from there.
        reset = current_agent.set(name)
        reset_caller = callers.current_caller.set(caller)
        try:
            with telemetry.context_from_headers(scope.get("headers", [])):
                await self.app(scope, receive, send)
        finally:
            callers.current_caller.reset(reset_caller)
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
        install_utf8_answers()
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
    endpoint: Any = AuthenticatedMCP(HttpFixes(StreamableHTTPASGIApp(mcp.session_manager)))
    if settings.MCP_GZIP_MIN_BYTES:
        # JSON answers only: the middleware leaves SSE streams (text/event-stream) alone.
        endpoint = GZipMiddleware(
            endpoint, minimum_size=settings.MCP_GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL
        )
    return [Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"])]


@contextlib.asynccontextmanager
async def mcp_lifespan() -> AsyncIterator[None]:
    _ensure_transport()
    # The audit log stops after the session manager, so in-flight calls are still written.
    async with audit.running(), mcp.session_manager.run():
        yield
