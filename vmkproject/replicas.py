"""Read replicas of the listings database (LISTINGS_REPLICA_URLS).

The listings alias keeps one psycopg pool; with replicas configured, each new pooled
connection goes to the next replica that is not left out (round robin), and to the primary
when every replica is. A replica that refuses a connection, or whose connection breaks
during a call, is left out for LISTINGS_REPLICA_RETRY_SEC; the call is retried (searches
are read-only and idempotent) on another connection. Connections that fell back to the
primary are given up once a replica may be back, so reads return to the replicas.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg

from vmkproject.routers import LISTINGS_ALIAS

logger = logging.getLogger("vmk.db")

T = TypeVar("T")

PRIMARY = "primary"
# A replica that does not answer quickly is skipped rather than holding a call up.
REPLICA_CONNECT_TIMEOUT_SEC = 3
PROBE_TIMEOUT_SEC = 2
# What a replica URL may change in the primary's connection parameters (the session
# options, read-only and statement_timeout, stay the primary's).
_PARAMS = {"HOST": "host", "PORT": "port", "NAME": "dbname", "USER": "user", "PASSWORD": "password"}

REPLICA_UNREACHABLE = "not reachable"
REPLICA_NOT_STANDBY = "answers but is not a standby (pg_is_in_recovery() is false)"


@dataclass
class Replica:
    name: str
    params: dict[str, Any]
    address: str
    left_out_until: float = 0.0
    failures: int = 0
    connections: int = 0

    def available(self, now: float) -> bool:
        return self.left_out_until <= now


class ReplicaSet:
    """The replicas of one alias and which of them are left out, shared by its threads."""

    def __init__(self, replicas: list[dict[str, Any]], *, retry_sec: float) -> None:
        self.retry_sec = retry_sec
        self.replicas = [
            Replica(
                name=f"replica-{index}",
                params={key: str(entry[f]) for f, key in _PARAMS.items() if entry.get(f)},
                address=_address(entry),
            )
            for index, entry in enumerate(replicas, start=1)
        ]
        self._lock = threading.Lock()
        self._next = 0
        self.primary_connections = 0
        self._pool: Any = None

    def __bool__(self) -> bool:
        return bool(self.replicas)

    def by_name(self, name: str) -> Replica | None:
        return next((replica for replica in self.replicas if replica.name == name), None)

    def candidates(self) -> list[Replica]:
        """The replicas to try for a new connection, the next in turn first."""
        now = time.monotonic()
        with self._lock:
            count = len(self.replicas)
            start = self._next
            self._next = (self._next + 1) % max(count, 1)
            ordered = [self.replicas[(start + step) % count] for step in range(count)]
        return [replica for replica in ordered if replica.available(now)]

    def any_available(self) -> bool:
        now = time.monotonic()
        return any(replica.available(now) for replica in self.replicas)

    def leave_out(self, name: str) -> None:
        replica = self.by_name(name)
        if replica is None:
            return
        with self._lock:
            first = replica.available(time.monotonic())
            replica.left_out_until = time.monotonic() + self.retry_sec
            replica.failures += 1
        if first:
            logger.warning("listings %s failed; left out for %g s", replica.name, self.retry_sec)
        pool = self._pool
        if pool is not None:
            # Idle connections to it are broken too: drop them now, not one call at a time.
            try:
                pool.check()
            except Exception:  # noqa: BLE001 - the pool replaces what it can
                logger.debug("listings pool check after a replica failure failed")

    def connection_class(self, base: type[psycopg.Connection] = psycopg.Connection) -> type:
        replica_set = self

        class ReplicaConnection(base):  # type: ignore[valid-type, misc]
            vmk_target: str = PRIMARY
            vmk_born: float = 0.0

            @classmethod
            def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
                for replica in replica_set.candidates():
                    options = {**kwargs, **replica.params}
                    options["connect_timeout"] = min(
                        int(kwargs.get("connect_timeout") or REPLICA_CONNECT_TIMEOUT_SEC),
                        REPLICA_CONNECT_TIMEOUT_SEC,
                    )
                    try:
                        conn = super().connect(conninfo, **options)
                    except psycopg.OperationalError:
                        replica_set.leave_out(replica.name)
                        continue
                    replica.connections += 1
                    return _mark(conn, replica.name)
                conn = super().connect(conninfo, **kwargs)
                replica_set.primary_connections += 1
                return _mark(conn, PRIMARY)

        return ReplicaConnection

    def reset(self, conn: Any) -> None:
        """The pool's reset callback: give up a connection to a left-out replica, or one that
        fell back to the primary once a replica may be back (the pool makes a new one)."""
        target = getattr(conn, "vmk_target", PRIMARY)
        now = time.monotonic()
        if target == PRIMARY:
            stale = now - getattr(conn, "vmk_born", now) >= self.retry_sec
            if stale and self.any_available():
                conn.close()
            return
        replica = self.by_name(target)
        if replica is not None and not replica.available(now):
            conn.close()

    def attach(self, pool: Any) -> None:
        self._pool = pool

    def state(self) -> list[dict[str, Any]]:
        now = time.monotonic()
        return [
            {
                "name": replica.name,
                "left_out": not replica.available(now),
                "left_out_for_sec": round(max(replica.left_out_until - now, 0.0), 1),
                "failures": replica.failures,
                "connections_made": replica.connections,
            }
            for replica in self.replicas
        ]


def _mark(conn: Any, target: str) -> Any:
    conn.vmk_target = target
    conn.vmk_born = time.monotonic()
    return conn


def _address(entry: dict[str, Any]) -> str:
    host = str(entry.get("HOST") or "localhost")
    port = str(entry.get("PORT") or "5432")
    return f"{host}:{port}/{entry.get('NAME') or ''}"


_sets: dict[str, ReplicaSet] = {}
_sets_lock = threading.Lock()


def replica_set(alias: str = LISTINGS_ALIAS) -> ReplicaSet:
    """The alias's replica set (empty when it has no replicas), one per process."""
    from django.conf import settings

    with _sets_lock:
        found = _sets.get(alias)
        if found is None:
            found = ReplicaSet(
                list(settings.DATABASES[alias].get("REPLICAS") or []),
                retry_sec=settings.LISTINGS_REPLICA_RETRY_SEC,
            )
            _sets[alias] = found
        return found


