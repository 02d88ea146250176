"""Start the app under uvicorn on a free 127.0.0.1 port, for the benchmark and the soak test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
from django.conf import settings


class LocalServer:
    def __init__(self, process: subprocess.Popen, port: int) -> None:
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.mcp_url = f"{self.url}/mcp"

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def start_local_server(timeout: float = 120.0, **env: str) -> LocalServer:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [
            sys.executable,
            "-m",
            "uvicorn",
            "vmkproject.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ, "LOG_LEVEL": "WARNING", **env},
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return LocalServer(process, port)
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError("the local server did not start")
