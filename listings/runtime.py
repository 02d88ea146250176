"""What every search shares: the alias and limits, the per-call timings, driver-error
translation, counting, the one TTL cache, the facts about the database a server keeps fresh,
the cache by identity and the stored embedder."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import cachetools
import psycopg
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from psycopg_pool import PoolClosed, PoolTimeout

from vmkproject.routers import LISTINGS_ALIAS as LISTINGS

from .errors import DATABASE_DOWN, POOL_BUSY, QUERY_TIMED_OUT, DatabaseUnavailable, QueryTimeout

logger = logging.getLogger("vmk.search")
_V = TypeVar("_V")

# The HNSW index our own databases have; index_used names whichever one the catalog shows.
HNSW_INDEX = "ix_property_listings_embedding_hnsw"
EXACT_PATH = "exact (pre-filtered scan)"
RRF_K = 60
SNIPPET_CHARS = 300
MAX_CANDIDATES = 1_000
MAX_STATS_GROUPS = 100


@dataclass
class Timings:
    embedding_ms: float = 0.0
    db_ms: float = 0.0
    embedding_cache_hit: bool | None = None
    rows: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


_timings: ContextVar[Timings | None] = ContextVar("vmk_search_timings", default=None)


@contextlib.contextmanager
def collect_timings(timings: Timings | None = None) -> Iterator[Timings]:
    """Collect embedding and database time of the search calls made inside the block."""
    timings = timings if timings is not None else Timings()
    token = _timings.set(timings)
    try:
        yield timings
    finally:
        _timings.reset(token)


def _timing() -> Timings:
    return _timings.get() or Timings()


def database_trouble(exc: BaseException) -> QueryTimeout | DatabaseUnavailable | None:
    """The typed error a driver error stands for (a statement timeout, an exhausted pool, a
    database out of reach), without internals; None for any other error."""
    if not isinstance(exc, DatabaseError):
        return None
    # Django wraps the driver's error; the driver's own class says what happened.
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, psycopg.errors.QueryCanceled):
        return QueryTimeout(QUERY_TIMED_OUT.format(seconds=settings.QUERY_TIMEOUT_SEC))
    if isinstance(cause, PoolTimeout):
        logger.warning("listings pool exhausted")
        return DatabaseUnavailable(POOL_BUSY)
    if isinstance(cause, psycopg.OperationalError | psycopg.InterfaceError | PoolClosed) or (
        isinstance(exc, OperationalError | InterfaceError)
    ):
        logger.warning("listings database unavailable: %s", type(cause).__name__)
        return DatabaseUnavailable(DATABASE_DOWN)
    return None


@contextlib.contextmanager
def _database() -> Iterator[None]:
    """Time database work and turn driver errors into typed errors without internals."""
    started = time.perf_counter()
    try:
        yield
    except DatabaseError as exc:
        typed = database_trouble(exc)
        if typed is None:
            raise
        raise typed from None
    finally:
        _timing().db_ms += (time.perf_counter() - started) * 1000


def estimated_count(qs: Any) -> int:
    """PostgreSQL's planner estimate of how many rows `qs` matches: EXPLAIN, nothing runs."""
    plan = json.loads(qs.order_by().values("pk").explain(format="json"))
    return int(plan[0]["Plan"]["Plan Rows"])


def total_of(
    qs: Any,
    cap: int | None = None,
    estimate: Callable[[Any], int | None] = estimated_count,
) -> tuple[int, bool]:
    """How many rows match, as (total, exact), without counting a large result.

    Past `cap` (TOTAL_COUNT_CAP) rows by the planner's estimate, the estimate itself is the
    total (total_exact = false); otherwise the rows are counted, up to the cap. The admin's
    paginator counts through here too (`estimate` None: no plan, count).
    """
    cap = settings.TOTAL_COUNT_CAP if cap is None else cap
    rows = estimate(qs)
    if rows is not None and rows > cap:
        return rows, False
    return capped_count(qs, cap)


