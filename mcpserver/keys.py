"""Agent API keys: create them, and check bearer tokens against them cheaply.

A key is `vmk_` and 40 URL-safe random characters (240 bits). Only its SHA-256 is stored:
the key is random enough that the hash cannot be reversed, so no salt, pepper or slow hash
is needed, and a check costs microseconds. (A pepper taken from SECRET_KEY would also
silently invalidate every key whenever SECRET_KEY changed, and the demo's SECRET_KEY
changes at every start.)

/mcp never queries the database per request: the usable keys are loaded into memory and
reloaded at most every KEY_CACHE_SEC seconds, so a new, revoked or re-dated key takes
effect within that time in every server process (at once in the one whose admin made the
change); expiry itself is checked at every request. `last_used_at` is
written by the audit log's background thread, at most once a minute per key.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.db import DatabaseError, connections
from django.utils import timezone

from listings.runtime import Remembered

from .callers import CONTACTS_READ, LISTINGS_READ, Caller
from .models import AgentKey

logger = logging.getLogger("vmk.mcp")

KEY_PREFIX = "vmk_"
KEY_RANDOM_CHARS = 40
KEY_LENGTH = len(KEY_PREFIX) + KEY_RANDOM_CHARS
PREFIX_LENGTH = len(KEY_PREFIX) + 8
KEY_CACHE_SEC = 5.0
LAST_USED_EVERY_SEC = 60.0

NAME_TAKEN = "An agent key named '{name}' already exists."
NAME_REQUIRED = "An agent key needs a name."


class KeyNameTaken(ValueError):
    pass


def generate_key() -> str:
    # 30 random bytes are exactly 40 URL-safe base64 characters.
    return KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_CHARS * 3 // 4)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def looks_like_key(token: str) -> bool:
    return len(token) == KEY_LENGTH and token.startswith(KEY_PREFIX)


def create_key(
    *,
    name: str,
    expires_at: datetime | None = None,
    created_by: Any = None,
    calls_per_minute: int | None = None,
    calls_per_day: int | None = None,
) -> tuple[AgentKey, str]:
    """Store a new key for `name`; return it and the plain key, which is never stored."""
    name = name.strip()
    if not name:
        raise ValueError(NAME_REQUIRED)
    if AgentKey.objects.filter(name=name).exists():
        raise KeyNameTaken(NAME_TAKEN.format(name=name))
    plain = generate_key()
    key = AgentKey(
        name=name,
        expires_at=expires_at,
        created_by=created_by,
        calls_per_minute=calls_per_minute,
        calls_per_day=calls_per_day,
    )
    set_secret(key, plain)
    key.save()
    forget_cached_keys()
    return key, plain


def set_secret(key: AgentKey, plain: str) -> None:
    key.prefix = plain[:PREFIX_LENGTH]
    key.key_hash = hash_key(plain)


def revoke(queryset: Any) -> int:
    """Revoke the keys of a queryset that are not revoked yet; return how many."""
    count = int(queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now()))
    forget_cached_keys()
    return count


# --- checking tokens --------------------------------------------------------------------------


@dataclass(frozen=True)
class CachedKey:
    id: int
    name: str
    key_hash: str
    expires_at: datetime | None
    contacts_read: bool = False
    calls_per_minute: int | None = None
    calls_per_day: int | None = None

    def caller(self) -> Caller:
        scopes = {LISTINGS_READ, CONTACTS_READ} if self.contacts_read else {LISTINGS_READ}
        return Caller(
            name=self.name,
            quota_key=f"key:{self.id}",
            scopes=frozenset(scopes),
            calls_per_minute=self.calls_per_minute,
            calls_per_day=self.calls_per_day,
        )


@dataclass
class KeySnapshot:
    """The keys /mcp accepts, as loaded at `loaded_at` (time.monotonic())."""

    loaded_at: float
    # Whether /mcp requires a token: true as soon as any key exists, revoked or expired
    # ones included, so that revoking the last key never opens the server to anyone.
    in_use: bool
    by_prefix: dict[str, list[CachedKey]] = field(default_factory=dict)

    def match(self, token: str, now: datetime | None = None) -> CachedKey | None:
        if not looks_like_key(token):
            return None
        digest = hash_key(token)
        found = None
        for key in self.by_prefix.get(token[:PREFIX_LENGTH], ()):
            if hmac.compare_digest(key.key_hash, digest):
                found = key
        if found is None or (found.expires_at and found.expires_at <= (now or timezone.now())):
            return None
        return found


def load_snapshot() -> KeySnapshot:
    """Read the usable keys from the default database."""
    by_prefix: dict[str, list[CachedKey]] = {}
    usable = AgentKey.objects.filter(revoked_at__isnull=True).values_list(
        "id",
        "name",
        "prefix",
        "key_hash",
        "expires_at",
        "contacts_read",
        "calls_per_minute",
        "calls_per_day",
    )
    for key_id, name, prefix, key_hash, expires_at, contacts, per_minute, per_day in usable:
        cached = CachedKey(key_id, name, key_hash, expires_at, contacts, per_minute, per_day)
        by_prefix.setdefault(prefix, []).append(cached)
    in_use = bool(by_prefix) or AgentKey.objects.exists()
    return KeySnapshot(loaded_at=time.monotonic(), in_use=in_use, by_prefix=by_prefix)


# The snapshot on the project's one TTL cache; the last one read survives its expiry, for
# when the next read fails.
_snapshots = Remembered(KEY_CACHE_SEC, maxsize=1)
_SNAPSHOT = "keys"
_last_known: KeySnapshot | None = None
_warned_no_table = False


def _table_missing() -> bool:
    return AgentKey._meta.db_table not in connections["default"].introspection.table_names()


def _reload() -> KeySnapshot:
    return _snapshots.get(_SNAPSHOT, _read)


def _read() -> KeySnapshot:
    global _last_known
    try:
        snapshot = load_snapshot()
    except DatabaseError:
        snapshot = _after_failure(_last_known)
    finally:
        connections["default"].close()
    _last_known = snapshot
    return snapshot


def _after_failure(previous: KeySnapshot | None) -> KeySnapshot:
    global _warned_no_table
    try:
        missing = _table_missing()
    except DatabaseError:
        missing = False
    if missing:
        # Migrations not applied (or a throw-away in-memory database): no keys exist.
        if not _warned_no_table:
            logger.warning("agent keys are off: run `manage.py migrate` to create their table")
            _warned_no_table = True
        return KeySnapshot(loaded_at=time.monotonic(), in_use=False)
    logger.exception("could not read agent keys; keeping the last known ones")
    if previous is not None:
        return KeySnapshot(time.monotonic(), previous.in_use, previous.by_prefix)
    # Never read successfully: refuse every agent key rather than open /mcp.
    return KeySnapshot(loaded_at=time.monotonic(), in_use=True)


async def current_snapshot() -> KeySnapshot:
    snapshot: KeySnapshot | None = _snapshots.peek(_SNAPSHOT)
    if snapshot is not None:
        return snapshot
    return await sync_to_async(_reload, thread_sensitive=False)()


async def keys_in_use() -> bool:
    """Whether any agent key exists (then /mcp requires a bearer token)."""
    return (await current_snapshot()).in_use


async def agent_key_caller(token: str) -> Caller | None:
    """The caller of the usable agent key `token` is, or None."""
    if not looks_like_key(token):
        return None
    key = (await current_snapshot()).match(token)
    if key is None:
        return None
    note_used(key.id)
    return key.caller()


async def agent_key_name(token: str) -> str | None:
    """The name of the usable agent key `token` is, or None."""
    caller = await agent_key_caller(token)
    return caller.name if caller else None


def forget_cached_keys() -> None:
    """Make the next check reload the keys (after a change made in this process)."""
    _snapshots.clear()


# --- last_used_at, written off the request path -----------------------------------------------

_used_lock = threading.Lock()
_noted_at: dict[int, float] = {}
_pending_last_used: dict[int, datetime] = {}


def note_used(key_id: int) -> None:
    """Remember that a key was used; at most once a minute per key reaches the database."""
    now = time.monotonic()
    with _used_lock:
        if now - _noted_at.get(key_id, -LAST_USED_EVERY_SEC) < LAST_USED_EVERY_SEC:
            return
        _noted_at[key_id] = now
        _pending_last_used[key_id] = timezone.now()


def flush_last_used() -> int:
    """Write the pending last_used_at values (called from the audit writer thread)."""
    with _used_lock:
        pending = dict(_pending_last_used)
        _pending_last_used.clear()
    for key_id, used_at in pending.items():
        AgentKey.objects.filter(pk=key_id).update(last_used_at=used_at)
    return len(pending)


def expires_in(days: int | None) -> datetime | None:
    return None if days is None else timezone.now() + timedelta(days=days)
