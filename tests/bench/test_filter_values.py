"""bench_filter_values on the test database: a row of figures per search mode."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.usefixtures("listings_access")


def test_bench_filter_values_prints_each_mode_with_three_figures():
    printed = StringIO()
    call_command("bench_filter_values", "--calls", "3", stdout=printed)
    rows = {line.split()[0]: line.split()[1:] for line in printed.getvalue().splitlines()[2:]}
    assert set(rows) == {"semantic", "fulltext", "filter", "hybrid", "stats", "trends"}
    for mode, figures in rows.items():
        assert len(figures) == 3, mode
        assert all(float(figure) > 0 for figure in figures), (mode, figures)
