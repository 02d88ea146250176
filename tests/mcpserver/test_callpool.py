"""Tool calls run on a persistent, bounded pool of threads, in the caller's context, and
give their pooled connection back when they end."""

from __future__ import annotations

import asyncio
import threading
import time
from contextvars import ContextVar

import pytest
from django.db import connections

from listings import search
from listings.errors import NotFound
from listings.models import PropertyListing
from mcpserver import callpool, runner

pytestmark = pytest.mark.anyio

marker: ContextVar[str] = ContextVar("marker", default="unset")


@pytest.fixture(autouse=True)
def fresh_pool(settings):
    settings.MCP_CALL_THREADS = 3
    callpool.shutdown()
    yield
    callpool.shutdown()


async def test_calls_reuse_the_same_few_threads():
    await asyncio.gather(*(callpool.run(time.sleep, 0.02) for _ in range(3)))  # all started
    before = threading.active_count()
    names = {await callpool.run(lambda: threading.current_thread().name) for _ in range(40)}
    assert all(name.startswith(callpool.THREAD_PREFIX) for name in names)
    assert len(names) <= 3
    assert threading.active_count() == before  # no thread started per call


async def test_no_more_calls_run_at_once_than_the_pool_has_threads():
    running, most = 0, 0
    lock = threading.Lock()

    def slow() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    await asyncio.gather(*(callpool.run(slow) for _ in range(12)))
    assert most == 3


async def test_context_variables_reach_the_thread():
    marker.set("from the request")
    assert await callpool.run(marker.get) == "from the request"


async def test_a_tool_call_returns_its_pooled_connection(listings_access):
    def first_id() -> int:
        found = PropertyListing.objects.values_list("id", flat=True).first()
        assert found is not None
        return int(found)

    listing_id = await runner.run_search("lookup", first_id)
    detail = await runner.run_search("get_listing_by_id", search.get_listing, listing_id=listing_id)
    assert detail.id == listing_id

    def holding() -> list[bool]:
        return [connections["listings"].connection is not None]

    # Every pool thread: none keeps a connection out of the pool between calls.
    held = await asyncio.gather(*(callpool.run(holding) for _ in range(6)))
    assert not any(flag for flags in held for flag in flags)


async def test_a_thread_observer_gets_the_finished_call_on_its_pool_thread(listings_access, caplog):
    """The audit log writes a row there when answers wait for it: no hop to another thread
    and back to the event loop. The log line says how long that took (audit_ms)."""
    seen: list[tuple[str, dict]] = []
    on_loop: list[dict] = []

    def in_thread(record: dict) -> None:
        seen.append((threading.current_thread().name, dict(record)))
        time.sleep(0.02)  # a slow insert

    runner.thread_observers.append(in_thread)
    runner.call_observers.append(lambda record: on_loop.append(dict(record)))
    try:
        page = await runner.run_search("search_by_metadata", search.fulltext_search, limit=2)
        with pytest.raises(NotFound):
            await runner.run_search("get_listing_by_id", search.get_listing, listing_id=999999999)
    finally:
        runner.thread_observers.remove(in_thread)
        runner.call_observers.pop()
    (thread_a, found), (thread_b, missing) = seen
    assert thread_a.startswith(callpool.THREAD_PREFIX) and thread_b.startswith(
        callpool.THREAD_PREFIX
    )
    assert (found["tool"], found["rows"], found["error_code"]) == (
        "search_by_metadata",
        len(page.listings),
        "",
    )
    assert found["latency_ms"] > 0 and found["arguments"] == {"limit": 2}
    assert (missing["tool"], missing["error_code"]) == ("get_listing_by_id", "not_found")
    # The event loop's observers still see every call, marked as recorded on the thread.
    assert [record[runner.RECORDED_BY] for record in on_loop] == ["thread", "thread"]
    logged = [r for r in caplog.records if r.getMessage().startswith("tool=search_by_metadata")]
    assert logged and logged[-1].audit_ms >= 20
    assert f"audit_ms={logged[-1].audit_ms:.2f}" in logged[-1].getMessage()