def call_with_failover(
    fn: Callable[..., T],
    kwargs: dict[str, Any],
    *,
    unavailable: type[Exception],
    alias: str = LISTINGS_ALIAS,
) -> T:
    """`fn(**kwargs)`; when it raises `unavailable` (the database is not reachable) because a
    replica's connection broke, leave that replica out and run it again (at most once per
    replica)."""
    from django.db import connections

    replicas = replica_set(alias)
    attempts = len(replicas.replicas) + 1 if replicas else 1
    for attempt in range(attempts):
        try:
            return fn(**kwargs)
        except unavailable:
            wrapper = connections[alias]
            target = getattr(wrapper.connection, "vmk_target", None)
            if attempt + 1 >= attempts or wrapper.in_atomic_block:
                raise
            wrapper.close()
            if target is not None and target != PRIMARY:
                replicas.leave_out(target)
            logger.info("retrying a listings call after %s failed", target or "a connection")
    raise AssertionError("unreachable")  # pragma: no cover


def probe(params: dict[str, Any]) -> dict[str, Any]:
    """Connect to one server directly: reachable, standby or not, and how long ago it last
    replayed a transaction (an idle primary makes this grow too)."""
    started = time.monotonic()
    try:
        with psycopg.connect(**params, connect_timeout=PROBE_TIMEOUT_SEC, autocommit=True) as conn:
            row = conn.execute(
                "SELECT pg_is_in_recovery(), "
                "extract(epoch FROM now() - pg_last_xact_replay_timestamp())"
            ).fetchone()
    except psycopg.Error:
        return {"reachable": False, "error": REPLICA_UNREACHABLE}
    standby, lag = (row or (False, None))[:2]
    return {
        "reachable": True,
        "standby": bool(standby),
        "last_replay_sec_ago": round(float(lag), 1) if lag is not None else None,
        "answered_in_ms": round((time.monotonic() - started) * 1000, 1),
    }


def probe_all(alias: str = LISTINGS_ALIAS) -> list[dict[str, Any]]:
    """Each replica probed directly (all at once), with what this process's pool knows of
    it."""
    from django.db import connections

    replicas = replica_set(alias)
    if not replicas:
        return []
    base = connections[alias].get_connection_params()
    base = {
        key: value
        for key, value in base.items()
        if key in {"host", "port", "dbname", "user", "password", "options"}
    }
    # At once: a replica that does not answer costs PROBE_TIMEOUT_SEC, not that many times.
    with ThreadPoolExecutor(len(replicas.replicas), thread_name_prefix="vmk-probe") as probes:
        found = list(probes.map(probe, [{**base, **r.params} for r in replicas.replicas]))
    return [{**known, **answer} for known, answer in zip(replicas.state(), found, strict=True)]
