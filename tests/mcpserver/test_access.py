"""Scopes and quotas per caller: contacts masked without contacts:read in every tool and
resource; calls per minute and per day counted in the default database, across restarts."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from listings.contacts import CONTACTS_MASKED
from mcpserver import callers, keys, quotas
from mcpserver.callers import Caller
from mcpserver.models import QuotaWindow
from mcpserver.server import mcp

from .conftest import start_server, stop_server
from .test_keys_audit import KEY_PATTERN, manage

MASKED_PHONE = re.compile(r"^\+38\d{3}•{5}\d{2}$")
CLEAR_PHONE = re.compile(r"^\+380\d{9}$")


def caller(*scopes: str, per_minute: int | None = None, per_day: int | None = None) -> Caller:
    return Caller(
        name="tester",
        quota_key="key:tester",
        scopes=frozenset(scopes),
        calls_per_minute=per_minute,
        calls_per_day=per_day,
    )


# --- contacts behind contacts:read (in-process, through the tools' output path) ---------------


async def listing_as(who: Caller | None) -> tuple[dict, dict]:
    """get_listing_by_id and listing://1 as `who` (None: an in-process call)."""
    reset = callers.current_caller.set(who)
    try:
        tool = await mcp.call_tool("get_listing_by_id", {"listing_id": 1})
        resource = await mcp.read_resource("listing://1")
    finally:
        callers.current_caller.reset(reset)
    return tool.structured_content, json.loads(next(iter(resource)).content)


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True, databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
async def test_contacts_are_masked_without_the_scope_in_tools_and_resources():
    for who in (None, callers.anonymous(), caller("listings:read")):
        for card in await listing_as(who):
            assert MASKED_PHONE.match(card["contact_phone"]), (who, card["contact_phone"])
            assert card["contacts_note"] == CONTACTS_MASKED
    for card in await listing_as(caller("listings:read", "contacts:read")):
        assert CLEAR_PHONE.match(card["contact_phone"])
        assert card["contacts_note"] is None


@pytest.mark.django_db
def test_an_agent_key_gets_contacts_read_and_its_own_limits_from_its_fields():
    key, plain = keys.create_key(name="crm-bot")
    assert keys.load_snapshot().match(plain).caller().scopes == {"listings:read"}
    key.contacts_read, key.calls_per_minute, key.calls_per_day = True, 5, 0
    key.save()
    found = keys.load_snapshot().match(plain).caller()
    assert found.scopes == {"listings:read", "contacts:read"}
    assert found.quota_key == f"key:{key.pk}"
    assert quotas.limits(found) == (5, 0)


@pytest.mark.django_db
def test_staff_give_a_key_contacts_and_its_own_limits_in_the_admin(admin_client):
    from django.urls import reverse

    key, plain = keys.create_key(name="crm-bot")
    add = admin_client.get(reverse("admin:mcpserver_agentkey_add")).content.decode()
    assert 'name="contacts_read"' in add and 'name="calls_per_minute"' in add
    response = admin_client.post(
        reverse("admin:mcpserver_agentkey_change", args=[key.pk]),
        {"contacts_read": "on", "calls_per_minute": "7", "calls_per_day": "0"},
    )
    assert response.status_code == 302
    key.refresh_from_db()
    assert (key.contacts_read, key.calls_per_minute, key.calls_per_day) == (True, 7, 0)
    assert quotas.limits(keys.load_snapshot().match(plain).caller()) == (7, 0)


# --- quotas (in-process) ----------------------------------------------------------------------

NOON = datetime(2026, 5, 4, 12, 0, 10, tzinfo=UTC)


@pytest.mark.django_db
def test_a_caller_over_its_minute_limit_is_refused_with_the_seconds_to_wait(settings):
    settings.MCP_CALLS_PER_MINUTE = 3
    who = caller("listings:read")
    for _ in range(3):
        quotas.consume(who, now=NOON)
    with pytest.raises(quotas.RateLimited) as refused:
        quotas.consume(who, now=NOON + timedelta(seconds=5))
    assert refused.value.code == "rate_limited"
    assert refused.value.retry_after == 45
    assert refused.value.message == quotas.PER_MINUTE_REACHED.format(limit=3, seconds=45)
    assert refused.value.as_dict()["retry_after"] == "45"
    # Refused calls are not counted; the next minute starts afresh; others count apart.
    assert QuotaWindow.objects.get(caller="key:tester").calls == 3
    quotas.consume(who, now=NOON + timedelta(minutes=1))
    quotas.consume(callers.static_token(1), now=NOON)


