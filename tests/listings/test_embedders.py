from __future__ import annotations

import asyncio
import math
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from asgiref.sync import sync_to_async

from listings import embedders
from listings.embedders import (
    EMBEDDER_WRONG_DIMENSION,
    HEALTH_TIMEOUT,
    OFFLINE_TOO_SMALL,
    OLLAMA_BAD_HOST,
    OLLAMA_BAD_RESPONSE,
    OLLAMA_HTTP_ERROR,
    OLLAMA_MODEL_NOT_PULLED,
    OLLAMA_NO_EMBED_API,
    OLLAMA_TIMEOUT,
    OLLAMA_UNREACHABLE,
    OLLAMA_WRONG_DIMENSION,
    OfflineEmbedder,
    OllamaEmbedder,
    QueryEmbedder,
    check_embedder,
    get_embedder,
    reset_embedder,
)
from listings.errors import EmbeddingUnavailable
from tests.fake_ollama import FakeOllama, fake_vector

MODEL = "nomic-embed-text"
QUERY_PREFIX = "search_query: "
DOCUMENT_PREFIX = "search_document: "


@pytest.fixture
def ollama():
    with FakeOllama() as server:
        yield server


@pytest.fixture(autouse=True)
def fresh_singleton():
    reset_embedder()
    yield
    reset_embedder()


def ollama_embedder(
    url: str, *, timeout: float = 5.0, cache_size: int = 16, batch_size: int = 32
) -> QueryEmbedder:
    return QueryEmbedder(
        OllamaEmbedder(
            host=url, model=MODEL, dimension=768, timeout=timeout, batch_size=batch_size
        ),
        query_prefix=QUERY_PREFIX,
        document_prefix=DOCUMENT_PREFIX,
        cache_size=cache_size,
    )


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def embedding_error(q: QueryEmbedder, text: str = "квартира") -> EmbeddingUnavailable:
    with pytest.raises(EmbeddingUnavailable) as excinfo:
        q.embed_query(text)
    error = excinfo.value
    # Nothing but the operator message: no chained httpx error to print a traceback from.
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    assert "Traceback" not in error.message
    assert error.as_dict() == {"error": error.message, "code": "embedding_unavailable"}
    return error


# --- Ollama: the happy path ------------------------------------------------------------------


def test_query_is_sent_with_the_query_prefix_and_the_model(ollama):
    q = ollama_embedder(ollama.url)

    vector = q.embed_query("2-кімнатна квартира біля метро")

    assert ollama.requests == [
        {"model": MODEL, "input": ["search_query: 2-кімнатна квартира біля метро"]}
    ]
    assert vector == pytest.approx(fake_vector("search_query: 2-кімнатна квартира біля метро", 768))
    assert q.name == "ollama:nomic-embed-text"
    assert q.kind == "ollama"
    assert q.dimension == 768


def test_documents_get_the_document_prefix_in_batches_and_in_order(ollama):
    q = ollama_embedder(ollama.url, batch_size=2)
    texts = [f"оголошення {i}" for i in range(5)]

    vectors = q.embed_documents(texts)

    assert [len(request["input"]) for request in ollama.requests] == [2, 2, 1]
    assert ollama.texts == [DOCUMENT_PREFIX + text for text in texts]
    assert vectors == [pytest.approx(fake_vector(DOCUMENT_PREFIX + t, 768)) for t in texts]


def test_one_listings_text_is_embedded_as_a_document_and_kept_in_memory(ollama):
    # "more like this" for a listing without a stored vector: the document prefix, as the
    # stored vectors were made, and the second ask answered from memory
    q = ollama_embedder(ollama.url)
    first = q.document_vector("Квартира з балконом\nОпис\nСолом'янський, Київ")
    again = q.document_vector("Квартира з балконом\nОпис\nСолом'янський, Київ")
    assert ollama.texts == [DOCUMENT_PREFIX + "Квартира з балконом\nОпис\nСолом'янський, Київ"]
    assert first.cache_hit is False and again.cache_hit is True
    assert list(again.vector) == pytest.approx(fake_vector(ollama.texts[0], 768))


def test_documents_are_not_cached(ollama):
    q = ollama_embedder(ollama.url)

    q.embed_documents(["будинок"])
    q.embed_documents(["будинок"])

    assert len(ollama.requests) == 2
    assert len(q.cache) == 0


