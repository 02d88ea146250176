"""Start the app under uvicorn on a free 127.0.0.1 port: for the benchmark, the soak test and
the test suite's HTTP tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
from django.conf import settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    def __init__(self, process: subprocess.Popen, port: int, log: Path | None) -> None:
        self.process = process
        self.port = port
        self.log = log
        self.url = f"http://127.0.0.1:{port}"
        self.mcp_url = f"{self.url}/mcp"

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log else ""

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def start_local_server(
    env: Mapping[str, str] | None = None, *, log_dir: Path | None = None, timeout: float = 120.0
) -> LocalServer:
    """Start the server with `env` added to this process's environment; wait for /health.

    With `log_dir`, its output goes to `server-<port>.log` there (and into the error when it
    does not start); otherwise it is inherited.
    """
    port = free_port()
    return _started(
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
            "--timeout-graceful-shutdown",
            str(int(settings.SHUTDOWN_GRACE_SEC)),
            *([] if settings.MCP_ACCESS_LOG else ["--no-access-log"]),
        ],
        port,
        env,
        log_dir,
        timeout,
    )


class ServerDidNotStart(RuntimeError):
    pass


@contextlib.contextmanager
def serving(url: str) -> Iterator[tuple[str, LocalServer | None]]:
    """(`url`, None) for a running server's /mcp URL; with an empty `url`, a server started
    here for the block, (its /mcp URL, the server), stopped after it. ServerDidNotStart when
    it does not start."""
    if url:
        yield url, None
        return
    try:
        server = start_local_server()
    except RuntimeError as exc:
        raise ServerDidNotStart(str(exc)) from exc
    try:
        yield server.mcp_url, server
    finally:
        server.stop()


def start_serve(
    workers: int, env: Mapping[str, str] | None = None, *, log_dir: Path | None = None
) -> LocalServer:
    """`manage.py serve --workers N` on a free port, as an operator starts it; wait for
    /health. Its process is uvicorn's supervisor when `workers` > 1."""
    port = free_port()
    command = [sys.executable, "manage.py", "serve", "--port", str(port)]
    return _started([*command, "--workers", str(workers)], port, env, log_dir, 180.0)


def _started(
    command: list[str],
    port: int,
    env: Mapping[str, str] | None,
    log_dir: Path | None,
    timeout: float,
) -> LocalServer:
    log = log_dir / f"server-{port}.log" if log_dir else None
    output = log.open("w") if log else None
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        command,
        cwd=settings.BASE_DIR,
        env={**os.environ, "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", **(env or {})},
        stdout=output,
        stderr=subprocess.STDOUT if output else None,
    )
    server = LocalServer(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{server.url}/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"the local server did not start\n{server.log_text()[-3000:]}")


def as_deployed() -> dict[str, object]:
    """Migrate the default database as `make run` does, so that the server started next
    keeps its audit log (each answer waits for its row, AUDIT_WAIT_SEC): without the table
    the log is off, and a benchmark would time a server nobody runs. What it says goes into
    the report."""
    from django.core.management import call_command

    call_command("migrate", database="default", verbosity=0, interactive=False)
    return {"audit_log": True, "audit_wait_sec": settings.AUDIT_WAIT_SEC}
