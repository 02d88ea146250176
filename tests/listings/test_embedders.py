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
    SYNC_IN_EVENT_LOOP,
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
        asyncio.run(q.embed_query(text))
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

    vector = asyncio.run(q.embed_query("2-кімнатна квартира біля метро"))

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

    vectors = asyncio.run(q.embed_documents(texts))

    assert [len(request["input"]) for request in ollama.requests] == [2, 2, 1]
    assert ollama.texts == [DOCUMENT_PREFIX + text for text in texts]
    assert vectors == [pytest.approx(fake_vector(DOCUMENT_PREFIX + t, 768)) for t in texts]


def test_documents_are_not_cached(ollama):
    q = ollama_embedder(ollama.url)

    q.embed_documents_sync(["будинок"])
    q.embed_documents_sync(["будинок"])

    assert len(ollama.requests) == 2
    assert len(q.cache) == 0


def test_no_texts_means_no_request(ollama):
    q = ollama_embedder(ollama.url)

    assert asyncio.run(q.embed_documents([])) == []
    assert ollama.requests == []


# --- The query cache ---------------------------------------------------------------------------


def test_a_repeated_query_does_not_reach_ollama(ollama):
    q = ollama_embedder(ollama.url)

    async def twice():
        first = await q.embed_query("квартира біля метро")
        first_stats = q.last_query_stats()
        second = await q.embed_query("квартира біля метро")
        return first, first_stats, second, q.last_query_stats()

    first, first_stats, second, second_stats = asyncio.run(twice())

    assert second == first
    assert len(ollama.requests) == 1
    assert first_stats.cache_hit is False
    assert second_stats.cache_hit is True
    assert second_stats.seconds < first_stats.seconds


def test_sync_callers_see_their_own_cache_stats(ollama):
    q = ollama_embedder(ollama.url)

    q.embed_query_sync("квартира")
    assert q.last_query_stats().cache_hit is False
    q.embed_query_sync("квартира")
    assert q.last_query_stats().cache_hit is True
    other_thread = ThreadPoolExecutor(1).submit(q.last_query_stats).result()
    assert other_thread is None


def test_the_cache_key_is_the_prefixed_text_with_whitespace_normalised(ollama):
    q = ollama_embedder(ollama.url)

    q.embed_query_sync("  квартира   біля\n\tметро ")
    q.embed_query_sync("квартира біля метро")
    q.embed_query_sync("Квартира біля метро")

    assert ollama.texts == [
        "search_query: квартира біля метро",
        "search_query: Квартира біля метро",
    ]
    assert "search_query: квартира біля метро" in q.cache


def test_the_cache_evicts_the_least_recently_used_query(ollama):
    q = ollama_embedder(ollama.url, cache_size=2)

    for text in ["a", "b", "a", "c", "a", "b"]:
        q.embed_query_sync(text)

    # Using "a" again kept it fresh, so "c" pushed out "b", and "b" came back as a miss.
    assert ollama.texts == [QUERY_PREFIX + t for t in ["a", "b", "c", "b"]]
    assert len(q.cache) == 2


def test_a_returned_vector_can_be_changed_without_changing_the_cache(ollama):
    q = ollama_embedder(ollama.url)

    vector = q.embed_query_sync("гараж")
    vector[0] = 42.0

    assert q.embed_query_sync("гараж")[0] != 42.0


def test_a_failed_query_is_not_cached(ollama):
    q = ollama_embedder(ollama.url)
    ollama.mode = "error"
    embedding_error(q)

    ollama.mode = "ok"
    asyncio.run(q.embed_query("квартира"))

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
    asyncio.run(q.verify())
    ollama.mode = "wrong_dimension"

    with pytest.raises(EmbeddingUnavailable, match="returned 384-dimensional vectors"):
        q.verify_sync()


def test_verify_checks_any_embedder():
    class TooShort:
        name = "test:too-short"
        dimension = 768

        async def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] for _ in texts]

    with pytest.raises(EmbeddingUnavailable) as excinfo:
        asyncio.run(QueryEmbedder(TooShort()).verify())

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


# --- Event loops and threads ------------------------------------------------------------------


def test_sync_calls_from_a_thread_without_a_loop_leave_no_client_behind(ollama):
    q = ollama_embedder(ollama.url)

    first = q.embed_query_sync("квартира")
    documents = q.embed_documents_sync(["будинок", "гараж"])
    q.verify_sync()

    assert first == pytest.approx(fake_vector("search_query: квартира", 768))
    assert len(documents) == 2
    # Each sync call ran on its own short-lived loop and closed that loop's client.
    assert len(q.embedder._clients) == 0