def test_no_texts_means_no_request(ollama):
    q = ollama_embedder(ollama.url)

    assert q.embed_documents([]) == []
    assert ollama.requests == []


# --- The query cache ---------------------------------------------------------------------------


def test_a_repeated_query_does_not_reach_ollama(ollama):
    q = ollama_embedder(ollama.url)

    first = q.query_vector("квартира біля метро")
    second = q.query_vector("квартира біля метро")

    assert second.vector == first.vector
    assert len(ollama.requests) == 1
    assert first.cache_hit is False
    assert second.cache_hit is True


def test_the_cache_key_is_the_prefixed_text_with_whitespace_normalised(ollama):
    q = ollama_embedder(ollama.url)

    q.embed_query("  квартира   біля\n\tметро ")
    q.embed_query("квартира біля метро")
    q.embed_query("Квартира біля метро")

    assert ollama.texts == [
        "search_query: квартира біля метро",
        "search_query: Квартира біля метро",
    ]
    assert "search_query: квартира біля метро" in q.cache


def test_the_cache_evicts_the_least_recently_used_query(ollama):
    q = ollama_embedder(ollama.url, cache_size=2)

    for text in ["a", "b", "a", "c", "a", "b"]:
        q.embed_query(text)

    # Using "a" again kept it fresh, so "c" pushed out "b", and "b" came back as a miss.
    assert ollama.texts == [QUERY_PREFIX + t for t in ["a", "b", "c", "b"]]
    assert len(q.cache) == 2


def test_a_returned_vector_can_be_changed_without_changing_the_cache(ollama):
    q = ollama_embedder(ollama.url)

    vector = q.embed_query("гараж")
    vector[0] = 42.0

    assert q.embed_query("гараж")[0] != 42.0


def test_a_failed_query_is_not_cached(ollama):
    q = ollama_embedder(ollama.url)
    ollama.mode = "error"
    embedding_error(q)

    ollama.mode = "ok"
    q.embed_query("квартира")

    assert len(ollama.requests) == 2


# --- Ollama: every failure says what to do ----------------------------------------------------


def test_unreachable_ollama_says_to_start_it():
    url = closed_port_url()

    error = embedding_error(ollama_embedder(url))

    assert error.message == OLLAMA_UNREACHABLE.format(host=url)
    assert error.message == (
        f"Ollama is not reachable at {url}: start it (`ollama serve`) or set OLLAMA_HOST"
    )


def test_a_model_that_is_not_pulled_says_to_pull_it(ollama):
    ollama.mode = "not_pulled"

    error = embedding_error(ollama_embedder(ollama.url))

    assert error.message == OLLAMA_MODEL_NOT_PULLED.format(host=ollama.url, model=MODEL)
    assert "run `ollama pull nomic-embed-text`" in error.message


def test_a_server_without_the_embed_endpoint_says_to_upgrade(ollama):
    ollama.mode = "no_endpoint"

    error = embedding_error(ollama_embedder(ollama.url))

    assert error.message == OLLAMA_NO_EMBED_API.format(host=ollama.url)


def test_a_slow_ollama_times_out_and_names_the_setting(ollama):
    ollama.mode = "slow"
    started = time.perf_counter()

    error = embedding_error(ollama_embedder(ollama.url, timeout=0.3))

    assert time.perf_counter() - started < ollama.delay
    assert error.message == OLLAMA_TIMEOUT.format(host=ollama.url, timeout=0.3)
    assert "did not answer within 0.3 s" in error.message
    assert "OLLAMA_TIMEOUT_SEC" in error.message


def test_a_server_error_passes_on_ollamas_reason(ollama):
    ollama.mode = "error"

    error = embedding_error(ollama_embedder(ollama.url))

    assert error.message == OLLAMA_HTTP_ERROR.format(
        host=ollama.url,
        status=500,
        detail="llama runner process has terminated: signal: killed",
    )


def test_a_wrong_dimension_names_both_dimensions(ollama):
    ollama.mode = "wrong_dimension"

    error = embedding_error(ollama_embedder(ollama.url))

    assert error.message == OLLAMA_WRONG_DIMENSION.format(
        host=ollama.url, model=MODEL, got=384, expected=768
    )
    assert "returned 384-dimensional vectors but EMBEDDING_DIM is 768: " in error.message


