"""bench_idle on the test database (its own server): a line per round, and the medians."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def test_bench_idle_prints_each_round_and_the_medians(listings_db):
    printed = StringIO()
    call_command("bench_idle", "--rounds", "2", "--gap", "0", stdout=printed)
    lines = printed.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["round 1", "round 2", "p50"]
    times = [float(part.split()[-2]) for line in lines for part in line.split(", ")]
    assert len(times) == 6 and all(ms > 0 for ms in times)


def test_bench_idle_refuses_no_rounds():
    with pytest.raises(CommandError):
        call_command("bench_idle", "--rounds", "0")
