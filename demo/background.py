"""The demo database's missing embeddings, filled in while the server already serves.

e5 embeds documents at a few per second on two cores: the demo's 5 000 listings would keep
the first `make run` waiting for many minutes. The loader (defer_embedding) writes only the
vectors the document cache already has and marks the database `embedding_pending`; `serve`
then runs this filler in a process of its own at the lowest CPU priority (demo.filler). It
writes the demo database the demo wing created (never a database it did not create) as its
owner, in small batches, and keeps vmk_meta's embedding_done / embedding_total current for
/health and for semantic search, which meanwhile ranks only the rows that have a vector and
says so.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from . import generator, schema
from .loading import NO_EMBEDDING_EVERY, NOT_OURS

logger = logging.getLogger("vmk.background")

# Small batches: a stop request waits for at most one, and progress moves in small steps.
FILL_BATCH = 8
# The planner's statistics are refreshed this often while the fill runs, as autovacuum would
# on a server that keeps running: until the fill's VACUUM at the end they said about one row
# had a vector, and semantic search, which counts the rows it ranks by that estimate, gave
# its page's length as the total for the minutes the fill took.
ANALYZE_EVERY_SEC = 30.0


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


_PENDING_SQL = (
    "SELECT id, title, description, district, city FROM property_listings "
    "WHERE embedding IS NULL AND id %% %s <> 0 ORDER BY id LIMIT %s"
)
_TOTAL_SQL = "SELECT count(*) FROM property_listings WHERE id %% %s <> 0"
_DONE_SQL = "SELECT count(*) FROM property_listings WHERE embedding IS NOT NULL"


def counts(conn: psycopg.Connection) -> tuple[int, int]:
    """(rows with a vector, rows that should have one) in the demo database."""
    done = conn.execute(_DONE_SQL).fetchone()
    total = conn.execute(_TOTAL_SQL, [NO_EMBEDDING_EVERY]).fetchone()
    return (int(done[0]) if done else 0), (int(total[0]) if total else 0)


def pending(conn: psycopg.Connection) -> bool:
    return schema.read_meta(conn).get("embedding_pending") == "1"


def fill_embeddings(
    conn: psycopg.Connection,
    embed: Callable[[list[str]], list[Any]],
    *,
    batch_size: int = FILL_BATCH,
    stop: StopFlag | None = None,
) -> int:
    """Embed the rows still without a vector, batch by batch; returns how many were filled.

    Stops early when `stop` is set; the next run carries on where this one stopped.
    """
    meta = schema.read_meta(conn)
    if meta.get("created_by") != schema.CREATED_BY:
        raise PermissionError(NOT_OURS)
    register_vector(conn)
    # The text the loader embeds: title, description and place, or (--embed-text short)
    # title and place only.
    text_of = generator.EMBEDDING_TEXTS.get(
        meta.get("embedding_text", "full"), generator.embedding_text
    )
    done, total = counts(conn)
    schema.write_meta(conn, embedding_done=str(done), embedding_total=str(total))
    filled = 0
    started = analysed = time.monotonic()
    while not (stop and stop.is_set()):
        if time.monotonic() - analysed >= ANALYZE_EVERY_SEC:
            conn.execute("ANALYZE property_listings")
            analysed = time.monotonic()
        rows = conn.execute(_PENDING_SQL, [NO_EMBEDDING_EVERY, batch_size]).fetchall()
        if not rows:
            break
        texts = [
            text_of({"title": r[1], "description": r[2], "district": r[3], "city": r[4]})
            for r in rows
        ]
        vectors = embed(texts)
        with conn.transaction():
            conn.cursor().executemany(
                "UPDATE property_listings SET embedding = %s WHERE id = %s AND embedding IS NULL",
                [
                    (np.asarray(vector, dtype=np.float32), row[0])
                    for row, vector in zip(rows, vectors, strict=True)
                ],
            )
            filled += len(rows)
            schema.write_meta(conn, embedding_done=str(done + filled))
    if not (stop and stop.is_set()):
        done, total = counts(conn)
        schema.write_meta(
            conn,
            embedding_done=str(done),
            embedding_total=str(total),
            embedding_pending="0" if done >= total else "1",
        )
        schema.vacuum(conn)  # every filled row was rewritten
        logger.info(
            "background embedding: %d listings embedded in %.1f s (%d of %d have a vector)",
            filled,
            time.monotonic() - started,
            done,
            total,
        )
    return filled
