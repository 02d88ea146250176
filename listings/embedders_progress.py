"""How far the stored embeddings are, when the database says so (the embedded demo does).

The demo wing fills a new demo database's embeddings in the background (demo.background)
and keeps `embedding_done` / `embedding_total` / `embedding_pending` in vmk_meta. A database
without vmk_meta (the real one) has no progress to report: None.
"""

from __future__ import annotations

from typing import NamedTuple

from django.db import connections

from .runtime import LISTINGS, Remembered, _database

# Semantic search on a database whose embeddings are still being computed.
EMBEDDING_IN_PROGRESS_NOTE = (
    "The listings' embeddings are still being computed ({done} of {total}): semantic "
    "ranking covers only the listings embedded so far; full text and filters cover all."
)
# Hybrid search whose text side was left out (a request not in the listings' script): its
# answer is the semantic ranking alone, so the listings not yet embedded are in none of it.
EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY_NOTE = (
    "The listings' embeddings are still being computed ({done} of {total}), and this "
    "request's words were not matched as text (not in the listings' script): only the "
    "listings embedded so far are ranked; search_by_metadata with the same filters lists all."
)
PROGRESS_TTL_SEC = 5.0

_progress = Remembered(PROGRESS_TTL_SEC)


class EmbeddingProgress(NamedTuple):
    done: int
    total: int
    pending: bool

    def describe(self) -> dict[str, object]:
        return {"done": self.done, "total": self.total, "complete": not self.pending}


def embedding_progress() -> EmbeddingProgress | None:
    """The embedding progress vmk_meta records (read at most every PROGRESS_TTL_SEC)."""
    return _progress.get("progress", _read)


def forget() -> None:
    _progress.clear()


def _read() -> EmbeddingProgress | None:
    with _database(), connections[LISTINGS].cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.vmk_meta') IS NOT NULL")
        row = cursor.fetchone()
        if not (row and row[0]):
            return None
        cursor.execute(
            "SELECT key, value FROM vmk_meta WHERE key IN "
            "('embedding_done', 'embedding_total', 'embedding_pending')"
        )
        meta = dict(cursor.fetchall())
    if "embedding_pending" not in meta:
        return None
    try:
        done, total = int(meta.get("embedding_done", 0)), int(meta.get("embedding_total", 0))
    except ValueError:
        return None
    return EmbeddingProgress(done, total, meta["embedding_pending"] == "1")


def incomplete_note(*, semantic_only: bool = False) -> str | None:
    """The note semantic results carry while embeddings are still being filled in (with
    `semantic_only`, for an answer no text search added to)."""
    progress = embedding_progress()
    if progress is None or not progress.pending:
        return None
    note = EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY_NOTE if semantic_only else EMBEDDING_IN_PROGRESS_NOTE
    return note.format(done=progress.done, total=progress.total)