def test_a_loops_client_is_closed_when_the_loop_ends(ollama):
    q = ollama_embedder(ollama.url)

    async def embed_twice_and_peek():
        await q.embed_query("квартира")
        await q.embed_query("будинок")
        return [client for client, _ in q.embedder._clients.values()]

    clients = asyncio.run(embed_twice_and_peek())

    assert len(clients) == 1  # one client, reused within the loop
    assert clients[0].is_closed
    assert len(q.embedder._clients) == 0


def test_aclose_closes_the_running_loops_client(ollama):
    q = ollama_embedder(ollama.url)

    async def close_then_embed_again():
        await q.embed_query("квартира")
        ((first, _),) = q.embedder._clients.values()
        await q.aclose()
        closed = first.is_closed and not q.embedder._clients
        await q.embed_query("будинок")
        return closed

    assert asyncio.run(close_then_embed_again())
    assert len(ollama.requests) == 2


@pytest.mark.parametrize("thread_sensitive", [False, True])
def test_sync_calls_from_sync_to_async_workers_while_the_server_loop_runs(ollama, thread_sensitive):
    q = ollama_embedder(ollama.url)
    embed_sync = sync_to_async(q.embed_query_sync, thread_sensitive=thread_sensitive)

    async def serve():
        before = await q.embed_query("до")
        from_worker = await embed_sync("у потоці")
        worker_stats = q.last_query_stats()
        cached_in_worker = await embed_sync("до")
        after = await q.embed_query("після")
        # The server loop's client is still usable after the worker's loop came and went.
        return before, from_worker, worker_stats, cached_in_worker, after

    before, from_worker, worker_stats, cached_in_worker, after = asyncio.run(serve())

    assert from_worker == pytest.approx(fake_vector("search_query: у потоці", 768))
    assert worker_stats.cache_hit is False
    assert cached_in_worker == before
    assert after == pytest.approx(fake_vector("search_query: після", 768))
    assert ollama.texts == [QUERY_PREFIX + t for t in ["до", "у потоці", "після"]]


def test_concurrent_queries_from_threads_and_tasks(ollama):
    q = ollama_embedder(ollama.url, cache_size=4)
    texts = [f"запит {i}" for i in range(12)]

    async def on_a_loop():
        return await asyncio.gather(*(q.embed_query(t) for t in texts))

    with ThreadPoolExecutor(max_workers=6) as pool:
        from_threads = list(pool.map(q.embed_query_sync, texts))
        from_loop = pool.submit(asyncio.run, on_a_loop()).result()

    expected = [pytest.approx(fake_vector(QUERY_PREFIX + t, 768)) for t in texts]
    assert from_threads == expected
    assert from_loop == expected
    assert len(q.cache) == 4


def test_sync_embedding_refuses_to_block_a_running_loop(ollama):
    q = ollama_embedder(ollama.url)

    async def misuse():
        q.embed_query_sync("квартира")

    with pytest.raises(RuntimeError) as excinfo:
        asyncio.run(misuse())
    assert str(excinfo.value) == SYNC_IN_EVENT_LOOP
    assert ollama.requests == []


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
    q.embed_query_sync("квартира")
    q.embed_documents_sync(["квартира"])
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

    vectors = q.embed_documents_sync(["Затишна квартира біля парку", "Гараж у кооперативі"])

    assert [len(v) for v in vectors] == [768, 768]
    for vector in vectors:
        assert all(x == 0.0 for x in vector[512:])
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, rel_tol=1e-5)
    assert q.describe()["description"].startswith("offline stand-in")


def test_offline_vectors_rank_listings_by_meaning():
    q = QueryEmbedder(OfflineEmbedder(dimension=768))

    query = q.embed_query_sync("2-кімнатна квартира біля метро, новобудова")
    flat, land, garage = q.embed_documents_sync(
        [
            "Затишна двокімнатна квартира біля метро",
            "Продається земельна ділянка під забудову в селі",
            "Гараж у кооперативі",
        ]
    )

    assert cosine(query, flat) > cosine(query, land)
    assert cosine(query, flat) > cosine(query, garage)


def test_offline_embedding_runs_off_the_event_loop():
    threads: list[int] = []

    class Recording(OfflineEmbedder):
        def embed_blocking(self, texts):
            threads.append(threading.get_ident())
            return super().embed_blocking(texts)

    async def embed_on_the_loop():
        loop_thread = threading.get_ident()
        vector = await QueryEmbedder(Recording(dimension=768)).embed_query("квартира")
        return loop_thread, vector

    loop_thread, vector = asyncio.run(embed_on_the_loop())

    assert len(vector) == 768
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
