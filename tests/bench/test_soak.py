"""A short soak in CI (the 32-client, 5-minute run is `manage.py soak` by hand)."""

from __future__ import annotations

import json
from io import StringIO

from django.conf import settings
from django.core.management import call_command


def test_eight_clients_for_eight_seconds_make_no_errors_and_leak_nothing(listings_db):
    out = StringIO()
    call_command("soak", "--clients", "8", "--seconds", "8", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["calls"] > 40
    assert report["unexpected_errors"] == 0, report["error_kinds"]
    # The pool bounds the server's database connections; memory does not run away.
    assert 0 < report["db_connections_end"] <= settings.DB_POOL_MAX
    assert report["server_rss_mb_end"] - report["server_rss_mb_start"] < 100
