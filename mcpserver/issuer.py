"""Access tokens of an external OAuth issuer (OAUTH_ISSUER): JWTs checked against its
published keys (OAUTH_JWKS_URL) with PyJWT, for deployments whose users sign in elsewhere
(Keycloak, Auth0, Entra ID, …).

A token is accepted when its signature verifies with one of the issuer's keys, `iss` is
OAUTH_ISSUER, `aud` names this server's /mcp (RFC 8707 / RFC 9068), it is unexpired and its
`scope` (or `scp`) holds listings:read; `contacts:read` is the issuer's decision.
"""

from __future__ import annotations

import logging
from functools import cache

import jwt
from django.conf import settings

from .callers import (
    ACCESS_EXPIRED,
    CONTACTS_READ,
    LISTINGS_READ,
    SCOPE_MISSING,
    WRONG_AUDIENCE,
    Caller,
)

logger = logging.getLogger("vmk.mcp")

# Refusals use mcpserver.callers' messages; None means "not a token of this issuer".
Outcome = Caller | tuple[str, int] | None


def enabled() -> bool:
    return bool(settings.OAUTH_ISSUER)


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2


@cache
def _keys(url: str) -> jwt.PyJWKClient:
    # The key set is cached for 5 minutes; an unknown `kid` refetches it (rotation).
    return jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=5)


def _scopes(claims: dict[str, object]) -> frozenset[str]:
    """`scope` (RFC 9068, space-separated) or `scp` (a list, as Entra ID and Okta send)."""
    value = claims.get("scope", claims.get("scp", ""))
    words = value.split() if isinstance(value, str) else value if isinstance(value, list) else []
    return frozenset(str(word) for word in words)


def check(token: str, resource: str) -> Outcome:
    """The caller of an issuer's JWT, a refusal (message, status), or None. Blocking (it may
    fetch the key set): run it in a thread."""
    try:
        key = _keys(settings.OAUTH_JWKS_URL).get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=settings.OAUTH_ALGORITHMS,
            audience=resource,
            issuer=settings.OAUTH_ISSUER,
            options={"require": ["exp", "iss", "aud"]},
            leeway=30,
        )
    except jwt.ExpiredSignatureError:
        return ACCESS_EXPIRED, 401
    except (jwt.InvalidAudienceError, jwt.MissingRequiredClaimError):
        return WRONG_AUDIENCE, 401
    except jwt.PyJWKClientConnectionError:
        logger.warning("the OAuth issuer's keys (OAUTH_JWKS_URL) could not be fetched")
        return None
    except jwt.PyJWTError:
        return None
    scopes = _scopes(claims)
    if LISTINGS_READ not in scopes:
        return SCOPE_MISSING, 403
    client = str(claims.get("azp") or claims.get("client_id") or "external")
    subject = str(claims.get("preferred_username") or claims.get("sub") or "")
    return Caller(
        name=f"oauth:{client}:{subject}"[:100],
        quota_key=f"oauth-client:{settings.OAUTH_ISSUER}:{client}"[:200],
        scopes=frozenset(scopes & {LISTINGS_READ, CONTACTS_READ}),
    )
