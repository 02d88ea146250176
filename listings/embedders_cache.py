"""Document vectors kept on disk, keyed by a hash of the embedded text and the model.

Embedding documents with e5 runs at a few per second on two cores: a rebuild of the demo
database, generate_listings or the tests' scratch databases would pay that again for the
same texts. This cache (one SQLite file per model under DOCUMENT_VECTOR_CACHE_DIR) returns
the vector a text got last time, so only new texts are embedded.

The key is sha256 of the model name, the document prefix and the text: a different model or
prefix never reads another's vectors.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

_CREATE = "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"
# SQLite's default limit on host parameters is 999 (older builds): stay under it.
_CHUNK = 500


def cache_file(directory: Path, model: str) -> Path:
    """The cache file of `model` ("offline:multilingual-e5-small-q4" → a safe file name)."""
    return directory / (re.sub(r"[^A-Za-z0-9._-]+", "_", model) + ".sqlite")


class DocumentVectorCache:
    """text → float32 vector of one model, in a SQLite file (safe across threads)."""

    def __init__(self, path: Path, *, model: str, prefix: str = "") -> None:
        self.path = path
        self.model = model
        self.prefix = prefix
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self.model}\0{self.prefix}\0{text}".encode()).digest()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(_CREATE)
        return conn

    def get_many(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text, or None where there is none."""
        if not texts:
            return []
        keys = [self.key(text) for text in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock, self._connect() as conn:
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})",  # noqa: S608
                    chunk,
                )
                for key, blob in rows:
                    found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        result = [found.get(key) for key in keys]
        hits = sum(vector is not None for vector in result)
        self.hits += hits
        self.misses += len(result) - hits
        return result

    def put_many(self, texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        rows = [
            (self.key(text), np.asarray(vector, dtype=np.float32).tobytes())
            for text, vector in zip(texts, vectors, strict=True)
        ]
        if not rows:
            return
        with self._lock, self._connect() as conn:
            conn.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        with self._lock, self._connect() as conn:
            row = conn.execute("SELECT count(*) FROM vectors").fetchone()
        return int(row[0])


def embed_through(
    cache: DocumentVectorCache, embed: Callable[[list[str]], list[list[float]]], texts: list[str]
) -> list[list[float]]:
    """The vectors of `texts`: cached ones from the cache, the rest embedded and stored."""
    cached = cache.get_many(texts)
    missing = [i for i, vector in enumerate(cached) if vector is None]
    vectors: list[list[float] | None] = [
        None if vector is None else vector.tolist() for vector in cached
    ]
    if missing:
        fresh = embed([texts[i] for i in missing])
        cache.put_many([texts[i] for i in missing], fresh)
        for i, vector in zip(missing, fresh, strict=True):
            vectors[i] = list(vector)
    return [vector for vector in vectors if vector is not None]
