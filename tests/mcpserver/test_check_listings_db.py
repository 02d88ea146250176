"""check_listings_db runs every tool, resource and admin page against the target database
and tells the truth: other column types pass, an embedder that is down fails with the tools'
message, a superuser role and NULL statuses are warned about."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from bench.localserver import free_port
from demo import embedded as embedded_db
from demo import schema
from listings.embedders import OllamaEmbedder, QueryEmbedder
from listings.errors import EmbeddingUnavailable
from tests.conftest import CHECKSUM_SQL

ROOT = Path(__file__).resolve().parents[2]
FOREIGN = "ops_foreign_types"
BROKEN = "ops_broken_types"
COPIED_ROWS = 300
# The columns data_collector may type otherwise, and how they are here.
FOREIGN_TYPES = {
    "id": "integer",
    "property_type_id": "smallint",
    "price": "double precision",
    "total_area": "real",
    "living_area": "double precision",
    "publish_date": "timestamp without time zone",
    "archived_at": "date",
    "created_at": "timestamp without time zone",
    "title": "text",
    "city": "character varying(300)",
}
INTERFACE_LINES = (
    "tool search_similar_listings:",
    "tool search_similar_listings (price filter):",
    "tool search_by_metadata:",
    "tool search_by_metadata (filters, price order):",
    "tool search_by_metadata (newest first):",
    "tool hybrid_search:",
    "tool find_similar_to_listing:",
    "tool get_listing_by_id:",
    "tool listing_stats (by city, UAH):",
    "tool describe_schema:",
    "resource listing://{id}:",
    "resource stats://database:",
    "resource schema://property_listings:",
    "admin changelist:",
    "admin changelist by price:",
    "admin changelist by date:",
    "admin changelist filter status:",
    "admin changelist filter city:",
    "admin changelist search:",
    "admin semantic page:",
    "admin hybrid page:",
)


@pytest.fixture(scope="module")
def server(listings_db):
    return embedded_db.configured_server()


def url_of(server, name: str, user: str = "postgres") -> str:
    return f"postgres://{user}@{quote(server.socket_dir, safe='')}/{name}"


def copy_listings(server, name: str, types: dict[str, str]) -> None:
    """A new database with our schema, `types` put on its columns, and the first rows of the
    test database copied in (through text, as a dump would)."""
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    with server.connect(name) as conn:
        schema.create_schema(conn, fts_config="ukrainian", tsearch_dir=embedded_db.tsearch_dir())
        # A plain column there (data_collector fills it), copied like the others.
        conn.execute("ALTER TABLE property_listings ALTER COLUMN search_vector DROP EXPRESSION")
        for column, kind in types.items():
            conn.execute(
                f"ALTER TABLE property_listings ALTER COLUMN {column} TYPE {kind} "
                f"USING {column}::{kind}"
            )
        with server.connect(settings.EMBEDDED_DB_NAME) as source:
            for table, query in (
                ("property_types", "SELECT * FROM property_types"),
                (
                    "property_listings",
                    f"SELECT * FROM property_listings ORDER BY id LIMIT {COPIED_ROWS}",
                ),
            ):
                columns = [
                    row[0]
                    for row in source.execute(
                        "SELECT column_name FROM information_schema.columns "
                        "WHERE table_name = %s ORDER BY ordinal_position",
                        [table],
                    )
                ]
                names = ", ".join(columns)
                with (
                    source.cursor().copy(f"COPY ({query}) TO STDOUT") as out,
                    conn.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as into,
                ):
                    for block in out:
                        into.write(block)
        schema.create_indexes(conn)
        conn.execute("ANALYZE property_listings")


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """manage.py as an operator runs it: a migrated default database of its own."""
    default = tmp_path / "default.sqlite3"
    base = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": f"sqlite:///{default}",
        "LOG_LEVEL": "WARNING",
        # A new connection loads the hunspell dictionary: seconds on a busy machine.
        "DB_POOL_TIMEOUT_SEC": "60",
        **env,
    }
    if not default.exists():
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=base,
            check=True,
        )
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=base,
    )


def assert_every_interface_ok(output: str) -> None:
    for line in INTERFACE_LINES:
        assert f"[ok  ] {line}" in output, line
    assert "[FAIL]" not in output
    assert "Traceback" not in output


def test_the_embedded_database_passes_with_every_tool_resource_and_page(tmp_path):
    result = manage(tmp_path, "check_listings_db")
    assert result.returncode == 0, result.stdout + result.stderr
    assert_every_interface_ok(result.stdout + result.stderr)
    assert "[ok  ] superuser: the role is not a superuser" in result.stdout
    assert "have a search_vector (full-text search)" in result.stdout
    assert "[ok  ] listing_status NULL: 0 of" in result.stdout
    assert "[ok  ] embedder probe: offline:" in result.stdout
    users = sqlite3.connect(tmp_path / "default.sqlite3").execute("SELECT count(*) FROM auth_user")
    assert users.fetchone()[0] == 0  # the temporary superuser is gone


def test_other_column_types_pass_and_nothing_is_written(server, tmp_path):
    copy_listings(server, FOREIGN, FOREIGN_TYPES)
    with server.connect(FOREIGN) as conn:
        conn.execute(
            "UPDATE property_listings SET listing_status = NULL WHERE id IN "
            "(SELECT id FROM property_listings ORDER BY id LIMIT 30)"
        )
        before = conn.execute(CHECKSUM_SQL).fetchone()[0]
        kinds = dict(
            conn.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = 'property_listings'"
            ).fetchall()
        )
    assert kinds["publish_date"] == "timestamp without time zone"
    assert kinds["archived_at"] == "date" and kinds["price"] == "double precision"
    result = manage(tmp_path, "check_listings_db", LISTINGS_DATABASE_URL=url_of(server, FOREIGN))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert_every_interface_ok(output)
    assert "[ok  ] table property_listings: 41 columns as expected" in output
    assert "[WARN] superuser: the role is a superuser" in output
    assert "[WARN] listing_status NULL: 30 of 300 listings (10.0%) have no listing_status" in output
    with server.connect(FOREIGN) as conn:
        assert conn.execute(CHECKSUM_SQL).fetchone()[0] == before


def test_a_column_the_code_cannot_use_fails_naming_it_without_internals(server, tmp_path):
    copy_listings(server, BROKEN, {"price": "text", "publish_date": "text"})
    result = manage(tmp_path, "check_listings_db", LISTINGS_DATABASE_URL=url_of(server, BROKEN))
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "[FAIL] table property_listings: price is text; publish_date is text" in output
    failed = [line for line in result.stdout.splitlines() if line.startswith("[FAIL] tool")]
    assert failed, result.stdout
    assert all("failed (" in line or "internal_error" in line for line in failed), failed
    assert "Traceback" not in output
    assert "FROM property_listings" not in output
    assert server.socket_dir not in output


def test_an_embedder_that_is_down_fails_with_the_tools_message(tmp_path):
    host = f"http://127.0.0.1:{free_port()}"
    # What a search tool gets from the same embedder: the query goes through embed_query.
    tools_embedder = QueryEmbedder(
        OllamaEmbedder(host=host, model="nomic-embed-text", dimension=768, timeout=2)
    )
    with pytest.raises(EmbeddingUnavailable) as raised:
        tools_embedder.embed_query("квартира")
    result = manage(
        tmp_path,
        "check_listings_db",
        "--catalog-only",
        EMBEDDER="ollama",
        OLLAMA_HOST=host,
        OLLAMA_TIMEOUT_SEC="2",
    )
    assert result.returncode == 1
    assert f"[FAIL] embedder probe: {raised.value.message}" in result.stdout
    assert "embedder probe" in result.stderr  # named in the failure summary
