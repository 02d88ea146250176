from __future__ import annotations

import pytest
from django.db import connections

# The suite runs on pytest-xdist workers (`make test`: -n 2 --dist loadgroup). Each file runs
# whole on one worker, so its module fixtures (servers, scratch databases) are made once; the
# files below also share one worker with each other, because they build the same databases
# (the foreign variants) or create and drop scratch databases and roles on the shared server.
SHARED_WORKER = {
    "tests/foreign/": "foreign",
    "tests/mcpserver/test_foreign_core.py": "scratch-databases",
    "tests/mcpserver/test_check_listings_db.py": "scratch-databases",
    "tests/listings/test_capabilities.py": "scratch-databases",
    "tests/listings/test_vocabulary.py": "scratch-databases",
    "tests/listings/test_commands.py": "scratch-databases",
    "tests/vmkproject/test_pgbouncer.py": "fleet",
    "tests/vmkproject/test_replicas.py": "fleet",
    "tests/vmkproject/test_balancer.py": "fleet",
}


def worker_group(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return next((group for prefix, group in SHARED_WORKER.items() if path.startswith(prefix)), path)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into the node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(worker_group(item.nodeid)))


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
