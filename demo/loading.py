"""Bulk-load synthetic listings into a database the project created (binary COPY)."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from listings.models import PropertyListing

from . import generator, schema

logger = logging.getLogger("vmk.loading")

# One listing in this many has no embedding yet, as in the real database.
NO_EMBEDDING_EVERY = 47
BATCH_SIZE = 512

NOT_OURS = (
    "Refusing to write: this database was not created by vmk-data-mcp (no vmk_meta table). "
    "generate_listings only fills databases it created."
)

# The binary COPY type of each kind of model field (a foreign key: its target's).
COPY_TYPES = {
    "BigIntegerField": "int8",
    "IntegerField": "int4",
    "DecimalField": "numeric",
    "DateTimeField": "timestamptz",
    "TextField": "text",
    "CharField": "varchar",
}


def copy_type(column: str) -> str:
    """The COPY type of a property_listings column, from the model's field."""
    field: Any = next(f for f in PropertyListing._meta.concrete_fields if f.column == column)
    if field.is_relation:
        field = field.target_field
    return COPY_TYPES[field.get_internal_type()]


def has_embedding(listing_id: int) -> bool:
    return listing_id % NO_EMBEDDING_EVERY != 0


def _progress(done: int, total: int, started: float) -> None:
    rate = done / max(time.monotonic() - started, 1e-6)
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(
        f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} listings, {rate:,.0f}/s"
    )
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def load_property_types(conn: psycopg.Connection) -> None:
    for row in generator.PROPERTY_TYPES:
        conn.execute(
            "INSERT INTO property_types (id, slug, name, description) "
            "VALUES (%(id)s, %(slug)s, %(name)s, %(description)s) ON CONFLICT (id) DO NOTHING",
            row,
        )


def load_synthetic_listings(
    conn: psycopg.Connection,
    *,
    count: int,
    seed: int,
    start_id: int = 1,
    embed: Callable[[list[str]], Any] | None = None,
    embedder_name: str | None = None,
    progress: bool = True,
    embed_text: str = "full",
    defer_embedding: bool = False,
) -> int:
    """Generate `count` listings and COPY them with their embeddings; returns rows loaded.

    With `defer_embedding`, only vectors already in the document cache are written; the
    other rows are left without one and vmk_meta says so (embedding_pending), for
    demo.background to fill in while the server runs.
    """
    text_of = generator.EMBEDDING_TEXTS[embed_text]
    meta = schema.read_meta(conn)
    if meta.get("created_by") != schema.CREATED_BY:
        raise PermissionError(NOT_OURS)
    if embed is None:
        from listings.embedders import get_embedder

        query_embedder = get_embedder()
        embed = query_embedder.embed_documents
        if defer_embedding:
            embed = query_embedder.cached_documents
        embedder_name = query_embedder.name
    if meta.get("embedder") and embedder_name and meta["embedder"] != embedder_name:
        raise ValueError(
            f"The stored embeddings were made by {meta['embedder']}, not {embedder_name}: "
            "regenerate the database instead of mixing embedders."
        )
    register_vector(conn)
    load_property_types(conn)
    columns = (*generator.COLUMNS, "embedding")
    types = [copy_type(name) for name in generator.COLUMNS] + ["vector"]
    copy_sql = f"COPY property_listings ({', '.join(columns)}) FROM STDIN WITH (FORMAT BINARY)"
    started = time.monotonic()
    done = embedded = 0
    rows = generator.generate_listings(count, seed=seed, start_id=start_id)
    with conn.transaction(), conn.cursor() as cursor, cursor.copy(copy_sql) as copy:
        copy.set_types(types)
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH_SIZE:
                embedded += _write_batch(copy, batch, embed, text_of)
                done += len(batch)
                batch = []
                if progress:
                    _progress(done, count, started)
        if batch:
            embedded += _write_batch(copy, batch, embed, text_of)
            done += len(batch)
            if progress:
                _progress(done, count, started)
    conn.execute(
        "SELECT setval(pg_get_serial_sequence('property_listings', 'id'), "
        "(SELECT coalesce(max(id), 1) FROM property_listings))"
    )
    schema.write_meta(
        conn,
        embedder=embedder_name or "unknown",
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        seed=str(seed),
        generator_version=generator.GENERATOR_VERSION,
        embedding_text=embed_text,
    )
    if defer_embedding:
        found = conn.execute(
            "SELECT count(*) FILTER (WHERE embedding IS NOT NULL), "
            "count(*) FILTER (WHERE id %% %s <> 0) FROM property_listings",
            [NO_EMBEDDING_EVERY],
        ).fetchone()
        have, want = (int(found[0]), int(found[1])) if found else (0, 0)
        schema.write_meta(
            conn,
            embedding_pending="1" if have < want else "0",
            embedding_done=str(have),
            embedding_total=str(want),
        )
    logger.info(
        "loaded %d listings (%d with embeddings) in %.1f s",
        done,
        embedded,
        time.monotonic() - started,
    )
    return done


def _write_batch(
    copy: Any,
    batch: list[dict[str, Any]],
    embed: Callable[[list[str]], Any],
    text_of: Callable[[Mapping[str, Any]], str],
) -> int:
    """COPY `batch`; `embed` may answer None for a text (deferred): that row gets no vector."""
    wanted = [row for row in batch if has_embedding(row["id"])]
    vectors = embed([text_of(row) for row in wanted]) if wanted else []
    by_id = {
        row["id"]: np.asarray(vec, dtype=np.float32)
        for row, vec in zip(wanted, vectors, strict=True)
        if vec is not None
    }
    for row in batch:
        copy.write_row([row[name] for name in generator.COLUMNS] + [by_id.get(row["id"])])
    return len(by_id)
