"""bench_idle on the test database (its own server): a line per round, and the medians."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.management.commands.bench_idle import round_queries, warm_queries


def test_bench_idle_prints_each_round_and_the_medians(listings_db):
    printed = StringIO()
    call_command("bench_idle", "--rounds", "2", "--gap", "0", "--warm", "3", stdout=printed)
    lines = printed.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["warmed", "round 1", "round 2", "p50"]
    assert lines[0].startswith("warmed: 3 calls in ")
    times = [float(part.split()[-2]) for line in lines[1:] for part in line.split(", ")]
    assert len(times) == 9 and all(ms > 0 for ms in times)


def test_each_round_has_two_queries_no_other_call_sends():
    rounds = [query for number in range(5) for query in round_queries(number)]
    warm = warm_queries(200)
    assert len(set(rounds)) == len(rounds) == 10
    assert len(set(warm)) == len(warm) == 200
    assert not set(rounds) & set(warm)


def test_bench_idle_refuses_no_rounds():
    with pytest.raises(CommandError):
        call_command("bench_idle", "--rounds", "0")
