"""/health: the process is up; the body says how the database and the embedder are.

Finding out costs an embedding of a probe, two catalog queries and a connection to each
replica: the three run at once, each time-boxed, and their report is reused for
HEALTH_CACHE_SEC (one measurement shared by the callers that arrive meanwhile, through the
one TTL cache), so a load balancer or a monitor polling /health adds no load per poll.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

from listings.runtime import Remembered
from vmkproject.routers import LISTINGS_ALIAS

HEALTH_TIMEOUT_SEC = 2.0
# How long one measurement answers /health.
HEALTH_CACHE_SEC = 3.0
_measurements = Remembered(HEALTH_CACHE_SEC, maxsize=8)


def _database_state() -> dict[str, Any]:
    from django.db import connections

    from listings import capabilities
    from listings.embedders_progress import embedding_progress

    connection = connections[LISTINGS_ALIAS]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE oid = 'property_listings'::regclass"
            )
            estimate = cursor.fetchone()
        found = capabilities.current()
        progress = embedding_progress()
        return {
            "reachable": True,
            "embedded": bool(settings.DATABASES[LISTINGS_ALIAS].get("EMBEDDED")),
            "pgvector": row[0] if row else None,
            "listings_estimate": max(int(estimate[0]), 0) if estimate else None,
            **found.describe(),
            # The demo's embeddings being filled in the background: how far it is.
            **({"embedding": progress.describe()} if progress else {}),
        }
    except Exception:  # noqa: BLE001 - health never fails; it reports
        return {"reachable": False, "error": "the listings database is not reachable"}
    finally:
        connection.close()


async def _replicas_state() -> list[dict[str, Any]]:
    from vmkproject import replicas

    if not replicas.replica_set():
        return []
    try:
        return await asyncio.wait_for(
            sync_to_async(replicas.probe_all, thread_sensitive=False)(), HEALTH_TIMEOUT_SEC + 1
        )
    except Exception:  # noqa: BLE001 - health never fails; it reports
        return [{"reachable": False, "error": "the replicas did not answer in time"}]


async def _database() -> dict[str, Any]:
    try:
        return await asyncio.wait_for(
            sync_to_async(_database_state, thread_sensitive=False)(), HEALTH_TIMEOUT_SEC + 1
        )
    except TimeoutError:
        return {"reachable": False, "error": "the listings database did not answer in time"}


async def _embedder() -> dict[str, Any]:
    from listings.embedders import check_embedder

    try:
        return await check_embedder(HEALTH_TIMEOUT_SEC)
    except Exception:  # noqa: BLE001
        return {"reachable": False, "error": "the embedder check failed"}


async def measure() -> dict[str, Any]:
    """The database, its replicas and the embedder, checked at once."""
    started = time.monotonic()
    database, replicas_state, embedder = await asyncio.gather(
        _database(), _replicas_state(), _embedder()
    )
    if replicas_state:
        database["replicas"] = replicas_state
    # A database without FTS_CONFIG or an index still answers, worse: degraded, with why.
    ok = database.get("reachable") and embedder.get("reachable") and not database.get("warnings")
    # A replica down still answers through the others or the primary, worse: degraded.
    ok = ok and all(replica.get("reachable") for replica in replicas_state)
    return {
        "status": "ok" if ok else "degraded",
        "database": database,
        "embedder": embedder,
        "checked_in_ms": round((time.monotonic() - started) * 1000, 1),
        "checked_at": time.monotonic(),
    }


async def check() -> dict[str, Any]:
    """The latest measurement (at most HEALTH_CACHE_SEC old; `age_sec` says how old)."""
    loop = asyncio.get_running_loop()
    # A task per event loop: callers arriving while it runs await the same measurement.
    running = _measurements.get(("health", loop), lambda: loop.create_task(measure()))
    report = dict(await asyncio.shield(running))
    report["age_sec"] = round(time.monotonic() - report.pop("checked_at"), 1)
    return report


def forget() -> None:
    """Measure afresh on the next call (tests, and after a configuration change)."""
    _measurements.clear()