def capped_count(qs: Any, cap: int | None = None) -> tuple[int, bool]:
    """How many rows match, counting at most `cap` (TOTAL_COUNT_CAP): (count, exact).

    An exact COUNT(*) over most of a large table costs more than the page itself; past the
    cap the total is a lower bound and the result says so (total_exact = false).
    """
    cap = settings.TOTAL_COUNT_CAP if cap is None else cap
    return capped(int(up_to_cap(qs, cap).count()), cap)


def up_to_cap(qs: Any, cap: int) -> Any:
    """The keys of `qs`, at most cap + 1 of them: what a capped count counts. Only the key:
    annotations such as ts_rank_cd would be computed for every counted row."""
    return qs.order_by().values("pk")[: cap + 1]


def capped(counted: int, cap: int) -> tuple[int, bool]:
    """(count, exact) of `counted` rows of up_to_cap: past the cap, the cap and not exact."""
    return (cap, False) if counted > cap else (counted, True)


def database_identity(using: str = LISTINGS) -> tuple[Any, ...]:
    """Which database `using` reaches, for facts remembered about it (tests switch an alias
    between several databases)."""
    config = connections[using].settings_dict
    return (config.get("HOST"), config.get("PORT"), config.get("NAME"))


def _rates() -> Mapping[str, float]:
    return settings.EXCHANGE_RATES


META_TTL_SEC = 60.0
# A fact is kept at least META_TTL_SEC, and long enough that reading it again takes about
# this share of the time: at 100 000 listings the vocabulary's scan takes 135 ms and the
# place names' 83, so both are kept a minute as before; at ten times the table, ten times
# the scans, each is read every 1-2 minutes instead of every 40-50 s.
FACTS_COST_SHARE = 0.01
# ...but no longer than this many times META_TTL_SEC: one slow read (a cold cache after a
# restart, a lock) does not keep a fact for a quarter of an hour.
FACTS_MAX_STRETCH = 5.0
REMEMBERED_MAX_KEYS = 512
_MISSING = object()


class Remembered:
    """Values worth computing once and reusing for `ttl` seconds, by key: the project's one
    TTL cache (a bounded cachetools.TTLCache behind a lock; per process)."""

    def __init__(self, ttl: float, maxsize: int = REMEMBERED_MAX_KEYS) -> None:
        self._cache: cachetools.TTLCache[Hashable, Any] = cachetools.TTLCache(maxsize, ttl)
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], _V]) -> _V:
        """The value remembered for `key`, or `compute()` (then remembered)."""
        with self._lock:
            found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            return cast(_V, found)
        # Computed outside the lock: a slow query must not hold up the other keys.
        value = compute()
        with self._lock:
            self._cache[key] = value
        return value

    def peek(self, key: Hashable) -> Any:
        """The value remembered for `key`, or None: never computes (an event loop's check)."""
        with self._lock:
            return self._cache.get(key)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


class ByIdentity:
    """Values computed from an object, reused while that same object comes back: by its
    id(), the object held with its value so that the id is not reused while the entry lives;
    at most `maxsize` of them, the least recently used dropped first (per process)."""

    def __init__(self, maxsize: int) -> None:
        self._cache: cachetools.LRUCache[int, tuple[Any, Any]] = cachetools.LRUCache(maxsize)
        self._lock = threading.Lock()

    def get(self, key: Any, compute: Callable[[], _V]) -> _V:
        """The value computed for this very object, or `compute()` (then kept)."""
        with self._lock:
            found = self._cache.get(id(key))
        if found is not None and found[0] is key:
            return cast(_V, found[1])
        value = compute()
        with self._lock:
            self._cache[id(key)] = (key, value)
        return value

    def holds(self, key: Any) -> bool:
        with self._lock:
            found = self._cache.get(id(key))
        return found is not None and found[0] is key

    def __len__(self) -> int:
        return len(self._cache)


