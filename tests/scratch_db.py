"""Scratch databases on the embedded test server, shaped unlike the project's own.

Rows are copied from the shared test database (read there, written here through COPY); the
shared database itself is never written. Each scratch database is dropped and rebuilt by the
test that asks for it.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings

from demo import embedded as embedded_db
from demo import schema

HUGE = 20_000
# rooms_count of the rows with huge texts, so that a filter finds exactly them.
HUGE_ROOMS = 77
ALT_CONFIG = "uk_alt"


def embedded_server() -> embedded_db.EmbeddedServer:
    return embedded_db.configured_server()


def url_of(server: embedded_db.EmbeddedServer, name: str) -> str:
    return f"postgres://postgres@{quote(server.socket_dir, safe='')}/{name}"


def make_scratch_database(
    name: str,
    *,
    rows: int = 300,
    ukrainian: bool = True,
    hnsw: bool = True,
    zero_vectors: int = 0,
    huge_texts: int = 0,
    alt_config: bool = False,
    prefer_indexes: bool = False,
) -> tuple[str, dict[str, list[int]]]:
    """A database with `rows` listings copied from the test database; returns its URL and the
    ids given zero vectors ("zero") and huge texts ("huge").

    Without `ukrainian` there is no such text search configuration and search_vector is
    built with `simple`; `alt_config` adds a hunspell configuration built another way (an
    ispell dictionary named ukrainian_huns, then simple) named uk_alt; `prefer_indexes` turns
    off sequential scans for the database, so that on a few hundred rows the planner takes
    the HNSW index as it would on a large table.
    """
    server = embedded_server()
    source = settings.DATABASES["listings"]["NAME"]
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
        if prefer_indexes:
            admin.execute(f'ALTER DATABASE "{name}" SET enable_seqscan = off')
    with server.connect(name) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        if ukrainian:
            schema.create_fts_config(conn, "ukrainian", with_hunspell=True)
        if alt_config:
            conn.execute(
                "CREATE TEXT SEARCH DICTIONARY ukrainian_huns "
                "(TEMPLATE = ispell, DictFile = uk_ua, AffFile = uk_ua)"
            )
            conn.execute(f"CREATE TEXT SEARCH CONFIGURATION {ALT_CONFIG} (COPY = simple)")
            conn.execute(
                f"ALTER TEXT SEARCH CONFIGURATION {ALT_CONFIG} "
                "ALTER MAPPING FOR word, hword, hword_part WITH ukrainian_huns, simple"
            )
        schema.create_tables(conn, fts_config="ukrainian" if ukrainian else "simple")
        with server.connect(source) as src:
            columns = ", ".join(
                row[0]
                for row in src.execute(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_name = 'property_listings' AND is_generated = 'NEVER' "
                    "ORDER BY ordinal_position"
                )
            )
            _copy(src, conn, "property_types", "*", "id, slug, name, description", None)
            _copy(src, conn, "property_listings", columns, columns, rows)
        ids = [row[0] for row in conn.execute("SELECT id FROM property_listings ORDER BY id")]
        picked = {"zero": ids[:zero_vectors], "huge": ids[-huge_texts:] if huge_texts else []}
        if picked["zero"]:
            conn.execute(
                "UPDATE property_listings SET embedding = array_fill(0, ARRAY[%s])::vector "
                "WHERE id = ANY(%s)",
                [settings.EMBEDDING_DIM, picked["zero"]],
            )
        if picked["huge"]:
            # Columns that no generated search_vector reads can be as wide as a scraper's.
            conn.execute(
                "ALTER TABLE property_listings ALTER COLUMN city TYPE text, "
                "ALTER COLUMN metro_station TYPE text, ALTER COLUMN currency TYPE text, "
                "ALTER COLUMN deal_type TYPE text"
            )
            # Emoji, quotes, backslashes and control characters: the costliest JSON there is.
            conn.execute(
                "UPDATE property_listings SET rooms_count = %(rooms)s, "
                "title = left('квартира ' || repeat(%(costly)s, %(n)s), 500), "
                "description = 'квартира ' || repeat('опис 😀 ', %(n)s), "
                "city = repeat(%(costly)s, %(n)s), district = left(repeat('😀', %(n)s), 128), "
                "metro_station = repeat('метро', %(n)s), address_raw = repeat('вул.', %(n)s), "
                "url_source = 'https://example.com/' || repeat('шлях/', %(n)s), "
                "currency = repeat(%(costly)s, %(n)s), deal_type = repeat('sale', %(n)s) "
                "WHERE id = ANY(%(ids)s)",
                {"n": HUGE, "ids": picked["huge"], "costly": '😀"\\\x07', "rooms": HUGE_ROOMS},
            )
        schema.create_indexes(conn)
        if not hnsw:
            conn.execute("DROP INDEX ix_property_listings_embedding_hnsw")
    return url_of(server, name), picked


def _copy(src, dst, table: str, read: str, write: str, limit: int | None) -> None:
    query = f"SELECT {read} FROM {table} ORDER BY id" + (f" LIMIT {limit}" if limit else "")
    with (
        src.cursor().copy(f"COPY ({query}) TO STDOUT") as out,
        dst.cursor().copy(f"COPY {table} ({write}) FROM STDIN") as into,
    ):
        for data in out:
            into.write(data)