@pytest.mark.django_db
def test_the_daily_quota_and_a_keys_own_limits(settings):
    settings.MCP_CALLS_PER_DAY = 2
    settings.MCP_CALLS_PER_MINUTE = 100
    who = caller("listings:read")
    quotas.consume(who, now=NOON)
    quotas.consume(who, now=NOON + timedelta(hours=3))
    with pytest.raises(quotas.RateLimited) as refused:
        quotas.consume(who, now=NOON + timedelta(hours=6))
    assert refused.value.retry_after == 6 * 3600 - 10
    # The refused call counts in no window, the minute's included.
    assert QuotaWindow.objects.filter(window="minute").count() == 2
    settings.MCP_CALLS_PER_MINUTE = 0
    assert refused.value.message.startswith("Daily quota reached: 2 calls per day")
    quotas.consume(who, now=NOON + timedelta(days=1))  # a new UTC day

    unlimited = caller("listings:read", per_day=0)  # the key's own 0: no limit
    for _ in range(5):
        quotas.consume(unlimited, now=NOON)
    assert QuotaWindow.objects.filter(caller="key:tester", window="day").count() == 2


@pytest.mark.django_db
def test_old_windows_are_deleted_when_a_new_day_starts(settings):
    settings.MCP_CALLS_PER_DAY = 10
    who = caller("listings:read")
    quotas.consume(who, now=NOON - timedelta(days=5))
    assert QuotaWindow.objects.count() == 1
    quotas.consume(who, now=NOON)
    assert list(QuotaWindow.objects.values_list("start", flat=True)) == [
        NOON.replace(hour=0, minute=0, second=0)
    ]


# --- quotas on real servers: a refused call is a tool error; a restart keeps the count --------


async def call_tools(url: str, token: str, count: int) -> list:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    results = []
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        for _ in range(count):
            results.append(await client.call_tool("get_listing_by_id", {"listing_id": 1}))
    return results


@pytest.mark.anyio
async def test_quotas_survive_a_restart_and_refusals_say_rate_limited(listings_db, tmp_path):
    database = tmp_path / "django.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}", "MCP_CALLS_PER_DAY": "3"}
    manage("migrate", "--noinput", env=env)
    plain = KEY_PATTERN.search(manage("create_agent_key", "quota-agent", env=env)).group(0)

    first = start_server(tmp_path, **env)
    try:
        results = await call_tools(first.mcp_url, plain, 2)
    finally:
        stop_server(first)
    assert [result.is_error for result in results] == [False, False]

    second = start_server(tmp_path, **env)  # a new process: nothing in memory
    try:
        results = await call_tools(second.mcp_url, plain, 2)
    finally:
        stop_server(second)
    assert [result.is_error for result in results] == [False, True]
    error = json.loads(results[1].content[0].text)
    assert error["code"] == "rate_limited"
    assert error["error"].startswith("Daily quota reached: 3 calls per day for this caller.")
    assert 0 < int(error["retry_after"]) <= 86400
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT window, calls FROM mcpserver_quotawindow").fetchall()
        audited = db.execute(
            "SELECT error_code FROM mcpserver_toolcall WHERE key_name = 'quota-agent' ORDER BY id"
        ).fetchall()
    assert rows == [("day", 3)]
    assert [code for (code,) in audited][-1:] == ["rate_limited"]


# --- quotas under concurrent callers on PostgreSQL --------------------------------------------

# Run in a process of its own whose `default` database is PostgreSQL: THREADS threads call
# consume() for one caller at the same instant (a window none of them has opened yet), each
# on its own connection, and count what they were allowed and refused.
CONCURRENT = """
import json, threading
from datetime import UTC, datetime
from django.db import connection, connections
from mcpserver import quotas
from mcpserver.callers import Caller
from mcpserver.models import QuotaWindow

with connection.schema_editor() as editor:
    editor.create_model(QuotaWindow)
THREADS, EACH, LIMIT = 8, 25, 150
who = Caller(name="c", quota_key="key:concurrent", scopes=frozenset(), calls_per_minute=LIMIT)
now = datetime(2026, 5, 4, 12, 0, 10, tzinfo=UTC)
start = threading.Barrier(THREADS)
allowed, refused, waits = [], [], set()

def caller():
    start.wait()
    for _ in range(EACH):
        try:
            quotas.consume(who, now=now)
        except quotas.RateLimited as exc:
            refused.append(1)
            waits.add(exc.retry_after)
        else:
            allowed.append(1)
    connections.close_all()

threads = [threading.Thread(target=caller) for _ in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
row = QuotaWindow.objects.get(caller="key:concurrent", window="minute")
print(json.dumps({"allowed": len(allowed), "refused": len(refused), "counted": row.calls,
                  "waits": sorted(waits)}))
"""


def test_concurrent_callers_on_postgresql_are_counted_exactly_up_to_the_limit(listings_db):
    from bench import fleet
    from demo import embedded

    primary = embedded.configured_server()
    name = "vmk_test_quota_threads"
    url = fleet.app_database(primary, name)
    try:
        out = manage("shell", "-c", CONCURRENT, env={"DATABASE_URL": url})
    finally:
        fleet.drop_database(primary, name)
    figures = json.loads(out.strip().splitlines()[-1])
    # 200 calls race for 150: none lost, none counted twice, the rest told to wait 50 s.
    assert figures == {"allowed": 150, "refused": 50, "counted": 150, "waits": [50]}
