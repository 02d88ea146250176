from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RunningServer:
    def __init__(self, process: subprocess.Popen, port: int, log: Path) -> None:
        self.process = process
        self.port = port
        self.log = log
        self.url = f"http://127.0.0.1:{port}"
        self.mcp_url = f"{self.url}/mcp"

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_server(tmp_dir: Path, **env: str) -> RunningServer:
    port = free_port()
    log = tmp_dir / f"server-{port}.log"
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "vmkproject.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--timeout-graceful-shutdown",
            "10",
        ],
        cwd=ROOT,
        env=environment,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return RunningServer(process, port, log)
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not start: {log.read_text()[-3000:]}")


def stop_server(server: RunningServer) -> None:
    server.process.send_signal(signal.SIGTERM)
    try:
        server.process.wait(30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(10)


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
