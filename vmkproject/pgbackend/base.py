"""PostgreSQL backend for the read-only `listings` alias.

Adds three things to Django's backend: it names the caller in a comment on every statement
(vmkproject.sqlcomment), it runs the connect hooks (the demo wing starts its embedded
server through one), and it warms every new pooled connection's text search dictionary
(the hunspell Ukrainian dictionary costs seconds to load per connection), so no request
pays for it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import psycopg_pool
from django.conf import settings
from django.db.backends.postgresql import base

from vmkproject import db, replicas, sqlcomment
from vmkproject.routers import LISTINGS_ALIAS

logger = logging.getLogger("vmk.db")

APPLICATION_NAME = "vmk-data-mcp"


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Outermost and permanent: every statement is commented (SQL_COMMENTS) and, with
        # tracing on, gets its span.
        self.execute_wrappers.append(sqlcomment.execute_wrapper(str(self.settings_dict["NAME"])))
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.settings_dict.get("REPLICAS") and isinstance(pool_options, dict):
            # New pooled connections go to a replica in turn (vmkproject.replicas).
            found = replicas.replica_set(self.alias)
            pool_options.setdefault("connection_class", found.connection_class())
            pool_options.setdefault("reset", found.reset)

    @property
    def pool(self) -> Any:
        pool = super().pool  # type: ignore[misc]
        # CONN_HEALTH_CHECKS gives the pool psycopg_pool's check (an empty query before each
        # loan); ours looks at the socket of a connection lent a moment ago instead. Django
        # passes `check` itself, so it is swapped here; should psycopg_pool rename the
        # attribute, its own check stays.
        if getattr(pool, "_check", None) is psycopg_pool.ConnectionPool.check_connection:
            pool._check = db.check_pooled
        if pool is not None and self.settings_dict.get("REPLICAS"):
            replicas.replica_set(self.alias).attach(pool)
        return pool

    def get_connection_params(self) -> dict[str, Any]:
        # The demo wing's hook starts the embedded server and sets HOST (demo.apps).
        db.prepare_connection(self.settings_dict)
        params = super().get_connection_params()
        # Which process holds a connection shows in pg_stat_activity (and the soak test counts
        # its server's connections by it).
        params.setdefault("application_name", f"{APPLICATION_NAME}:{os.getpid()}")
        return params

    def _configure_connection(self, connection: Any) -> bool:
        commit = bool(super()._configure_connection(connection))  # type: ignore[misc]
        from vmkproject.textsearch import FALLBACK_FTS_CONFIG, resolve_config

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
        if self.alias == LISTINGS_ALIAS:
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
