"""bench_empty_pages on the test database: a row of figures per case, each page empty."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.usefixtures("listings_access")


def test_bench_empty_pages_prints_each_case_with_its_counts():
    printed = StringIO()
    call_command("bench_empty_pages", "--calls", "2", stdout=printed)
    rows = {line.split()[0]: line.split()[1:] for line in printed.getvalue().splitlines()[2:]}
    assert set(rows) == {"fulltext-sale", "fulltext-city", "semantic", "hybrid"}
    for case, (statements, in_sql, above, counts) in rows.items():
        assert int(statements) >= 2 and float(in_sql) > 0 and float(above) > 0, case
        assert int(counts) >= 2, case  # the page was empty and says what to drop
