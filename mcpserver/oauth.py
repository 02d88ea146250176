"""OAuth 2.1 for /mcp: this project as authorization server (django-oauth-toolkit) and
/mcp as its protected resource (RFC 9728 metadata, RFC 8707 audience-bound tokens).

Staff sign in with their Django accounts (the admin's login page) and consent on
django-oauth-toolkit's page; MCP hosts register themselves (RFC 7591) and use the
authorization code flow with PKCE. A token is accepted at /mcp only while unexpired, when it
was issued for this server's /mcp (its `resource`) and carries `listings:read`;
`contacts:read` counts only for a user with the `listings.view_contacts` permission.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, URLResolver, include, path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from starlette.types import Scope

from listings.contacts import VIEW_CONTACTS_PERMISSION
from listings.runtime import Remembered

from . import issuer
from .callers import (
    ACCESS_EXPIRED,
    CONTACTS_READ,
    LISTINGS_READ,
    NO_STAFF_USER,
    SCOPE_MISSING,
    WRONG_AUDIENCE,
    Caller,
)

TOKEN_CACHE_SEC = 5.0
TOKEN_CACHE_SIZE = 4096
RESOURCE_PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"

# Grants a self-registered client may use: a token always needs a staff user's consent.
REGISTRABLE_GRANTS = frozenset({"authorization_code", "refresh_token"})
OAUTH_OFF = (
    "This server does not use OAuth: /mcp takes the bearer token it was given "
    "(MCP_AUTH_TOKENS or an agent key) in an 'Authorization: Bearer …' header."
)
NOTHING_HERE = "Nothing is published at this /.well-known/ address."


def enabled() -> bool:
    """Whether /mcp takes OAuth access tokens (of this server or of an external issuer)."""
    return bool(settings.OAUTH_SERVER or settings.OAUTH_ISSUER)


# --- the resource's identity ------------------------------------------------------------------


def _origin_from_headers(scheme: str, headers: list[tuple[bytes, bytes]]) -> str:
    host = next((value.decode("latin-1") for name, value in headers if name == b"host"), "")
    return f"{scheme}://{host or settings.MCP_HOST}"


def origin(scope: Scope) -> str:
    """The public origin: MCP_PUBLIC_URL, or the request's own scheme and Host."""
    if settings.MCP_PUBLIC_URL:
        return str(settings.MCP_PUBLIC_URL)
    return _origin_from_headers(scope.get("scheme", "http"), scope.get("headers", []))


def resource_url(scope: Scope) -> str:
    return origin(scope) + RESOURCE_PATH


def metadata_url(scope: Scope) -> str:
    return origin(scope) + METADATA_PATH


def _request_origin(request: HttpRequest) -> str:
    if settings.MCP_PUBLIC_URL:
        return str(settings.MCP_PUBLIC_URL)
    return f"{request.scheme}://{request.get_host()}"


# --- checking access tokens at /mcp -----------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """An OAuth access token that exists but may not be used here; `status` 401 or 403."""

    message: str
    status: int = 401


@dataclass(frozen=True)
class TokenFacts:
    expires: datetime | None
    resource: tuple[str, ...]
    scopes: frozenset[str]
    client_id: str
    client_name: str
    username: str
    # An active staff user granted it (client-credentials tokens have no user at all).
    staff_user: bool
    may_see_contacts: bool


# What a token stands for, reused for TOKEN_CACHE_SEC: a token revoked (or replaced by a
# refresh) in the meantime still opens /mcp until then, in each process.
_tokens = Remembered(TOKEN_CACHE_SEC, TOKEN_CACHE_SIZE)


def load_token(checksum: str) -> TokenFacts | None:
    """What /mcp needs to know about the access token whose SHA-256 is `checksum`."""
    from oauth2_provider.models import get_access_token_model

    token = (
        get_access_token_model()
        .objects.select_related("application", "user")
        .filter(token_checksum=checksum)
        .first()
    )
    if token is None:
        return None
    user = token.user
    application = token.application
    return TokenFacts(
        expires=token.expires,
        resource=tuple(token.resource or ()),
        scopes=frozenset(token.scope.split()),
        client_id=application.client_id if application else "",
        client_name=(application.name or application.client_id) if application else "",
        username=user.get_username() if user else "",
        staff_user=bool(user and user.is_active and user.is_staff),
        may_see_contacts=bool(user and user.is_active and user.has_perm(VIEW_CONTACTS_PERMISSION)),
    )


def _cached_facts(checksum: str) -> TokenFacts | None:
    try:
        return _tokens.get(checksum, partial(load_token, checksum))
    except DatabaseError:
        # The tokens cannot be read: refuse OAuth tokens rather than guess (not remembered).
        return None
    finally:
        connections["default"].close()


def forget_cached_tokens() -> None:
    _tokens.clear()


def audience_matches(resource: str, audiences: tuple[str, ...]) -> bool:
    """RFC 8707: the token must name this resource. Tokens bound to no resource at all are
    refused too (MCP clients always send `resource`)."""
    from oauth2_provider.oauth2_validators import validate_resource_as_url_prefix

    return bool(audiences) and bool(validate_resource_as_url_prefix(resource, list(audiences)))


