"""SIGTERM: calls in flight finish, then the pool and the embedded PostgreSQL stop."""

from __future__ import annotations

import contextlib
import signal
import threading
import time

import httpx
import psutil
import pytest

from bench.localserver import start_serve

from .conftest import start_server

BODY = (
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hybrid_search",'
    '"arguments":{"query":"квартира з балконом","limit":50}}}'
)


def postgres_processes(data_dir) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["name", "cmdline"]):
        if process.info["name"] == "postgres" and str(data_dir) in " ".join(
            process.info["cmdline"] or []
        ):
            found.append(process)
    return found


def test_sigterm_lets_calls_finish_and_stops_the_embedded_database(tmp_path):
    data_dir = tmp_path / "data"
    server = start_server(tmp_path, VMK_DATA_DIR=str(data_dir), DEMO_LISTINGS_COUNT="60")
    assert postgres_processes(data_dir / "pg")
    statuses: list[int] = []
    cut: list[str] = []

    def call() -> None:
        # Call in a loop until the server stops accepting connections.
        while True:
            try:
                response = httpx.post(
                    server.mcp_url,
                    content=BODY,
                    headers={
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                        "MCP-Protocol-Version": "2025-11-25",
                    },
                    timeout=30,
                )
            except (httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError) as exc:
                # Refused or closed at shutdown; whether the server had started the call is
                # checked below against its log.
                cut.append(type(exc).__name__)
                return
            statuses.append(response.status_code)

    callers = [threading.Thread(target=call) for _ in range(6)]
    for caller in callers:
        caller.start()
    time.sleep(1.0)
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    for caller in callers:
        caller.join(30)
    server.process.wait(30)
    stopped_in = time.monotonic() - started
    assert stopped_in < 15  # SHUTDOWN_GRACE_SEC is 10
    # Every call the server started (one log line each) was answered: none was cut.
    started_calls = server.log_text().count("tool=hybrid_search")
    assert len(statuses) >= 6 and all(code == 200 for code in statuses), statuses
    assert started_calls == len(statuses), (started_calls, len(statuses), cut)
    deadline = time.monotonic() + 10
    while postgres_processes(data_dir / "pg") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not postgres_processes(data_dir / "pg"), "PostgreSQL was left running"


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_pressed_twice_shuts_down_as_once_without_a_traceback(tmp_path, workers):
    # uvicorn's "force exit" on a second SIGINT left the app's lifespan unfinished: two
    # tracebacks on the terminal of whoever pressed Ctrl+C twice during `make run`; with
    # MCP_WORKERS > 1 in every worker, which a terminal's Ctrl+C reaches as well.
    data_dir = tmp_path / "data"
    env = {"DJANGO_SETTINGS_MODULE": "tests.settings", "LOG_LEVEL": "INFO"}
    env |= {"VMK_DATA_DIR": str(data_dir), "DEMO_LISTINGS_COUNT": "60"}
    server = start_serve(workers, env, log_dir=tmp_path)  # `make run` starts one
    group = [psutil.Process(server.process.pid)]
    group += group[0].children(recursive=True)  # what a terminal's Ctrl+C reaches
    for _ in range(2):
        for process in group:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGINT)
        time.sleep(0.05)
    assert server.process.wait(30) == 0
    log = server.log_text()
    assert "Traceback" not in log, log[-3000:]
    assert log.count("Application shutdown complete.") == workers, log[-3000:]
    deadline = time.monotonic() + 10
    while postgres_processes(data_dir / "pg") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not postgres_processes(data_dir / "pg"), "PostgreSQL was left running"
