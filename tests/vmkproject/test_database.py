"""The listings alias: a real embedded PostgreSQL, the mirror schema, read-only everywhere."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import DatabaseError, connections
from django.db.utils import InternalError

from listings.models import PropertyListing, PropertyType
from vmkproject import db
from vmkproject.routers import ListingsWriteRefused

# Model field type → the PostgreSQL types it may be mirrored by.
COMPATIBLE = {
    "BigIntegerField": {"bigint"},
    "IntegerField": {"integer", "bigint", "smallint"},
    "ForeignKey": {"integer", "bigint"},
    "CharField": {"character varying", "text"},
    "TextField": {"text", "character varying"},
    "DecimalField": {"numeric", "double precision", "real"},
    "DateTimeField": {"timestamp with time zone", "timestamp without time zone"},
    "VectorField": {"USER-DEFINED"},
    "SearchVectorField": {"tsvector"},
}


def table_columns(cursor, table: str) -> dict[str, str]:
    cursor.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s",
        [table],
    )
    return dict(cursor.fetchall())


@pytest.mark.parametrize("model", [PropertyListing, PropertyType])
def test_every_model_field_exists_in_the_table_with_a_compatible_type(model, listings_cursor):
    columns = table_columns(listings_cursor, model._meta.db_table)
    assert columns, f"{model._meta.db_table} is missing"
    for field in model._meta.concrete_fields:
        assert field.column in columns, field.column
        assert columns[field.column] in COMPATIBLE[field.get_internal_type()], field.column


def test_the_embedding_column_is_vector_768(listings_cursor):
    listings_cursor.execute(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'property_listings'::regclass AND attname = 'embedding'"
    )
    assert listings_cursor.fetchone()[0] == "vector(768)"


def test_the_four_named_indexes_exist(listings_cursor):
    listings_cursor.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'property_listings'"
    )
    indexes = dict(listings_cursor.fetchall())
    assert "hnsw" in indexes["ix_property_listings_embedding_hnsw"]
    assert "vector_cosine_ops" in indexes["ix_property_listings_embedding_hnsw"]
    assert "gin" in indexes["ix_property_listings_search_vector_gin"]
    assert "(city)" in indexes["ix_property_listings_city"]
    assert "(price)" in indexes["ix_property_listings_price"]


def test_sessions_are_read_only_with_a_statement_timeout(listings_cursor):
    listings_cursor.execute("SHOW default_transaction_read_only")
    assert listings_cursor.fetchone()[0] == "on"
    listings_cursor.execute("SHOW statement_timeout")
    assert listings_cursor.fetchone()[0] in {"10s", "10000ms"}


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO property_types (id, slug, name) VALUES (999, 'x', 'x')",
        "UPDATE property_listings SET price = 1 WHERE id = 1",
        "DELETE FROM property_listings WHERE id = 1",
        "CREATE TABLE intruder (id int)",
        "DROP TABLE property_listings",
        "TRUNCATE property_listings",
    ],
)
def test_raw_writes_fail_in_the_database(listings_db, django_db_blocker, statement):
    with django_db_blocker.unblock():
        before = _checksum(listings_db)
        with pytest.raises(DatabaseError) as excinfo, listings_db.cursor() as cursor:
            cursor.execute(statement)
        assert "read-only" in str(excinfo.value) or isinstance(excinfo.value, InternalError)
        assert _checksum(listings_db) == before


def test_turning_read_only_off_is_refused_by_the_role(listings_db, django_db_blocker):
    with django_db_blocker.unblock(), listings_db.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = off")
        try:
            with pytest.raises(DatabaseError):
                cursor.execute("DELETE FROM property_listings WHERE id = 1")
        finally:
            cursor.execute("SET default_transaction_read_only = on")


def test_orm_writes_are_refused_before_reaching_the_database(listings_db, django_db_blocker):
    with django_db_blocker.unblock():
        listing = PropertyListing.objects.order_by("id").first()
        assert listing is not None
        listing.price = 1
        with pytest.raises(ListingsWriteRefused):
            listing.save()
        with pytest.raises(ListingsWriteRefused):
            PropertyType.objects.create(id=999, slug="x", name="x")
        with pytest.raises((ListingsWriteRefused, DatabaseError)):
            PropertyListing.objects.filter(id=listing.id).update(price=1)
        with pytest.raises((ListingsWriteRefused, DatabaseError)):
            PropertyListing.objects.filter(id=listing.id).delete()


def test_no_migrations_touch_the_listings_database():
    from django.db import router

    assert router.allow_migrate("listings", "auth") is False
    assert router.allow_migrate("default", "listings") is False
    assert router.allow_migrate("default", "auth") is True


def test_ukrainian_morphology_matches_inflected_forms(listings_cursor):
    listings_cursor.execute(
        "SELECT to_tsvector('ukrainian', 'Продається квартира з великим балконом') "
        "@@ plainto_tsquery('ukrainian', 'квартири з балконом')"
    )
    assert listings_cursor.fetchone()[0] is True
    listings_cursor.execute("SELECT plainto_tsquery('ukrainian', 'квартири в новобудові')")
    assert listings_cursor.fetchone()[0] == "'квартира' & 'новобудова'"


def test_search_vector_is_kept_by_the_database_from_the_text(listings_cursor):
    listings_cursor.execute(
        "SELECT count(*) FROM property_listings "
        "WHERE search_vector @@ plainto_tsquery('ukrainian', 'балконом')"
    )
    with_balcony = listings_cursor.fetchone()[0]
    listings_cursor.execute(
        "SELECT count(*) FROM property_listings WHERE description ILIKE '%балкон%'"
    )
    assert with_balcony > 0 and with_balcony >= listings_cursor.fetchone()[0] * 0.9


def test_out_of_enum_values_load_and_display(listings_db, django_db_blocker):
    from listings.models import BuildingType

    with django_db_blocker.unblock():
        odd = (
            PropertyListing.objects.exclude(building_type__in=BuildingType.values)
            .exclude(building_type__isnull=True)
            .first()
        )
    assert odd is not None
    assert odd.get_building_type_display() == odd.building_type


def test_listings_count_is_the_demo_size(listings_cursor, settings):
    listings_cursor.execute("SELECT count(*) FROM property_listings")
    assert listings_cursor.fetchone()[0] == settings.DEMO_LISTINGS_COUNT


def _checksum(connection) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT md5(string_agg(md5(t::text), '' ORDER BY id)) FROM property_listings t"
        )
        return cursor.fetchone()[0]


def test_connections_are_reused_from_a_pool(listings_db, django_db_blocker):
    with django_db_blocker.unblock():
        pids = set()
        for _ in range(5):
            with listings_db.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pids.add(cursor.fetchone()[0])
            listings_db.close()
    assert listings_db.pool is not None
    assert len(pids) <= listings_db.pool.max_size


def test_the_pool_lends_a_live_connection_without_a_round_trip_and_a_closed_one_never(
    listings_db, django_db_blocker
):
    """check_pooled: a connection lent again at once is checked on its socket, one idle for
    longer by an empty query, and one whose backend the server ended is refused."""
    with django_db_blocker.unblock():
        pool = listings_db.pool
        assert pool._check is db.check_pooled  # the backend swapped it in
        conn = pool.getconn()  # the pool has just checked it
        try:
            sent: list[str] = []
            execute = conn.execute
            conn.execute = lambda query, *args, **kwargs: (
                sent.append(query),
                execute(query, *args, **kwargs),
            )[1]
            db.check_pooled(conn)
            assert sent == []
            conn._vmk_lent_at -= db.QUIET_CHECK_WITHIN_SEC + 1
            db.check_pooled(conn)
            assert sent == [""]
            with listings_db.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [conn.info.backend_pid])
                assert cursor.fetchone()[0] is True
            listings_db.close()
            deadline = time.monotonic() + 5
            while not db._readable(conn.fileno()) and time.monotonic() < deadline:
                time.sleep(0.05)
            with pytest.raises(psycopg.OperationalError):
                db.check_pooled(conn)  # lent at once, but the server's farewell is waiting
        finally:
            pool.putconn(conn)  # a broken connection is discarded, not pooled again


def test_embedded_server_is_reused_across_starts(listings_db):
    from pathlib import Path

    from django.conf import settings

    from demo import embedded as embedded_db

    data_dir = Path(settings.DATABASES["listings"]["EMBEDDED"]["DATA_DIR"])
    first = embedded_db.configured_server()
    second = embedded_db.configured_server()
    assert first == second
    assert (data_dir / "PG_VERSION").exists()


def test_the_embedded_server_runs_with_the_configured_shared_buffers(listings_cursor, settings):
    # Set at initdb time on a fresh machine (the server restarts once), kept in the data dir.
    listings_cursor.execute("SHOW shared_buffers")
    assert listings_cursor.fetchone()[0] == settings.EMBEDDED_DB_SHARED_BUFFERS


def test_the_listings_alias_is_not_writable_even_for_meta(listings_cursor):
    with pytest.raises(DatabaseError):
        listings_cursor.execute("INSERT INTO vmk_meta VALUES ('x', 'y')")
    connections["listings"].close()
