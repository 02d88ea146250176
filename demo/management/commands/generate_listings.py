"""Create and fill a listings database with synthetic Ukrainian listings."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from demo import embedded, generator, schema
from demo.loading import NOT_OURS, load_synthetic_listings
from vmkproject.routers import LISTINGS_ALIAS

# Memory for one HNSW graph node: the 768-d float vector plus its neighbour lists.
HNSW_BYTES_PER_ROW = 4 * 1024
MAX_INDEX_BUILD_MEMORY_MB = 16 * 1024


def index_build_memory_mb(rows: int) -> int:
    """maintenance_work_mem for building the indexes over `rows` listings: 1 GB to 16 GB."""
    wanted = rows * HNSW_BYTES_PER_ROW // (1024 * 1024)
    return max(1024, min(MAX_INDEX_BUILD_MEMORY_MB, wanted))


class Command(BaseCommand):
    help = (
        "Fill a database the project created (the embedded one by default) with N synthetic "
        "Ukrainian listings and their embeddings. Refuses databases it did not create."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, required=True, help="how many listings")
        parser.add_argument("--seed", type=int, default=42, help="random seed (deterministic)")
        parser.add_argument(
            "--database-url",
            default="",
            help="a writable URL of a database to fill instead of the embedded one; it must be "
            "empty or made by this command",
        )
        parser.add_argument(
            "--embed-text",
            choices=tuple(generator.EMBEDDING_TEXTS),
            default="full",
            help="what is embedded: full (title, description and place; the demo's) or short "
            "(title and place, about 4x faster: for benchmark databases whose speed and recall "
            "are measured, not their ranking quality)",
        )
        parser.add_argument(
            "--append",
            action="store_true",
            help="add listings after the existing ones instead of replacing them",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count: int = options["count"]
        if count < 0:
            raise CommandError("--count must be 0 or more")
        started = time.monotonic()
        with self._connect(options["database_url"]) as conn:
            meta = schema.read_meta(conn)
            has_table = conn.execute("SELECT to_regclass('public.property_listings')").fetchone()
            if (
                has_table
                and has_table[0] is not None
                and meta.get("created_by") != schema.CREATED_BY
            ):
                raise CommandError(NOT_OURS)
            schema.create_schema(conn, fts_config=settings.FTS_CONFIG, tsearch_dir=self._tsearch)
            start_id = 1
            if options["append"]:
                row = conn.execute(
                    "SELECT coalesce(max(id), 0) + 1 FROM property_listings"
                ).fetchone()
                start_id = int(row[0]) if row else 1
            else:
                conn.execute("TRUNCATE property_listings")
                conn.execute("DELETE FROM vmk_meta WHERE key = 'embedder'")
            # Indexes are rebuilt after the load: several times faster than maintaining them.
            conn.execute("DROP INDEX IF EXISTS ix_property_listings_embedding_hnsw")
            conn.execute("DROP INDEX IF EXISTS ix_property_listings_search_vector_gin")
            try:
                loaded = load_synthetic_listings(
                    conn,
                    count=count,
                    seed=options["seed"],
                    start_id=start_id,
                    embed_text=options["embed_text"],
                )
            except (PermissionError, ValueError) as exc:
                raise CommandError(str(exc)) from None
            loaded_at = time.monotonic()
            self.stderr.write("building indexes (HNSW, GIN) ...")
            # The HNSW build is several times faster while its graph fits in memory.
            rows = start_id - 1 + loaded
            conn.execute(f"SET maintenance_work_mem = '{index_build_memory_mb(rows)}MB'")
            schema.create_indexes(conn)
            dbname = conn.info.dbname
            schema.create_reader_role(conn, dbname)
            schema.write_meta(conn, ready="1", demo_count=str(count))
        # Pooled connections may hold plans and statistics of the old data.
        connections[LISTINGS_ALIAS].close()
        self.stdout.write(
            f"{loaded} listings loaded in {loaded_at - started:.1f} s, indexes built in "
            f"{time.monotonic() - loaded_at:.1f} s"
        )

    _tsearch: Path | None = None

    def _connect(self, url: str) -> psycopg.Connection:
        if url:
            try:
                return psycopg.connect(url, autocommit=True)
            except psycopg.Error:
                raise CommandError("Could not connect to --database-url") from None
        listings = settings.DATABASES[LISTINGS_ALIAS]
        if not listings.get("EMBEDDED"):
            raise CommandError(
                "The configured listings database is not the embedded one and is never written "
                "to; pass --database-url of a database made for synthetic data."
            )
        server = embedded.configured_server()
        self._tsearch = embedded.tsearch_dir()
        embedded.ensure_database(
            server,
            dbname=listings["NAME"],
            fts_config=settings.FTS_CONFIG,
            demo_count=0,
            demo_seed=0,
        )
        return server.connect(listings["NAME"])
