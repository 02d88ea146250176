from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.localserver import LocalServer as RunningServer
from bench.localserver import free_port as free_port
from bench.localserver import start_local_server

ROOT = Path(__file__).resolve().parents[2]


def call_tool_over_http(
    url: str, name: str, arguments: dict, encoding: str = "identity"
) -> httpx.Response:
    """One tools/call POSTed as a plain HTTP client would, asking for `encoding`."""
    return httpx.post(
        url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        },
        headers={
            "accept": "application/json, text/event-stream",
            "accept-encoding": encoding,
            "mcp-protocol-version": "2025-06-18",
        },
        timeout=60,
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# VMK_TEST_PGBOUNCER=1 (make test-pgbouncer): the servers these tests start read the
# listings through a real PgBouncer in transaction mode (tests/vmkproject/test_pgbouncer.py).
_through_pgbouncer: dict[str, str] = {}


def start_server(tmp_dir: Path, **env: str) -> RunningServer:
    """The real app under uvicorn on the test settings, its log in `tmp_dir`."""
    # A test that brings its own database keeps it.
    own_database = {"VMK_DATA_DIR", "LISTINGS_DATABASE_URL", "DB_HOST"} & set(env)
    bouncer = {} if own_database else _through_pgbouncer
    return start_local_server(
        {"DJANGO_SETTINGS_MODULE": "tests.settings", "LOG_LEVEL": "INFO", **bouncer, **env},
        log_dir=tmp_dir,
    )


@pytest.fixture(scope="session", autouse=True)
def _pgbouncer_in_front() -> Iterator[None]:
    if os.environ.get("VMK_TEST_PGBOUNCER") != "1":
        yield
        return
    from tests.vmkproject.test_pgbouncer import started_bouncer, through

    bouncer = started_bouncer()
    _through_pgbouncer.update(
        {key: value for key, value in through(bouncer).items() if key.startswith("LISTINGS_")}
    )
    yield
    _through_pgbouncer.clear()
    bouncer.stop()


def stop_server(server: RunningServer) -> None:
    server.stop()


@pytest.fixture(scope="session")
def mcp_server(listings_db, tmp_path_factory) -> Iterator[RunningServer]:
    """The real ASGI app under uvicorn on a free 127.0.0.1 port, on the test database."""
    server = start_server(tmp_path_factory.mktemp("server"))
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def mcp_server_with_tokens(listings_db, tmp_path_factory) -> Iterator[RunningServer]:
    server = start_server(
        tmp_path_factory.mktemp("server-auth"), MCP_AUTH_TOKENS="s3cret-token,other-token"
    )
    yield server
    stop_server(server)
