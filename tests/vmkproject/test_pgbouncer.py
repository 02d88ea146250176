"""The server through a real PgBouncer (Debian `pgbouncer`) in transaction mode in front of
the embedded PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import psycopg
import pytest
from django.conf import settings
from mcp import Client

from bench import fleet
from bench.localserver import start_local_server
from demo import embedded as db
from listings import search

DBNAME = settings.DATABASES["listings"]["NAME"]
CALLS: list[tuple[str, dict[str, Any]]] = [
    *fleet.MIX,
    ("search_similar_listings", {"query": "квартира", "filters": {"city": "Київ"}, "limit": 5}),
    ("hybrid_search", {"query": "будинок", "filters": {"deal_type": "sale"}, "limit": 5}),
    ("search_by_metadata", {"query": "новобудова", "sort_by": "date_desc", "limit": 5}),
    ("listing_stats", {"group_by": "rooms_count"}),
    ("describe_schema", {}),
]
RESOURCES = ["listing://1", "schema://property_listings", "stats://database"]


def primary() -> db.EmbeddedServer:
    return db.configured_server()


def started_bouncer() -> fleet.Process:
    return fleet.start_pgbouncer(
        server_host=primary().socket_dir,
        dbname=DBNAME,
        connect_query=fleet.pgbouncer_connect_query(
            fts_config=settings.FTS_CONFIG,
            statement_timeout_ms=int(settings.QUERY_TIMEOUT_SEC * 1000),
        ),
    )


@pytest.fixture(scope="module")
def bouncer(listings_db):
    found = started_bouncer()
    yield found
    found.stop()


def through(bouncer: fleet.Process, **env: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "LISTINGS_DATABASE_URL": f"postgres://vmk_reader@127.0.0.1:{bouncer.port}/{DBNAME}",
        "LISTINGS_PGBOUNCER": "true",
        **env,
    }


def comparable(value: Any) -> Any:
    """A result without what differs from call to call (timings)."""
    if isinstance(value, dict):
        return {
            key: comparable(item)
            for key, item in value.items()
            if not (key.endswith("_ms") or key in {"timings", "checked_at"})
        }
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


async def answers(url: str) -> list[Any]:
    found: list[Any] = []
    async with Client(url) as client:
        for tool, arguments in CALLS:
            result = await client.call_tool(tool, arguments)
            content = result.structured_content or json.loads(
                getattr(result.content[0], "text", "")
            )
            found.append((tool, result.is_error, comparable(content)))
        for uri in RESOURCES:
            read = await client.read_resource(uri)
            found.append((uri, comparable(json.loads(getattr(read.contents[0], "text", "")))))
    return found


def test_every_tool_and_resource_answers_through_pgbouncer_as_it_does_directly(bouncer, tmp_path):
    direct_server = start_local_server({"DJANGO_SETTINGS_MODULE": "tests.settings"})
    try:
        direct = asyncio.run(answers(direct_server.mcp_url))
    finally:
        direct_server.stop()
    server = start_local_server(through(bouncer), log_dir=tmp_path)
    try:
        via_bouncer = asyncio.run(answers(server.mcp_url))
        assert [entry[:2] for entry in via_bouncer] == [entry[:2] for entry in direct]
        for mine, theirs in zip(via_bouncer, direct, strict=True):
            assert mine == theirs, mine[0]
        # Several clients at once share PgBouncer's few server connections.
        report = asyncio.run(fleet.soak(server.mcp_url, clients=4, seconds=10))
        assert report["calls"] > 10
        assert report["failed_calls"] == 0, report
    finally:
        server.stop()
    assert "Traceback" not in server.log_text()


def test_check_listings_db_passes_through_pgbouncer_with_every_interface(bouncer):
    # Every tool, resource and admin page, the read-only checks among them.
    done = subprocess.run(
        [sys.executable, "manage.py", "check_listings_db"],
        cwd=settings.BASE_DIR,
        env={**os.environ, **through(bouncer)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
    assert "The listings database has everything the project needs." in done.stdout


def test_transaction_local_settings_stay_in_their_transaction(bouncer):
    url = f"postgres://vmk_reader@127.0.0.1:{bouncer.port}/{DBNAME}"

    def ef_search(conn: psycopg.Connection) -> Any:
        # Each transaction may get another server connection: one that has not loaded pgvector
        # yet does not know hnsw.ef_search, so load it first in the same transaction.
        conn.execute("SELECT '[1]'::vector")
        return conn.execute("SHOW hnsw.ef_search").fetchone()

    with psycopg.connect(url, prepare_threshold=None) as conn:
        default = ef_search(conn)
        with conn.transaction():
            conn.execute(search.VECTOR_SEARCH_OPTIONS_SQL, search.vector_search_options(123))
            assert ef_search(conn) == ("123",)
        conn.commit()
        assert ef_search(conn) == default
        # Session settings PgBouncer's connect_query gave every server connection.
        assert conn.execute("SHOW statement_timeout").fetchone() == (
            f"{int(settings.QUERY_TIMEOUT_SEC)}s",
        )
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("CREATE TEMP TABLE written (id int)")
