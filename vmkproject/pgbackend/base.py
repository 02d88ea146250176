"""PostgreSQL backend for the read-only `listings` alias.

Adds three things to Django's backend: it names the caller in a comment on every statement
(vmkproject.sqlcomment), it starts the embedded demo server on first use when
the alias is embedded, and it warms every new pooled connection's text search dictionary
(the hunspell Ukrainian dictionary costs seconds to load per connection), so no request
pays for it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from django.conf import settings
from django.db.backends.postgresql import base

from vmkproject import db, sqlcomment

logger = logging.getLogger("vmk.db")

APPLICATION_NAME = "vmk-data-mcp"


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Outermost and permanent: every statement is commented (SQL_COMMENTS) and, with
        # tracing on, gets its span.
        self.execute_wrappers.append(sqlcomment.execute_wrapper(str(self.settings_dict["NAME"])))

    def get_connection_params(self) -> dict[str, Any]:
        embedded = self.settings_dict.get("EMBEDDED")
        if embedded:
            self.settings_dict["HOST"] = start_embedded(embedded, self.settings_dict["NAME"])
        params = super().get_connection_params()
        # Which process holds a connection shows in pg_stat_activity (and the soak test counts
        # its server's connections by it).
        params.setdefault("application_name", f"{APPLICATION_NAME}:{os.getpid()}")
        return params

    def _configure_connection(self, connection: Any) -> bool:
        commit = bool(super()._configure_connection(connection))  # type: ignore[misc]
        from listings.capabilities import FALLBACK_FTS_CONFIG, resolve_config

        # The configuration searches will use: FTS_CONFIG, or the fallback where the database
        # lacks it (listings.capabilities warns about that once per process, not here).
        config = FALLBACK_FTS_CONFIG
        try:
            with connection.cursor() as cursor:
                config = resolve_config(cursor, settings.FTS_CONFIG) or FALLBACK_FTS_CONFIG
                cursor.execute("SELECT to_tsvector(%s::regconfig, 'квартира')", [config])
        except Exception:  # noqa: BLE001 - a database that cannot is check_listings_db's
            logger.debug("text search configuration could not be warmed at connect")
            if not connection.autocommit:
                connection.rollback()
        if self.alias == "listings":
            self._plan_searches(connection, config)
        return commit

    @staticmethod
    def _plan_searches(connection: Any, config: str) -> None:
        """Plan a vector and a full-text search once: a new backend loads the table's, the
        indexes' and pgvector's catalog entries then (about 10 ms), not in an agent's call."""
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "EXPLAIN SELECT id FROM property_listings WHERE city = '' "
                    "AND search_vector @@ plainto_tsquery(%s::regconfig, 'квартира') "
                    "ORDER BY embedding <=> (SELECT embedding FROM property_listings LIMIT 1) "
                    "LIMIT 1",
                    [config],
                )
        except Exception:  # noqa: BLE001 - a database without the table is check_listings_db's
            logger.debug("listings searches could not be planned at connect")
            if not connection.autocommit:
                connection.rollback()


_ready: dict[tuple[str, str], str] = {}


def start_embedded(embedded: dict[str, Any], dbname: str) -> str:
    """Start the embedded server and make sure its database exists; returns the socket dir.

    Django asks for connection parameters at every connect (pooled ones too): after the
    first time in a process this is a dictionary lookup.
    """
    key = (str(embedded["DATA_DIR"]), dbname)
    if key in _ready and db.running_servers():
        return _ready[key]
    from pathlib import Path

    def load_demo(conn: Any, count: int, seed: int) -> None:
        # Imported only when the demo data must be made: it loads the embedding model.
        from listings.loading import load_synthetic_listings

        load_synthetic_listings(conn, count=count, seed=seed)

    server = db.start_server(Path(embedded["DATA_DIR"]), embedded.get("OPTIONS"))
    db.ensure_database(
        server,
        dbname=dbname,
        fts_config=settings.FTS_CONFIG,
        demo_count=int(embedded.get("DEMO_COUNT", 0)),
        demo_seed=int(embedded.get("DEMO_SEED", 42)),
        loader=load_demo,
    )
    _ready[key] = server.socket_dir
    return server.socket_dir