class Facts:
    """Facts about the database that rarely change (the stored embedder, the vocabulary, the
    place names, the capabilities), each computed once and reused for `ttl` seconds, by a
    fixed name — or, for a fact whose reading takes longer than `cost_share` of that, for as
    long as keeps its reading to that share of the time (a table of a million listings:
    the vocabulary's and the place names' scans take seconds there). A server re-reads them
    before they expire (`refresh`, which the app runs every FACTS_REFRESH_SEC), so no call
    pays for the re-read: once a minute, the call that found them expired read the
    vocabulary and the place names, a scan of the table each (220 ms at 100 000 listings).
    Without the refresher (commands, tests) an expired fact is computed again by the call
    that needs it."""

    def __init__(self, ttl: float, cost_share: float = FACTS_COST_SHARE) -> None:
        self._ttl = ttl
        self._cost_share = cost_share
        self._lock = threading.Lock()
        # key: (read at, kept until, value, compute)
        self._found: dict[str, tuple[float, float, Any, Callable[[], Any]]] = {}
        self._generation = 0  # clear() moves it on: a refresh begun before stores nothing

    def get(self, key: str, compute: Callable[[], _V]) -> _V:
        """The fact `key`, computed by `compute()` when missing or past its time."""
        with self._lock:
            found = self._found.get(key)
        if found is not None and time.monotonic() < found[1]:
            return cast(_V, found[2])
        value = self._stored(key, compute, self._generation)
        return cast(_V, value)

    def _stored(self, key: str, compute: Callable[[], Any], generation: int) -> Any:
        """`compute()`, kept for the ttl or its cost's share; not kept if cleared meanwhile
        (raises what `compute` raises)."""
        started = time.monotonic()
        value = compute()
        now = time.monotonic()
        kept = min(
            max(self._ttl, (now - started) / self._cost_share), self._ttl * FACTS_MAX_STRETCH
        )
        kept_until = now + kept
        with self._lock:
            if self._generation == generation:
                self._found[key] = (now, kept_until, value, compute)
        return value

    def refresh(self, within: float) -> list[str]:
        """Compute again the facts that expire within `within` seconds; the names of those
        refreshed. A fact whose computing fails keeps its value (and its time, so the call
        that finds it expired computes it, and sees the error, as before)."""
        now = time.monotonic()
        with self._lock:
            generation = self._generation
            due = [
                (key, found[3]) for key, found in self._found.items() if found[1] - now <= within
            ]
        refreshed = []
        for key, compute in due:
            try:
                self._stored(key, compute, generation)
            except Exception as exc:  # noqa: BLE001 - the call that needs it will see it
                logger.warning("the fact %s could not be read again (%s)", key, type(exc).__name__)
                continue
            with self._lock:
                if self._generation != generation:
                    break  # cleared meanwhile: what was read before is not stored
            refreshed.append(key)
        return refreshed

    def clear(self) -> None:
        with self._lock:
            self._found.clear()
            self._generation += 1


# Facts about the database that rarely change (stored embedder, vocabulary, capabilities).
_recent = Facts(META_TTL_SEC)
# How often a server looks for facts to re-read, and how long before its expiry it re-reads
# one: each once in 40-50 s when kept a minute (at 100 000 listings the re-read is 0.2 s of
# scans; refreshing all of them every 30 s read the table twice as often).
FACTS_REFRESH_SEC = 10.0
FACTS_REFRESH_LEAD_SEC = 2 * FACTS_REFRESH_SEC


def remembered(key: str, compute: Callable[[], _V]) -> _V:
    """`compute()`, reused for META_TTL_SEC: a fact about the database that rarely changes."""
    return _recent.get(key, compute)


def refresh_facts() -> list[str]:
    """Re-read the facts that expire within FACTS_REFRESH_LEAD_SEC (the app's refresher, every
    FACTS_REFRESH_SEC in a thread of its own: its connections are returned when it is done)."""
    try:
        return _recent.refresh(FACTS_REFRESH_LEAD_SEC)
    finally:
        connections.close_all()


def stored_embedder() -> str | None:
    """Which embedder built the stored vectors, when the database records it (ours do)."""
    return remembered("embedder", _read_stored_embedder)


def _read_stored_embedder() -> str | None:
    with _database(), connections[LISTINGS].cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.vmk_meta') IS NOT NULL")
        row = cursor.fetchone()
        if not (row and row[0]):
            return None
        cursor.execute("SELECT value FROM vmk_meta WHERE key = 'embedder'")
        found = cursor.fetchone()
        return found[0] if found else None
