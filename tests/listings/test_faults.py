"""Timeouts and an unreachable database become typed errors with nothing internal in them."""

from __future__ import annotations

import copy

import pytest
from django.db import connections, transaction
from django.db.utils import ConnectionHandler

from listings import search
from listings.errors import DatabaseUnavailable, QueryTimeout

pytestmark = pytest.mark.usefixtures("listings_access")


def test_statement_timeout_is_a_query_timeout_and_the_connection_stays_usable():
    with (
        pytest.raises(QueryTimeout) as excinfo,
        search._database(),
        transaction.atomic(using="listings"),
        connections["listings"].cursor() as cursor,
    ):
        cursor.execute("SET LOCAL statement_timeout = 50")
        cursor.execute("SELECT pg_sleep(2)")
    assert excinfo.value.code == "query_timeout"
    assert excinfo.value.message == search.QUERY_TIMED_OUT.format(seconds=10.0)
    assert "pg_sleep" not in excinfo.value.message
    # the same connection answers the next search
    assert search.fulltext_search(query="квартира", limit=1).total > 0


def test_an_unreachable_database_is_database_unavailable(tmp_path):
    settings_dict = copy.deepcopy(connections["listings"].settings_dict)
    settings_dict.pop("EMBEDDED", None)
    settings_dict["HOST"] = str(tmp_path)  # no server listens there
    settings_dict["OPTIONS"] = {**settings_dict["OPTIONS"], "pool": False}
    handler = ConnectionHandler({"default": settings_dict, "listings": settings_dict})
    connection = handler["listings"]
    with pytest.raises(DatabaseUnavailable) as excinfo, search._database():
        connection.ensure_connection()
    assert excinfo.value.message == search.DATABASE_DOWN
    assert str(tmp_path) not in excinfo.value.message
