"""Who is calling /mcp: the caller's name (for the audit log), scopes and quota.

`mcpserver.http` resolves the bearer token of each request into a Caller (a static token,
an agent key or an OAuth access token) and sets it for the request; the tools' output
path (contacts) and the quotas read it from here.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings

LISTINGS_READ = "listings:read"
CONTACTS_READ = "contacts:read"

# Why an OAuth access token (of this server or of an external issuer) is refused at /mcp.
ACCESS_EXPIRED = "The access token has expired: sign in again."
WRONG_AUDIENCE = "The access token was issued for another resource, not this server's /mcp."
SCOPE_MISSING = "The access token lacks the listings:read scope."
NO_STAFF_USER = "The access token was not granted by an active staff user: sign in again."


@dataclass(frozen=True)
class Caller:
    # The name in the audit log and SQL comments: token-1, an agent key's name, oauth:…
    name: str
    # What the quotas count: one counter per static token, agent key or OAuth client.
    quota_key: str
    scopes: frozenset[str]
    # Per-caller limits (an agent key's own); None: the settings' MCP_CALLS_PER_*.
    calls_per_minute: int | None = None
    calls_per_day: int | None = None

    @property
    def sees_contacts(self) -> bool:
        return CONTACTS_READ in self.scopes


def default_scopes() -> frozenset[str]:
    return frozenset(settings.MCP_DEFAULT_SCOPES)


def anonymous() -> Caller:
    """Calls without a token (an open server, or in-process calls such as the warm-up)."""
    return Caller(name="anonymous", quota_key="anonymous", scopes=default_scopes())


def static_token(index: int) -> Caller:
    return Caller(name=f"token-{index}", quota_key=f"token:{index}", scopes=default_scopes())


current_caller: ContextVar[Caller | None] = ContextVar("current_caller", default=None)


def get_current() -> Caller:
    return current_caller.get() or anonymous()
