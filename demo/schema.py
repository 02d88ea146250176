"""The mirror schema for the project's own databases (embedded demo, tests, benchmarks).

A real vmk_data database belongs to data_collector; nothing here ever runs against it.
Every function takes a writable psycopg connection in autocommit mode.
"""

from __future__ import annotations

import logging
import re
import shutil
from importlib import resources
from pathlib import Path

import psycopg
from psycopg import sql

from listings.advise import market_index_sql

logger = logging.getLogger("vmk.schema")

SCHEMA_VERSION = "1"
CREATED_BY = "vmk-data-mcp"
READER_ROLE = "vmk_reader"
HUNSPELL_DIR = Path("/usr/share/hunspell")
HUNSPELL_FILES = {"uk_UA.dic": "uk_ua.dict", "uk_UA.aff": "uk_ua.affix"}
STOPWORDS_FILE = "ukrainian.stop"
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

DICTIONARY_MISSING = (
    "The hunspell Ukrainian dictionary (Debian package hunspell-uk) is not installed: "
    "the '{config}' text search configuration falls back to 'simple', without morphology."
)


def _sql_text(name: str) -> str:
    return resources.files("demo").joinpath("sql", name).read_text(encoding="utf-8")


def checked_identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a valid SQL identifier: {name!r}")
    return name


def install_dictionary_files(tsearch_dir: Path) -> bool:
    """Copy the hunspell Ukrainian files where this PostgreSQL reads dictionaries.

    Returns False when the dictionary is not installed on this machine.
    """
    stop_target = tsearch_dir / STOPWORDS_FILE
    if not stop_target.exists():
        stop_target.write_text(_sql_text(STOPWORDS_FILE), encoding="utf-8")
    if not all((HUNSPELL_DIR / src).exists() for src in HUNSPELL_FILES):
        return False
    for src, dst in HUNSPELL_FILES.items():
        target = tsearch_dir / dst
        if not target.exists() or target.stat().st_size != (HUNSPELL_DIR / src).stat().st_size:
            shutil.copyfile(HUNSPELL_DIR / src, target)
    return True


def create_fts_config(conn: psycopg.Connection, name: str, *, with_hunspell: bool) -> str:
    """Create the text search configuration `name`; returns the dictionary it uses."""
    config = sql.Identifier(checked_identifier(name))
    exists = conn.execute("SELECT 1 FROM pg_ts_config WHERE cfgname = %s", [name]).fetchone()
    if exists:
        row = conn.execute(
            "SELECT 1 FROM pg_ts_dict WHERE dictname = %s", [f"{name}_hunspell"]
        ).fetchone()
        return "hunspell" if row else "simple"
    conn.execute(sql.SQL("CREATE TEXT SEARCH CONFIGURATION {} (COPY = simple)").format(config))
    if not with_hunspell:
        logger.warning(DICTIONARY_MISSING.format(config=name))
        return "simple"
    dictionary = sql.Identifier(f"{name}_hunspell")
    conn.execute(
        sql.SQL(
            "CREATE TEXT SEARCH DICTIONARY {} "
            "(TEMPLATE = ispell, DictFile = uk_ua, AffFile = uk_ua, StopWords = ukrainian)"
        ).format(dictionary)
    )
    # Unknown words (names, numbers in words) still match literally through `simple`.
    conn.execute(
        sql.SQL(
            "ALTER TEXT SEARCH CONFIGURATION {} "
            "ALTER MAPPING FOR word, hword, hword_part WITH {}, simple"
        ).format(config, dictionary)
    )
    return "hunspell"


def create_tables(conn: psycopg.Connection, *, fts_config: str) -> None:
    conn.execute(_sql_text("schema.sql").replace("{fts_config}", checked_identifier(fts_config)))


def create_indexes(conn: psycopg.Connection) -> None:
    conn.execute(_sql_text("indexes.sql"))
    create_market_index(conn)
    vacuum(conn)


def vacuum(conn: psycopg.Connection) -> None:
    """VACUUM (ANALYZE) the listings after a bulk load or fill, as a loader should: until a
    vacuum marks the pages all-visible, an index-only scan of the market index visits the
    table for every row and the planner prices it so (the stats then read a city index and
    the table instead), and autovacuum comes only a minute or more later. Its own statement:
    VACUUM cannot run inside a transaction block, nor in a string of several statements."""
    conn.execute("VACUUM (ANALYZE) property_listings")


def vacuum_if_never(conn: psycopg.Connection) -> bool:
    """VACUUM a database built before the loader vacuumed (its visibility map still empty):
    an embedded server that starts and stops with each command gives autovacuum no time to
    (a 100 000-listing database was still unvacuumed hours after its build, its stats SQL
    2.9x slower). True when it ran."""
    row = conn.execute(
        "SELECT relpages > 0 AND relallvisible = 0 FROM pg_class "
        "WHERE oid = to_regclass('public.property_listings')"
    ).fetchone()
    if not row or not row[0]:
        return False
    vacuum(conn)
    return True


MARKET_INDEX_SKIPPED = (
    "%s not built: a city or district value is too long for a btree index row; market "
    "queries still work, reading every listing of a city."
)


def create_market_index(conn: psycopg.Connection) -> bool:
    """The covering index of listings.market; a table whose texts are too long for a btree
    row (kilobytes in `district`) keeps working without it."""
    try:
        with conn.transaction():
            # The DDL lives with the code that reads the index (and advises it to the owners).
            conn.execute(market_index_sql())
    except psycopg.errors.ProgramLimitExceeded:
        logger.warning(MARKET_INDEX_SKIPPED, MARKET_INDEX)
        return False
    return True


MARKET_INDEX = "ix_property_listings_market"


def add_missing_indexes(conn: psycopg.Connection) -> bool:
    """Build indexes a newer version added (e.g. MARKET_INDEX) in a database we created."""
    found = conn.execute("SELECT to_regclass(%s)", [f"public.{MARKET_INDEX}"]).fetchone()
    if found and found[0] is not None:
        return False
    create_market_index(conn)
    return True


def create_reader_role(conn: psycopg.Connection, dbname: str) -> None:
    """A login role that can only read: the listings alias connects as it."""
    role = sql.Identifier(READER_ROLE)
    if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [READER_ROLE]).fetchone():
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
    conn.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(role))
    conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(dbname), role))
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(role))


def write_meta(conn: psycopg.Connection, **values: str) -> None:
    for key, value in values.items():
        conn.execute(
            "INSERT INTO vmk_meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [key, value],
        )


def read_meta(conn: psycopg.Connection) -> dict[str, str]:
    """The project's bookkeeping in a database it created; {} in any other database."""
    exists = conn.execute("SELECT to_regclass('public.vmk_meta')").fetchone()
    if not exists or exists[0] is None:
        return {}
    return {key: value for key, value in conn.execute("SELECT key, value FROM vmk_meta")}


def create_schema(conn: psycopg.Connection, *, fts_config: str, tsearch_dir: Path | None) -> str:
    """Everything but the data and the indexes. Returns the FTS dictionary in use."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    with_hunspell = tsearch_dir is not None and install_dictionary_files(tsearch_dir)
    dictionary = create_fts_config(conn, fts_config, with_hunspell=with_hunspell)
    create_tables(conn, fts_config=fts_config)
    write_meta(
        conn,
        created_by=CREATED_BY,
        schema_version=SCHEMA_VERSION,
        fts_config=fts_config,
        fts_dictionary=dictionary,
    )
    return dictionary
