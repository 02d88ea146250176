"""`manage.py serve` logs one line per tool call: uvicorn's access log only on request."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from django.conf import settings

from bench.localserver import free_port

ACCESS_LINE = '"GET /health HTTP/1.1" 200'


def _served_log(tmp_path, **env: str) -> str:
    port = free_port()
    log_path = tmp_path / f"serve-{port}.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--workers", "1"],
            cwd=settings.BASE_DIR,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "tests.settings",
                "LOG_LEVEL": "INFO",
                "PYTHONUNBUFFERED": "1",
                **env,
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.3)
            assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(60)
    return log_path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.usefixtures("listings_db")
def test_the_access_log_is_off_unless_a_setting_turns_it_on(tmp_path):
    assert ACCESS_LINE not in _served_log(tmp_path)
    assert ACCESS_LINE in _served_log(tmp_path, MCP_ACCESS_LOG="true")
