"""Agent API keys and the audit log: stored hashes, /mcp on a real server, the admin."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from io import StringIO
from pathlib import Path

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from mcp import Client

from mcpserver import audit, keys
from mcpserver.management.commands import create_agent_key
from mcpserver.models import AgentKey, ToolCall

from .conftest import ROOT, RunningServer, start_server, stop_server

KEY_PATTERN = re.compile(r"^vmk_[A-Za-z0-9_-]{40}$", re.MULTILINE)
LIST_TOOLS = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
STATIC_TOKEN = "static-s3cret-token"


# --- keys -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_new_key_is_stored_only_as_a_hash_and_works_once_shown():
    key, plain = keys.create_key(name="crm-bot")

    assert KEY_PATTERN.match(plain)
    row = AgentKey.objects.filter(pk=key.pk).values().get()
    assert plain not in json.dumps(row, default=str)
    assert row["key_hash"] == hashlib.sha256(plain.encode()).hexdigest()
    assert row["prefix"] == plain[:12]
    snapshot = keys.load_snapshot()
    assert snapshot.in_use
    assert snapshot.match(plain).name == "crm-bot"
    altered = plain[:-1] + ("A" if plain[-1] != "A" else "B")
    assert snapshot.match(altered) is None
    assert snapshot.match("crm-bot") is None
    assert keys.generate_key() != plain


@pytest.mark.django_db
def test_revoked_and_expired_keys_are_refused_but_still_require_auth():
    assert keys.load_snapshot().in_use is False  # no keys: /mcp stays open
    _, revoked = keys.create_key(name="revoked")
    _, expired = keys.create_key(name="expired", expires_at=timezone.now() + timedelta(hours=1))
    assert keys.revoke(AgentKey.objects.filter(name="revoked")) == 1
    assert keys.revoke(AgentKey.objects.filter(name="revoked")) == 0  # already revoked

    snapshot = keys.load_snapshot()
    assert snapshot.match(revoked) is None
    assert snapshot.match(expired).name == "expired"
    assert snapshot.match(expired, now=timezone.now() + timedelta(hours=2)) is None
    AgentKey.objects.filter(name="expired").update(expires_at=timezone.now())
    only_dead_keys = keys.load_snapshot()
    assert only_dead_keys.match(expired) is None
    # Revoking or outliving the last key must not open /mcp to anyone.
    assert only_dead_keys.in_use is True


@pytest.mark.django_db
def test_create_agent_key_command_prints_the_key_once_with_its_usage():
    out = StringIO()
    call_command("create_agent_key", "ops-agent", "--expires-days", "30", stdout=out)

    text = out.getvalue()
    plain = KEY_PATTERN.search(text).group(0)
    assert f"Authorization: Bearer {plain}" in text
    assert "shown only now" in text
    key = AgentKey.objects.get(name="ops-agent")
    assert key.key_hash == keys.hash_key(plain)
    assert timedelta(days=29, hours=23) < key.expires_at - timezone.now() <= timedelta(days=30)
    with pytest.raises(CommandError, match=r"An agent key named 'ops-agent' already exists\."):
        call_command("create_agent_key", "ops-agent", stdout=StringIO())
    assert (key.calls_per_minute, key.calls_per_day) == (None, None)  # the settings' limits


@pytest.mark.django_db
def test_create_agent_key_sets_the_keys_own_limits():
    call_command("create_agent_key", "slow-agent", "--calls-per-minute", "5", stdout=StringIO())
    call_command("create_agent_key", "free-agent", "--calls-per-day", "0", stdout=StringIO())
    assert AgentKey.objects.get(name="slow-agent").calls_per_minute == 5
    free = AgentKey.objects.get(name="free-agent")
    assert (free.calls_per_minute, free.calls_per_day) == (None, 0)
    with pytest.raises(CommandError) as refused:
        call_command("create_agent_key", "bad", "--calls-per-minute", "-1", stdout=StringIO())
    assert str(refused.value) == create_agent_key.NEGATIVE_LIMIT
    assert not AgentKey.objects.filter(name="bad").exists()


# --- audit log (in-process) -------------------------------------------------------------------


def call(tool: str = "hybrid_search", **fields) -> ToolCall:
    return ToolCall(tool=tool, key_name=fields.pop("key_name", "tester"), **fields)


def test_a_full_queue_drops_calls_instead_of_blocking():
    log = audit.AuditLog(maxsize=3)  # no writer thread: nothing ever leaves the queue

    started = time.perf_counter()
    accepted = [log.submit(call()) for _ in range(10)]
    elapsed = time.perf_counter() - started

    assert accepted == [True] * 3 + [False] * 7
    assert log.dropped == 7
    assert log.queue.qsize() == 3
    assert elapsed < 0.5


def test_observed_calls_without_a_key_are_anonymous():
    log = audit.AuditLog(maxsize=10)
    record = {"tool": "describe_schema", "arguments": {}, "latency_ms": 1.5, "rows": 0}
    log.observe({**record, "error_code": "", "agent": None})
    log.observe({**record, "error_code": "not_found", "agent": "crm-bot"})
    first, second = log.queue.get_nowait(), log.queue.get_nowait()
    assert (first.key_name, first.error_code) == ("anonymous", "")
    assert (second.key_name, second.error_code) == ("crm-bot", "not_found")


@pytest.mark.django_db(transaction=True)
def test_the_writer_thread_writes_everything_queued_by_the_time_it_stops():
    log = audit.AuditLog(maxsize=100)
    long_query = "квартира " * 1000
    log.submit(call(arguments={"query": long_query, "limit": 5}, rows=5, latency_ms=12.5))
    log.submit(call("get_listing_by_id", arguments={"listing_id": 7}, error_code="not_found"))
    log.start()
    for _ in range(20):
        log.submit(call("describe_schema"))
    log.stop()

    assert log.written == 22 and log.failed == 0
    assert ToolCall.objects.filter(tool="describe_schema").count() == 20
    clipped = ToolCall.objects.get(tool="hybrid_search").arguments
    assert clipped["truncated"] is True
    assert len(clipped["json"]) == audit.ARGUMENTS_MAX_CHARS
    assert ToolCall.objects.get(tool="get_listing_by_id").arguments == {"listing_id": 7}


@pytest.mark.django_db
def test_prune_audit_log_deletes_only_rows_older_than_the_retention():
    now = timezone.now()
    ToolCall.objects.bulk_create(
        [
            call(time=now - timedelta(days=400)),
            call(time=now - timedelta(days=91)),
            call(time=now - timedelta(days=89)),
            call(time=now),
        ]
    )
    out = StringIO()
    call_command("prune_audit_log", stdout=out)  # AUDIT_RETENTION_DAYS = 90
    assert out.getvalue().strip() == "Deleted 2 audit log rows older than 90 days."
    assert ToolCall.objects.count() == 2

    out = StringIO()
    call_command("prune_audit_log", "--days", "30", stdout=out)
    assert out.getvalue().strip() == "Deleted 1 audit log rows older than 30 days."
    assert list(ToolCall.objects.values_list("time", flat=True)) == [now]


# --- /mcp on a real server --------------------------------------------------------------------


@dataclass
class KeyedServer:
    server: RunningServer
    database: Path
    keys: dict[str, str]

    def rows(self, sql: str, *params) -> list[tuple]:
        with sqlite3.connect(self.database) as db:
            return db.execute(sql, params).fetchall()


def manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


@pytest.fixture(scope="module")
def keyed_server(listings_db, tmp_path_factory):
    """A server whose Django database is a migrated SQLite file holding agent keys."""
    folder = tmp_path_factory.mktemp("keys")
    database = folder / "django.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}"}
    manage("migrate", "--noinput", env=env)
    created = {
        name: KEY_PATTERN.search(manage("create_agent_key", name, *extra, env=env)).group(0)
        for name, extra in [
            ("valid-agent", ("--expires-days", "7")),
            ("revoked-agent", ()),
            ("expired-agent", ("--expires-days", "1")),
        ]
    }
    with sqlite3.connect(database) as db:
        db.execute(
            "UPDATE mcpserver_agentkey SET revoked_at = '2025-01-01 00:00:00' "
            "WHERE name = 'revoked-agent'"
        )
        db.execute(
            "UPDATE mcpserver_agentkey SET expires_at = '2025-01-01 00:00:00' "
            "WHERE name = 'expired-agent'"
        )
    server = start_server(folder, MCP_AUTH_TOKENS=STATIC_TOKEN, **env)
    yield KeyedServer(server, database, created)
    stop_server(server)


@pytest.mark.anyio
@pytest.mark.parametrize("who", [None, "revoked-agent", "expired-agent", "made-up"])
async def test_missing_revoked_expired_and_unknown_keys_get_401(keyed_server, who):
    headers = dict(MCP_HEADERS)
    if who == "made-up":
        headers["Authorization"] = "Bearer vmk_" + "x" * 40
    elif who is not None:
        headers["Authorization"] = f"Bearer {keyed_server.keys[who]}"
    async with httpx.AsyncClient() as http:
        response = await http.post(keyed_server.server.mcp_url, headers=headers, content=LIST_TOOLS)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


def wait_for(fetch, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


async def call_as(url: str, token: str) -> int:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        tools = (await client.list_tools()).tools
        found = await client.call_tool("get_listing_by_id", {"listing_id": 1})
        assert not found.is_error
        missing = await client.call_tool("get_listing_by_id", {"listing_id": 999999999})
        assert missing.is_error
    return len(tools)


@pytest.mark.anyio
async def test_a_valid_key_lists_tools_and_its_calls_land_in_the_audit_log(keyed_server):
    assert await call_as(keyed_server.server.mcp_url, keyed_server.keys["valid-agent"]) == 10
    assert await call_as(keyed_server.server.mcp_url, STATIC_TOKEN) == 10  # side by side

    query = (
        "SELECT key_name, tool, arguments, rows, latency_ms, error_code "
        "FROM mcpserver_toolcall WHERE key_name = ? ORDER BY id"
    )
    written = wait_for(lambda: len(keyed_server.rows(query, "valid-agent")) >= 2)
    assert written, keyed_server.server.log_text()[-3000:]
    (found, missing) = keyed_server.rows(query, "valid-agent")
    assert found[:2] == ("valid-agent", "get_listing_by_id")
    assert json.loads(found[2]) == {"listing_id": 1}
    assert found[3] == 1 and found[4] > 0 and found[5] == ""
    assert missing[1] == "get_listing_by_id" and missing[5] == "not_found"
    assert json.loads(missing[2]) == {"listing_id": 999999999}
    assert wait_for(lambda: len(keyed_server.rows(query, "token-1")) >= 2)
    assert not keyed_server.rows(query, "revoked-agent")

    last_used = "SELECT name FROM mcpserver_agentkey WHERE last_used_at IS NOT NULL"
    assert wait_for(lambda: keyed_server.rows(last_used)) == [("valid-agent",)]


# --- admin ------------------------------------------------------------------------------------


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-not-used")
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_staff_create_a_key_and_see_it_once(staff):
    response = staff.post(
        reverse("admin:mcpserver_agentkey_add"),
        {"name": "claude-desktop", "expires_at_0": "2099-01-01", "expires_at_1": "00:00:00"},
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    plain = re.search(r"vmk_[A-Za-z0-9_-]{40}", html).group(0)
    assert f"Authorization: Bearer {plain}" in html
    key = AgentKey.objects.get(name="claude-desktop")
    assert key.key_hash == keys.hash_key(plain)
    assert key.created_by.username == "boss"
    assert timezone.localtime(key.expires_at).date().isoformat() == "2099-01-01"

    listing = staff.get(reverse("admin:mcpserver_agentkey_changelist")).content.decode()
    change = staff.get(reverse("admin:mcpserver_agentkey_change", args=[key.pk])).content.decode()
    for page in (listing, change):
        assert "claude-desktop" in page and f"{key.prefix}…" in page
        assert plain not in page and key.key_hash not in page
    assert "діє" in listing and "Відкликати ключ" in change


def listed_names(response) -> list[str]:
    return re.findall(
        r'<th class="field-name"><a href="[^"]*">([^<]*)</a>', response.content.decode()
    )


@pytest.mark.django_db
def test_staff_revoke_keys_and_change_their_expiry(staff):
    first, _ = keys.create_key(name="first")
    second, _ = keys.create_key(name="second")
    changelist = reverse("admin:mcpserver_agentkey_changelist")

    staff.post(changelist, {"action": "revoke_selected", "_selected_action": [first.pk]})
    staff.post(reverse("admin:mcpserver_agentkey_revoke", args=[second.pk]))
    assert AgentKey.objects.filter(revoked_at__isnull=False).count() == 2
    assert "відкликаний" in staff.get(changelist).content.decode()

    third, _ = keys.create_key(name="third")
    keys.create_key(name="expired", expires_at=timezone.now())
    for status, names in [
        ("revoked", ["second", "first"]),
        ("active", ["third"]),
        ("expired", ["expired"]),
    ]:
        assert listed_names(staff.get(changelist, {"status": status})) == names, status

    response = staff.post(
        reverse("admin:mcpserver_agentkey_change", args=[third.pk]),
        {"expires_at_0": "2030-05-01", "expires_at_1": "12:00:00", "name": "renamed"},
    )
    assert response.status_code == 302
    third.refresh_from_db()
    assert third.name == "third"  # only the expiry can change
    assert timezone.localtime(third.expires_at).date().isoformat() == "2030-05-01"


def listed_tools(response) -> list[str]:
    """The tool column of the changelist's rows, in order."""
    return re.findall(r'<td class="field-tool">([^<]*)</td>', response.content.decode())


