"""The Starlette shell around Django: routes, lifespan (pools, MCP sessions, shutdown)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route

from vmkproject import health, metrics, telemetry
from vmkproject.db import close_listings_pool, listings_pool, stop_all
from vmkproject.routers import LISTINGS_ALIAS

logger = logging.getLogger("vmk.app")


def warm_listings_pool() -> None:
    """Open the listings pool and wait for its first connections (dictionary loaded)."""
    from django.db import connections

    connection = connections[LISTINGS_ALIAS]
    pool = listings_pool()
    if pool is not None:
        pool.open(wait=True, timeout=120)
    else:
        connection.ensure_connection()
        connection.close()


async def warm_embedder() -> None:
    """Load the embedding model (or reach Ollama) now, not on the first agent's call; a wrong
    model or EMBEDDING_DIM is reported here, at start-up."""
    from listings.embedders import get_embedder
    from listings.errors import SearchError

    try:
        await asyncio.to_thread(get_embedder().verify)
    except SearchError as exc:
        logger.error("embedder not ready: %s", exc.message)


WARM_UP_CALLS = (
    ("search_similar_listings", {"query": "квартира", "limit": 1}),
    ("search_by_metadata", {"query": "квартира", "limit": 1}),
)


async def warm_tools() -> None:
    """Run a tool of each kind once in-process, so the first agent's call finds the ORM,
    the output schemas and the worker threads warm (its latency then matches the tenth's)."""
    from mcpserver.server import mcp

    for name, arguments in WARM_UP_CALLS:
        try:
            await mcp.call_tool(name, arguments)
        except Exception as exc:  # noqa: BLE001 - a warm-up never stops the server
            logger.warning("warm-up call %s failed (%s)", name, type(exc).__name__)
    # The English word list the typo reader consults (0.12 s to load: the first request
    # with an English word nothing else reads paid it).
    from listings.interpretation.typos import english_word

    await sync_to_async(english_word, thread_sensitive=False)("warm")


async def keep_facts_fresh(interval: float | None = None) -> None:
    """Re-read the facts about the listings database (vocabulary, place names, capabilities)
    before they expire, looking every `interval` seconds (FACTS_REFRESH_SEC), so no agent's
    call pays for the re-read; until cancelled at shutdown. A failed round is logged and the
    next one tries again."""
    from listings.runtime import FACTS_REFRESH_SEC, refresh_facts

    every = FACTS_REFRESH_SEC if interval is None else interval
    while True:
        await asyncio.sleep(every)
        try:
            started = time.perf_counter()
            refreshed = await sync_to_async(refresh_facts, thread_sensitive=False)()
            if refreshed:
                took = (time.perf_counter() - started) * 1000
                logger.debug("facts re-read: %s (%.0f ms)", ", ".join(refreshed), took)
        except Exception as exc:  # noqa: BLE001 - the calls compute what is missing
            logger.warning(
                "the facts about the listings could not be re-read (%s)", type(exc).__name__
            )


async def health_endpoint(request: Request) -> JSONResponse:
    return JSONResponse(await health.check())


def build_app(django_app: Any) -> Starlette:
    from mcpserver import callpool
    from mcpserver.http import mcp_lifespan, mcp_routes
    from mcpserver.metrics_route import metrics_routes

    routes: list[BaseRoute] = [
        Route("/health", endpoint=health_endpoint, methods=["GET"]),
        *mcp_routes(),
        *metrics_routes(),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await sync_to_async(warm_listings_pool, thread_sensitive=False)()
        except Exception as exc:  # noqa: BLE001 - /health reports it; keep serving
            logger.error("listings database not reachable at start-up (%s)", type(exc).__name__)
        await warm_embedder()
        async with mcp_lifespan():
            await warm_tools()
            refresher = asyncio.create_task(keep_facts_fresh())
            try:
                yield
            finally:
                refresher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await refresher
        await sync_to_async(callpool.shutdown, thread_sensitive=False)()
        await sync_to_async(close_listings_pool, thread_sensitive=False)()
        metrics.process_exited()
        await sync_to_async(telemetry.shutdown, thread_sensitive=False)()
        # uvicorn re-raises SIGTERM after shutdown, which skips atexit handlers: let go of
        # the embedded database here (it stops if this was its last holder).
        await sync_to_async(stop_all, thread_sensitive=False)()

    # Django serves everything else, /static/ included (vmkproject.staticfiles).
    routes.append(Mount("/", app=django_app))
    return Starlette(routes=routes, lifespan=lifespan)
