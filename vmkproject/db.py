"""The listings alias's connection pool, and the hooks through which the demo wing runs an
embedded server (demo.apps registers them when the settings ask for the embedded database).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import Any, cast

from vmkproject.routers import LISTINGS_ALIAS

# A pooled connection lent again within this many seconds of its last loan is checked by
# looking at its socket; one idle for longer gets psycopg_pool's round trip.
QUIET_CHECK_WITHIN_SEC = 1.0

_before_connect: list[Callable[[dict[str, Any]], None]] = []
_at_shutdown: list[Callable[[], None]] = []
_when_serving: list[Callable[[dict[str, Any]], object]] = []


def before_connect(hook: Callable[[dict[str, Any]], None]) -> None:
    """Run `hook(settings_dict)` before every connection (it may set HOST)."""
    if hook not in _before_connect:
        _before_connect.append(hook)


def at_shutdown(hook: Callable[[], None]) -> None:
    """Run `hook()` when the server shuts down (stop_all)."""
    if hook not in _at_shutdown:
        _at_shutdown.append(hook)


def when_serving(hook: Callable[[dict[str, Any]], object]) -> None:
    """Run `hook(settings_dict)` of the listings alias once, when `serve` starts serving."""
    if hook not in _when_serving:
        _when_serving.append(hook)


def start_serving() -> None:
    from django.db import connections

    for hook in _when_serving:
        hook(connections[LISTINGS_ALIAS].settings_dict)


def prepare_connection(settings_dict: dict[str, Any]) -> None:
    for hook in _before_connect:
        hook(settings_dict)


def stop_all() -> None:
    """Let go of what the hooks started (the embedded server stops if this was its last holder)."""
    for hook in _at_shutdown:
        hook()


def listings_pool() -> Any:
    """The psycopg pool of the listings alias, or None when pooling is off."""
    from django.db import connections

    return getattr(connections[LISTINGS_ALIAS], "pool", None)


def open_listings_pool() -> Any:
    """The listings alias's pool if one was made, else None; without making a database
    wrapper (on the event loop's thread each request would get a new one) or a pool."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    return getattr(DatabaseWrapper, "_connection_pools", {}).get(LISTINGS_ALIAS)


def close_listings_pool() -> None:
    """Close the listings alias's pool (its connections and its connecting workers)."""
    from django.db import connections

    # Only an open pool: asking Django for `pool` would create one.
    if open_listings_pool() is not None:
        cast(Any, connections[LISTINGS_ALIAS]).close_pool()


def check_pooled(conn: Any) -> None:
    """The pool's check before it lends a connection (psycopg_pool's `check`): raise if the
    connection is dead.

    A connection lent again moments after its last loan is checked without a round trip: a
    server that closed it (a restart, `pg_terminate_backend`) sent its farewell or EOF, and
    that is waiting on the socket, so a quiet socket of an idle connection is alive. A
    socket with anything on it, or a connection idle for longer than
    QUIET_CHECK_WITHIN_SEC (a peer gone without a word is found this way), gets
    psycopg_pool's own check, an empty query. Under steady traffic this saves each call a
    round trip to the database.
    """
    from psycopg import pq
    from psycopg_pool import ConnectionPool

    now = time.monotonic()
    lent_at = getattr(conn, "_vmk_lent_at", None)
    quiet = (
        lent_at is not None
        and now - lent_at < QUIET_CHECK_WITHIN_SEC
        and conn.info.transaction_status == pq.TransactionStatus.IDLE
        and not _readable(conn.fileno())
    )
    if not quiet:
        ConnectionPool.check_connection(conn)
    conn._vmk_lent_at = now


def _readable(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))
