"""Request limits and production security settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


def test_request_bodies_over_the_limit_are_refused(mcp_server):
    padding = "x" * 1_200_000  # MCP_MAX_BODY_BYTES is 1 000 000
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_by_metadata",'
        f'"arguments":{{"query":"{padding}"}}}}}}'
    )
    response = httpx.post(mcp_server.mcp_url, content=body, headers=HEADERS, timeout=30)
    assert response.status_code == 413
    assert "Traceback" not in response.text


def test_a_long_query_under_the_body_limit_gets_a_clear_error(mcp_server):
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_by_metadata",'
        f'"arguments":{{"query":"{"к" * 5000}"}}}}}}'
    )
    response = httpx.post(mcp_server.mcp_url, content=body.encode(), headers=HEADERS, timeout=30)
    result = response.json()["result"]
    assert result["isError"] is True
    assert "'query' is 5000 characters long; the limit is 1000." in result["content"][0]["text"]


def test_a_query_of_hundreds_of_digits_is_searched_as_text_not_an_internal_error(mcp_server):
    for query in ("1" * 995 + " м²", "квартира " + "9" * 400 + " кімнати"):
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "search_by_metadata", "arguments": {"query": query}},
            }
        )
        response = httpx.post(
            mcp_server.mcp_url, content=body.encode(), headers=HEADERS, timeout=30
        )
        result = response.json()["result"]
        assert result["isError"] is False, result["content"][0]["text"]
        assert "min_area" not in result["structuredContent"]["filters"]


def settings_of(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SECRET_KEY", "DEBUG"))}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='vmkproject.settings'; "
            "django.setup(); from django.conf import settings as s; "
            "print(s.DEBUG, s.SECURE_CONTENT_TYPE_NOSNIFF, s.X_FRAME_OPTIONS, s.SESSION_COOKIE_SECURE)",
        ],
        cwd=ROOT,
        env={**clean, "VMK_DATA_DIR": str(ROOT / ".data" / "test"), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_real_database_without_secret_key_refuses_to_start():
    result = settings_of(LISTINGS_DATABASE_URL="postgres://reader@db.example:5432/vmk_data")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when serving a real listings database" in result.stderr


def test_production_defaults_are_safe():
    result = settings_of(
        LISTINGS_DATABASE_URL="postgres://reader@db.example:5432/vmk_data",
        SECRET_KEY="x" * 50,
        SESSION_COOKIE_SECURE="true",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True", "DENY", "True"]
