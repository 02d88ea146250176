"""listings.runtime.Facts: the facts about the database a server re-reads before they
expire, so that no call pays for the re-read (the vocabulary's and the place names' scans)."""

from __future__ import annotations

import asyncio
import math
import time
from unittest import mock

import pytest

from listings import compiled, runtime, search
from listings.runtime import Facts
from vmkproject import app

pytestmark = pytest.mark.usefixtures("listings_access")


def test_a_fact_is_computed_once_until_its_time_and_refreshed_before_it():
    computed = []
    facts = Facts(ttl=60)

    def compute():
        computed.append(1)
        return len(computed)

    assert facts.get("count", compute) == 1 and facts.get("count", compute) == 1
    assert facts.refresh(within=30) == []  # read a moment ago, kept a minute: not due
    assert facts.refresh(within=60) == ["count"]
    assert facts.get("count", compute) == 2 and len(computed) == 2  # the call computes nothing


def test_a_fact_slow_to_read_is_kept_until_its_reading_is_a_small_share_of_the_time():
    """A table ten times larger makes the vocabulary's scan ten times longer: read every
    40-50 s it would keep the database busy; kept for 100 times its reading, 1 % of it."""
    computed = []
    facts = Facts(ttl=0.05, cost_share=0.02)

    def slow():
        computed.append(1)
        time.sleep(0.02)  # kept for at least 1 s
        return len(computed)

    def quick():
        computed.append(1)
        return len(computed)

    assert facts.get("slow", slow) == 1 and facts.get("quick", quick) == 2
    time.sleep(0.2)
    assert facts.get("quick", quick) == 3  # past its ttl
    assert facts.get("slow", slow) == 1  # still kept
    assert facts.refresh(within=0.01) == []  # "quick" was read just now, "slow" lasts 0.8 s more
    assert facts.refresh(within=10) == ["slow", "quick"]


def test_one_slow_read_keeps_a_fact_no_longer_than_a_few_ttls():
    facts = Facts(ttl=0.05, cost_share=0.001)

    def slow():
        time.sleep(0.02)  # 20 s by its cost, FACTS_MAX_STRETCH ttls at most
        return "read"

    facts.get("slow", slow)
    kept = facts._found["slow"][1] - facts._found["slow"][0]
    assert kept == pytest.approx(0.05 * runtime.FACTS_MAX_STRETCH)


def test_a_fact_that_fails_to_refresh_keeps_its_value_and_its_time():
    facts = Facts(ttl=0.2)
    facts.get("fact", lambda: "first")

    def broken():
        raise RuntimeError("gone")

    now = time.monotonic()
    with mock.patch.object(facts, "_found", {"fact": (now, now + 0.2, "first", broken)}):
        assert facts.refresh(within=60) == []
        assert facts.get("fact", lambda: "never") == "first"
        time.sleep(0.25)  # expired: the call that needs it computes it, as before
        assert facts.get("fact", lambda: "second") == "second"


def test_a_refresh_begun_before_a_clear_stores_nothing():
    facts = Facts(ttl=60)

    def read_while_cleared():
        facts.clear()  # e.g. a test that changed the table
        return "read before"

    facts.get("fact", lambda: "first")
    facts._found["fact"] = (0.0, 0.0, "first", read_while_cleared)
    assert facts.refresh(within=60) == []
    assert facts.get("fact", lambda: "read after") == "read after"


def test_after_the_vocabulary_is_read_again_no_statement_is_compiled_again():
    # The statements were keyed by the vocabulary object's id: each minute's re-read compiled
    # them all again; now by what of it decides their SQL.
    filters = {"city": "Київ", "deal_type": "sale"}
    search.hybrid_search(query="квартира з балконом", filters=filters)
    search.fulltext_search(query="балкон", filters=filters)
    first = search.live_vocabulary()
    runtime._recent.refresh(within=math.inf)
    assert search.live_vocabulary() is not first  # read again
    assert search.live_vocabulary().statement_key == first.statement_key
    with mock.patch.object(compiled, "compile_statement", wraps=compiled.compile_statement) as spy:
        search.hybrid_search(query="квартира з балконом", filters=filters)
        search.fulltext_search(query="балкон", filters=filters)
    assert spy.call_count == 0


def test_the_servers_refresher_reads_the_facts_again_in_the_background():
    search.live_vocabulary()
    read_at = runtime._recent._found["vocabulary"][0]

    async def run_briefly():
        task = asyncio.create_task(app.keep_facts_fresh(interval=0.05))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with mock.patch.object(runtime, "FACTS_REFRESH_LEAD_SEC", math.inf):
        asyncio.run(run_briefly())
    assert runtime._recent._found["vocabulary"][0] > read_at
