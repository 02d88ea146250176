"""An exhausted pool: callers get a clear error after a bounded wait, never a hang."""

from __future__ import annotations

import json
import time

import anyio
import pytest
from mcp import Client

from listings.search import POOL_BUSY

from .conftest import start_server, stop_server

pytestmark = pytest.mark.anyio


async def test_an_exhausted_pool_answers_busy_quickly_and_recovers(listings_db, tmp_path):
    server = start_server(tmp_path, DB_POOL_MIN="1", DB_POOL_MAX="1", DB_POOL_TIMEOUT_SEC="0.001")
    outcomes: list[str] = []
    try:
        async with Client(server.mcp_url) as client:

            async def one() -> None:
                result = await client.call_tool(
                    "listing_stats", {"filters": {"listing_status": "any"}, "group_by": "district"}
                )
                if result.is_error:
                    error = json.loads(result.content[0].text)
                    assert error == {"error": POOL_BUSY, "code": "database_unavailable"}
                    outcomes.append("busy")
                else:
                    outcomes.append("ok")

            started = time.monotonic()
            async with anyio.create_task_group() as group:
                for _ in range(16):
                    group.start_soon(one)
            assert time.monotonic() - started < 30  # bounded: no call hangs
            assert "busy" in outcomes and len(outcomes) == 16
            await anyio.sleep(0.2)
            again = await client.call_tool("get_listing_by_id", {"listing_id": 1})
            assert not again.is_error  # the pool serves again once calls finish
    finally:
        stop_server(server)