def test_malformed_json_is_a_bad_response(ollama):
    ollama.mode = "malformed"

    error = embedding_error(ollama_embedder(ollama.url))

    assert error.message == OLLAMA_BAD_RESPONSE.format(host=ollama.url, problem="not JSON")


def test_a_host_without_a_scheme_is_explained():
    error = embedding_error(ollama_embedder("localhost:11434"))

    assert error.message == OLLAMA_BAD_HOST.format(host="localhost:11434")


def test_credentials_in_the_host_never_reach_a_message():
    url = closed_port_url()
    with_credentials = url.replace("http://", "http://admin:s3cret@")

    error = embedding_error(ollama_embedder(with_credentials))

    assert error.message == OLLAMA_UNREACHABLE.format(host=url)
    assert "s3cret" not in error.message
    assert "admin" not in error.message


# --- Start-up check and /health ---------------------------------------------------------------


def test_verify_catches_a_dimension_mismatch_at_start_up(ollama):
    q = ollama_embedder(ollama.url)
    q.verify()
    ollama.mode = "wrong_dimension"

    with pytest.raises(EmbeddingUnavailable, match="returned 384-dimensional vectors"):
        q.verify()


def test_verify_checks_any_embedder():
    class TooShort:
        name = "test:too-short"
        dimension = 768

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] for _ in texts]

    with pytest.raises(EmbeddingUnavailable) as excinfo:
        QueryEmbedder(TooShort()).verify()

    assert excinfo.value.message == EMBEDDER_WRONG_DIMENSION.format(
        name="test:too-short", got=2, expected=768
    )


def test_health_reports_a_working_ollama(ollama):
    report = asyncio.run(check_embedder(1.0, embedder=ollama_embedder(ollama.url)))

    assert report == {
        "reachable": True,
        "kind": "ollama",
        "model": "ollama:nomic-embed-text",
        "dimension": 768,
        "error": None,
    }


def test_health_reports_what_to_do(ollama):
    ollama.mode = "not_pulled"

    report = asyncio.run(check_embedder(1.0, embedder=ollama_embedder(ollama.url)))

    assert report["reachable"] is False
    assert report["error"] == OLLAMA_MODEL_NOT_PULLED.format(host=ollama.url, model=MODEL)


def test_health_gives_up_after_its_own_short_timeout(ollama):
    ollama.mode = "slow"

    report = asyncio.run(check_embedder(0.2, embedder=ollama_embedder(ollama.url, timeout=30)))

    assert report["reachable"] is False
    assert report["error"] == HEALTH_TIMEOUT.format(kind="ollama", timeout=0.2)


def test_health_reports_a_configuration_error(settings):
    settings.EMBEDDER = "offline"
    settings.EMBEDDING_DIM = 384

    report = asyncio.run(check_embedder(1.0))

    assert report["reachable"] is False
    assert report["kind"] == "offline"
    assert report["error"] == OFFLINE_TOO_SMALL.format(native=512, expected=384)


# --- Threads and event loops ------------------------------------------------------------------


def test_one_http_client_serves_every_call_until_closed(ollama):
    q = ollama_embedder(ollama.url)

    first = q.embed_query("квартира")
    client = q.embedder._client
    documents = q.embed_documents(["будинок", "гараж"])
    q.verify()

    assert first == pytest.approx(fake_vector("search_query: квартира", 768))
    assert len(documents) == 2
    assert client is not None and q.embedder._client is client
    q.close()
    assert client.is_closed
    assert q.embedder._client is None
    q.embed_query("будинок")  # a closed embedder opens a new client on the next call
    assert len(ollama.requests) == 4


@pytest.mark.parametrize("thread_sensitive", [False, True])
def test_calls_from_sync_to_async_workers_while_a_loop_runs(ollama, thread_sensitive):
    q = ollama_embedder(ollama.url)
    query_vector = sync_to_async(q.query_vector, thread_sensitive=thread_sensitive)

    async def serve():
        first = await query_vector("у потоці")
        again = await query_vector("у потоці")
        after = await query_vector("після")
        return first, again, after

    first, again, after = asyncio.run(serve())

    assert first.vector == pytest.approx(fake_vector("search_query: у потоці", 768))
    assert (first.cache_hit, again.cache_hit) == (False, True)
    assert again.vector == first.vector
    assert after.vector == pytest.approx(fake_vector("search_query: після", 768))
    assert ollama.texts == [QUERY_PREFIX + t for t in ["у потоці", "після"]]


