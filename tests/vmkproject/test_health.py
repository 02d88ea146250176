"""/health is cheap: one measurement (database, replicas, embedder, checked at once) serves
the calls of HEALTH_CACHE_SEC; replicas are probed at once, not one after another."""

from __future__ import annotations

import asyncio
import threading

import pytest

from listings import embedders
from vmkproject import health, replicas

WAIT_SEC = 5.0


class Parts:
    """The expensive parts of a measurement, counted; the database part notes whether the
    embedder part was already under way (they run at once)."""

    def __init__(self) -> None:
        self.database = 0
        self.embedder = 0
        self.embedder_started = threading.Event()
        self.overlapped: list[bool] = []

    def database_state(self) -> dict:
        self.database += 1
        self.overlapped.append(self.embedder_started.wait(WAIT_SEC))
        return {"reachable": True}

    async def check_embedder(self, timeout: float) -> dict:
        self.embedder += 1
        self.embedder_started.set()
        await asyncio.sleep(0.05)
        return {"reachable": True}


@pytest.fixture
def parts(monkeypatch):
    found = Parts()
    monkeypatch.setattr(health, "_database_state", found.database_state)
    monkeypatch.setattr(embedders, "check_embedder", found.check_embedder)
    monkeypatch.setattr(
        replicas, "replica_set", lambda alias=None: replicas.ReplicaSet([], retry_sec=1)
    )
    health.forget()
    yield found
    health.forget()


def test_two_calls_share_one_measurement_and_its_parts_run_at_once(parts):
    async def calls() -> list[dict]:
        first = await health.check()
        second = await health.check()
        together = await asyncio.gather(*(health.check() for _ in range(5)))
        return [first, second, *together]

    reports = asyncio.run(calls())
    assert (parts.database, parts.embedder) == (1, 1)
    assert parts.overlapped == [True]  # the database part ran while the embedder's did
    assert all(report["status"] == "ok" for report in reports)
    assert {report["checked_in_ms"] for report in reports} == {reports[0]["checked_in_ms"]}
    assert all(0 <= report["age_sec"] <= health.HEALTH_CACHE_SEC for report in reports)
    assert "checked_at" not in reports[0]

    health.forget()  # past the cache: measured again
    again = asyncio.run(health.check())
    assert (parts.database, parts.embedder) == (2, 2)
    assert again["age_sec"] == 0.0


def test_concurrent_calls_on_a_cold_cache_measure_once(parts):
    async def calls() -> list[dict]:
        return await asyncio.gather(*(health.check() for _ in range(8)))

    reports = asyncio.run(calls())
    assert len(reports) == 8
    assert (parts.database, parts.embedder) == (1, 1)


def test_replicas_are_probed_at_once(monkeypatch):
    both = threading.Barrier(2, timeout=WAIT_SEC)  # broken unless two probes wait together
    seen: list[str] = []

    def probe(params: dict) -> dict:
        seen.append(params["host"])
        both.wait()
        return {"reachable": True, "standby": True}

    replica_set = replicas.ReplicaSet(
        [{"HOST": "replica-a", "NAME": "x"}, {"HOST": "replica-b", "NAME": "x"}], retry_sec=5
    )
    monkeypatch.setattr(replicas, "replica_set", lambda alias=None: replica_set)
    monkeypatch.setattr(replicas, "probe", probe)
    report = replicas.probe_all()
    assert sorted(seen) == ["replica-a", "replica-b"]
    assert [entry["name"] for entry in report] == ["replica-1", "replica-2"]
    assert all(entry["reachable"] and entry["standby"] for entry in report)