@pytest.mark.django_db
def test_the_audit_log_is_listed_filtered_and_read_only(staff):
    # Both rows on today's local date, a minute apart, whenever the test runs: in the first
    # minute after local midnight "now - 1 minute" fell on yesterday.
    local_now = timezone.localtime()
    now = max(local_now, local_now.replace(hour=0, minute=1, second=0, microsecond=0))
    ToolCall.objects.bulk_create(
        [
            call(
                "hybrid_search",
                key_name="crm-bot",
                arguments={"query": "квартира"},
                rows=10,
                time=now - timedelta(minutes=1),
            ),
            call("get_listing_by_id", key_name="anonymous", error_code="not_found", time=now),
        ]
    )
    changelist = reverse("admin:mcpserver_toolcall_changelist")
    page = staff.get(changelist)
    assert page.status_code == 200
    html = page.content.decode()
    assert "delete_selected" not in html
    assert reverse("admin:mcpserver_toolcall_add") not in html
    assert listed_tools(page) == ["get_listing_by_id", "hybrid_search"]  # newest first
    assert "not_found" in html and "crm-bot" in html

    for query, tools in [
        ({"error_code": "not_found"}, ["get_listing_by_id"]),
        ({"error_code": "ok"}, ["hybrid_search"]),
        ({"tool": "hybrid_search"}, ["hybrid_search"]),
        ({"key_name": "anonymous"}, ["get_listing_by_id"]),
        ({"q": "crm"}, ["hybrid_search"]),
    ]:
        assert listed_tools(staff.get(changelist, query)) == tools, query
    today = timezone.localdate()
    dated = staff.get(
        changelist, {"time__year": today.year, "time__month": today.month, "time__day": today.day}
    )
    assert len(listed_tools(dated)) == 2

    entry = ToolCall.objects.get(tool="hybrid_search")
    detail = staff.get(reverse("admin:mcpserver_toolcall_change", args=[entry.pk]))
    assert detail.status_code == 200 and "квартира" in detail.content.decode()
    assert 'name="tool"' not in detail.content.decode()  # shown, not editable
    assert (
        staff.post(reverse("admin:mcpserver_toolcall_change", args=[entry.pk]), {}).status_code
        == 403
    )
    assert staff.get(reverse("admin:mcpserver_toolcall_add")).status_code == 403
    assert (
        staff.post(reverse("admin:mcpserver_toolcall_delete", args=[entry.pk])).status_code == 403
    )
    assert ToolCall.objects.count() == 2