def test_concurrent_queries_from_threads(ollama):
    q = ollama_embedder(ollama.url, cache_size=4)
    texts = [f"запит {i}" for i in range(12)]

    with ThreadPoolExecutor(max_workers=6) as pool:
        from_threads = list(pool.map(q.embed_query, texts))

    assert from_threads == [pytest.approx(fake_vector(QUERY_PREFIX + t, 768)) for t in texts]
    assert len(q.cache) == 4
    assert len(ollama.requests) == 12


# --- Settings and the singleton ---------------------------------------------------------------


def test_get_embedder_builds_ollama_from_settings(settings, ollama):
    settings.EMBEDDER = "ollama"
    settings.OLLAMA_HOST = ollama.url
    settings.OLLAMA_MODEL = MODEL
    settings.OLLAMA_TIMEOUT_SEC = 3.0
    settings.OLLAMA_QUERY_PREFIX = "search_query: "
    settings.OLLAMA_DOCUMENT_PREFIX = "search_document: "
    settings.EMBEDDING_CACHE_SIZE = 7

    q = get_embedder()

    assert get_embedder() is q
    assert isinstance(q.embedder, OllamaEmbedder)
    assert q.embedder.timeout == 3.0
    assert q.cache.size == 7
    q.embed_query("квартира")
    q.embed_documents(["квартира"])
    assert ollama.texts == ["search_query: квартира", "search_document: квартира"]


def test_get_embedder_builds_offline_without_prefixes(settings):
    settings.EMBEDDER = "offline"
    settings.EMBEDDING_DIM = 768

    q = get_embedder()

    assert isinstance(q.embedder, OfflineEmbedder)
    assert q.name == "offline:use-multilingual-v3-512"
    assert q.query_text("  квартира  біля метро ") == "квартира біля метро"
    assert q.document_prefix == ""
    reset_embedder()
    assert get_embedder() is not q


# --- The offline embedder ---------------------------------------------------------------------


def test_offline_vectors_are_unit_512_d_vectors_padded_with_zeros():
    q = QueryEmbedder(OfflineEmbedder(dimension=768))

    vectors = q.embed_documents(["Затишна квартира біля парку", "Гараж у кооперативі"])

    assert [len(v) for v in vectors] == [768, 768]
    for vector in vectors:
        assert all(x == 0.0 for x in vector[512:])
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, rel_tol=1e-5)
    assert q.describe()["description"].startswith("offline stand-in")


def test_offline_vectors_rank_listings_by_meaning():
    q = QueryEmbedder(OfflineEmbedder(dimension=768))

    query = q.embed_query("2-кімнатна квартира біля метро, новобудова")
    flat, land, garage = q.embed_documents(
        [
            "Затишна двокімнатна квартира біля метро",
            "Продається земельна ділянка під забудову в селі",
            "Гараж у кооперативі",
        ]
    )

    assert cosine(query, flat) > cosine(query, land)
    assert cosine(query, flat) > cosine(query, garage)


def test_the_health_probe_runs_off_the_event_loop():
    threads: list[int] = []

    class Recording(OfflineEmbedder):
        def embed(self, texts):
            threads.append(threading.get_ident())
            return super().embed(texts)

    async def check_on_the_loop():
        report = await check_embedder(30.0, embedder=QueryEmbedder(Recording(dimension=768)))
        return threading.get_ident(), report

    loop_thread, report = asyncio.run(check_on_the_loop())

    assert report["reachable"] is True
    assert threads and threads[0] != loop_thread


def test_offline_needs_room_for_its_512_dimensions():
    with pytest.raises(EmbeddingUnavailable) as excinfo:
        OfflineEmbedder(dimension=384)

    assert excinfo.value.message == OFFLINE_TOO_SMALL.format(native=512, expected=384)
    assert "EMBEDDING_DIM is 384" in excinfo.value.message


def test_offline_health_is_reachable():
    report = asyncio.run(
        check_embedder(30.0, embedder=QueryEmbedder(OfflineEmbedder(dimension=768)))
    )

    assert report == {
        "reachable": True,
        "kind": "offline",
        "model": "offline:use-multilingual-v3-512",
        "dimension": 768,
        "error": None,
    }


def test_the_offline_model_loads_once_per_process():
    first = embedders._load_use()

    assert embedders._load_use() is first
