from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.localserver import LocalServer as RunningServer
from bench.localserver import free_port as free_port
from bench.localserver import start_local_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def start_server(tmp_dir: Path, **env: str) -> RunningServer:
    """The real app under uvicorn on the test settings, its log in `tmp_dir`."""
    return start_local_server(
        {"DJANGO_SETTINGS_MODULE": "tests.settings", "LOG_LEVEL": "INFO", **env}, log_dir=tmp_dir
    )


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
