"""/health: the process is up; the body says how the database and the embedder are."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

from vmkproject.routers import LISTINGS_ALIAS

HEALTH_TIMEOUT_SEC = 2.0


def _database_state() -> dict[str, Any]:
    from django.db import connections

    from listings import capabilities

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
        return {
            "reachable": True,
            "embedded": bool(settings.DATABASES[LISTINGS_ALIAS].get("EMBEDDED")),
            "pgvector": row[0] if row else None,
            "listings_estimate": max(int(estimate[0]), 0) if estimate else None,
            **found.describe(),
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


async def check() -> dict[str, Any]:
    from listings.embedders import check_embedder

    started = time.monotonic()
    try:
        database = await asyncio.wait_for(
            sync_to_async(_database_state, thread_sensitive=False)(), HEALTH_TIMEOUT_SEC + 1
        )
    except TimeoutError:
        database = {"reachable": False, "error": "the listings database did not answer in time"}
    replicas_state = await _replicas_state()
    if replicas_state:
        database["replicas"] = replicas_state
    try:
        embedder = await check_embedder(HEALTH_TIMEOUT_SEC)
    except Exception:  # noqa: BLE001
        embedder = {"reachable": False, "error": "the embedder check failed"}
    # A database without FTS_CONFIG or an index still answers, worse: degraded, with why.
    ok = database.get("reachable") and embedder.get("reachable") and not database.get("warnings")
    # A replica down still answers through the others or the primary, worse: degraded.
    ok = ok and all(replica.get("reachable") for replica in replicas_state)
    return {
        "status": "ok" if ok else "degraded",
        "database": database,
        "embedder": embedder,
        "checked_in_ms": round((time.monotonic() - started) * 1000, 1),
    }
