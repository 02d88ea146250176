"""Which text search configuration a database has: the backend warms it at connect and
listings.capabilities reports on it."""

from __future__ import annotations

from typing import Any

# Where the configured one is missing, searches use PostgreSQL's built-in 'simple'.
FALLBACK_FTS_CONFIG = "simple"

CONFIG_SQL = (
    "SELECT c.oid::regconfig::text FROM pg_ts_config c "
    "JOIN pg_namespace n ON n.oid = c.cfgnamespace WHERE c.cfgname = %(name)s AND "
    "CASE WHEN %(schema)s::text IS NULL THEN pg_ts_config_is_visible(c.oid) "
    "ELSE n.nspname = %(schema)s END"
)


def resolve_config(cursor: Any, name: str) -> str | None:
    """The text search configuration `name` as regconfig text, or None when it is absent."""
    schema, _, bare = name.rpartition(".")
    cursor.execute(CONFIG_SQL, {"name": bare, "schema": schema or None})
    row = cursor.fetchone()
    return str(row[0]) if row else None