def caller_from_facts(facts: TokenFacts, resource: str) -> Caller | Refusal:
    if facts.expires is None or facts.expires <= timezone.now():
        return Refusal(ACCESS_EXPIRED)
    if not audience_matches(resource, facts.resource):
        return Refusal(WRONG_AUDIENCE)
    if not facts.staff_user:
        return Refusal(NO_STAFF_USER)
    if LISTINGS_READ not in facts.scopes:
        return Refusal(SCOPE_MISSING, status=403)
    scopes = {LISTINGS_READ}
    if CONTACTS_READ in facts.scopes and facts.may_see_contacts:
        scopes.add(CONTACTS_READ)
    return Caller(
        name=f"oauth:{facts.client_name}:{facts.username}"[:100],
        quota_key=f"oauth-client:{facts.client_id}",
        scopes=frozenset(scopes),
    )


async def access_token_caller(token: str, scope: Scope) -> Caller | Refusal | None:
    """The caller an OAuth access token stands for, a Refusal, or None (not a token of ours)."""
    if issuer.enabled() and issuer.looks_like_jwt(token):
        outcome = await sync_to_async(issuer.check, thread_sensitive=False)(
            token, resource_url(scope)
        )
        if isinstance(outcome, tuple):
            return Refusal(*outcome)
        if outcome is not None or not settings.OAUTH_SERVER:
            return outcome
    if not settings.OAUTH_SERVER:
        return None
    checksum = hashlib.sha256(token.encode()).hexdigest()
    facts = await sync_to_async(_cached_facts, thread_sensitive=False)(checksum)
    if facts is None:
        return None
    return caller_from_facts(facts, resource_url(scope))


def challenge(scope: Scope, error: str | None = None, description: str | None = None) -> bytes:
    """The WWW-Authenticate value of a refused /mcp request."""
    parts = []
    if error:
        parts.append(f'error="{error}"')
    if description:
        parts.append(f'error_description="{description}"')
    if enabled():
        parts.append(f'resource_metadata="{metadata_url(scope)}"')
        if error == "insufficient_scope":
            parts.append(f'scope="{LISTINGS_READ}"')
    else:
        parts.insert(0, f'realm="{settings.MCP_SERVER_NAME}"')
    return ("Bearer " + ", ".join(parts)).encode("latin-1", "replace")


class AuthorizationCodeRegistration:
    """Dynamic client registration (RFC 7591) open to any host, for the authorization code
    grant only: a client registering for client_credentials would get tokens no one
    consented to."""

    def has_permission(self, request: HttpRequest) -> bool:
        try:
            metadata = json.loads(request.body or b"{}")
        except ValueError:
            return True  # the view answers invalid_client_metadata itself
        grants = (
            metadata.get("grant_types", ["authorization_code"])
            if isinstance(metadata, dict)
            else []
        )
        return isinstance(grants, list) and set(map(str, grants)) <= REGISTRABLE_GRANTS


# --- Django views and URLs --------------------------------------------------------------------


@csrf_exempt
def well_known_missing(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    message, code = (NOTHING_HERE, "not_found") if enabled() else (OAUTH_OFF, "oauth_not_enabled")
    return JsonResponse({"error": message, "code": code}, status=404)


def _protected_resource_view() -> Any:
    from oauth2_provider.views import OAuthProtectedResourceMetadataView

    class ResourceMetadataView(OAuthProtectedResourceMetadataView):
        """RFC 9728 metadata of /mcp, at both well-known addresses."""

        def get_resource(self, request: HttpRequest) -> str:
            return _request_origin(request) + RESOURCE_PATH

        def get_authorization_servers(self, request: HttpRequest) -> list[str]:
            servers = super().get_authorization_servers(request) if settings.OAUTH_SERVER else []
            if settings.OAUTH_ISSUER:
                servers = [*servers, str(settings.OAUTH_ISSUER)]
            return list(servers)

    return ResourceMetadataView.as_view()


def resource_metadata_urls() -> list[URLPattern | URLResolver]:
    """RFC 9728 metadata of /mcp (the path-aware address first, then the root one)."""
    resource_metadata = _protected_resource_view()
    return [
        path(".well-known/oauth-protected-resource/mcp", resource_metadata),
        path(".well-known/oauth-protected-resource", resource_metadata),
    ]


def authorization_server_urls() -> list[URLPattern | URLResolver]:
    """django-oauth-toolkit under /oauth/ (the issuer is <origin>/oauth) and its metadata at
    the root's RFC 8414 path-aware address."""
    from oauth2_provider import urls as dot_urls
    from oauth2_provider.views import OAuthServerMetadataView

    endpoints = dot_urls.metadata_urlpatterns + dot_urls.base_urlpatterns
    endpoints += dot_urls.dcr_urlpatterns
    return [
        path("oauth/", include((endpoints, "oauth2_provider"))),
        path(
            ".well-known/oauth-authorization-server/<path:issuer_path>",
            OAuthServerMetadataView.as_view(),
        ),
    ]
