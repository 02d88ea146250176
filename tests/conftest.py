from __future__ import annotations

import pytest
from django.db import connections

CHECKSUM_SQL = "SELECT md5(string_agg(md5(t::text), '' ORDER BY id)) FROM property_listings t"


def listings_checksum(connection) -> str:
    with connection.cursor() as cursor:
        cursor.execute(CHECKSUM_SQL)
        return cursor.fetchone()[0]


@pytest.fixture(scope="session")
def listings_db(django_db_blocker):
    """The embedded test database with its synthetic listings (built once, then reused).

    Its checksum is taken before the first test that uses it and compared after the last:
    nothing the suite does through tools, commands or the admin may change a row.
    """
    with django_db_blocker.unblock():
        connection = connections["listings"]
        connection.ensure_connection()
        before = listings_checksum(connection)
        yield connection
        assert listings_checksum(connection) == before, "the listings table changed"


@pytest.fixture
def listings_cursor(listings_db, django_db_blocker):
    with django_db_blocker.unblock(), listings_db.cursor() as cursor:
        yield cursor


@pytest.fixture
def listings_access(listings_db, django_db_blocker):
    """ORM access to the listings alias inside a test (read-only: no transaction needed)."""
    with django_db_blocker.unblock():
        yield
