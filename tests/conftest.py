from __future__ import annotations

import pytest
from django.db import connections


@pytest.fixture(scope="session")
def listings_db(django_db_blocker):
    """The embedded test database with its synthetic listings (built once, then reused)."""
    with django_db_blocker.unblock():
        connection = connections["listings"]
        connection.ensure_connection()
        yield connection


@pytest.fixture
def listings_cursor(listings_db, django_db_blocker):
    with django_db_blocker.unblock(), listings_db.cursor() as cursor:
        yield cursor


@pytest.fixture
def listings_access(listings_db, django_db_blocker):
    """ORM access to the listings alias inside a test (read-only: no transaction needed)."""
    with django_db_blocker.unblock():
        yield
