"""The README's production steps (migrate, check, serve) give a styled admin: /static/ works
with no collectstatic, and a missing static file is a 404."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from bench.localserver import free_port

ROOT = Path(__file__).resolve().parents[2]
DB_VARIABLES = ("LISTINGS_DATABASE_URL", "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD")


@pytest.fixture(scope="module")
def production_server(listings_db, tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """`manage.py migrate` then `manage.py serve`, on a real (non-embedded) listings URL,
    DEBUG off and STATIC_ROOT a directory that does not exist."""
    tmp = tmp_path_factory.mktemp("production")
    socket_dir = str(listings_db.settings_dict["HOST"])
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in DB_VARIABLES},
        "DJANGO_SETTINGS_MODULE": "vmkproject.settings",
        "VMK_DATA_DIR": str(tmp / "data"),
        "DATABASE_URL": f"sqlite:///{tmp / 'django.sqlite3'}",
        "LISTINGS_DATABASE_URL": f"postgres://vmk_reader@{quote(socket_dir, safe='')}/vmk_data",
        "EMBEDDER": "offline",
        "SECRET_KEY": "production-static-test",
        "DEBUG": "false",
        "STATIC_ROOT": str(tmp / "never-collected"),
        "MCP_PORT": str(port),
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "DB_POOL_TIMEOUT_SEC": "60",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    log = tmp / "serve.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [*manage, "serve"], cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        process.kill()
        pytest.fail(f"serve did not start\n{log.read_text()[-3000:]}")
    yield url, log
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def test_admin_css_is_served_without_collectstatic(production_server):
    url, _ = production_server
    response = httpx.get(f"{url}/static/admin/css/base.css", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/css")
    assert "body" in response.text
    script = httpx.get(f"{url}/static/admin/js/core.js", timeout=10)
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]


def test_the_login_page_links_the_served_stylesheet(production_server):
    url, _ = production_server
    page = httpx.get(f"{url}/admin/login/", timeout=10)
    assert page.status_code == 200
    assert "/static/admin/css/base.css" in page.text


@pytest.mark.parametrize(
    "path",
    [
        "/static/admin/css/no-such-file.css",
        "/static/",
        "/static/../vmkproject/settings.py",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/admin/css/base.css/..%2f..%2f..%2fsettings.py",
    ],
)
def test_a_missing_static_file_is_a_404(production_server, path):
    url, log = production_server
    response = httpx.get(f"{url}{path}", timeout=10)
    assert response.status_code == 404
    assert "SECRET_KEY" not in response.text
    assert "Traceback" not in log.read_text()


def test_the_browsers_favicon_request_finds_the_projects_icon(production_server):
    # Chromium asked for /favicon.ico on every admin page and logged a 404
    url, _ = production_server
    icon = httpx.get(f"{url}/favicon.ico", timeout=10, follow_redirects=True)
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in icon.text
