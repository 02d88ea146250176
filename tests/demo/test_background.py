"""The document-vector cache, the deferred demo load and the background embedding fill
(issue 14, item 4: e5 as the demo default within the first start's 3 minutes)."""

from __future__ import annotations

import os
import re
import threading
import time

import numpy as np
import psutil
import pytest
from django.conf import settings

from demo import background, embedded, filler, schema
from demo.loading import NO_EMBEDDING_EVERY, NOT_OURS, load_synthetic_listings
from listings.embedders import QueryEmbedder
from listings.embedders_cache import DocumentVectorCache, cache_file, embed_through
from tests.scratch_db import embedded_server

DIM = settings.EMBEDDING_DIM


class CountingEmbedder:
    """A deterministic stand-in model that counts the texts it embedded."""

    name = "test:counting"
    dimension = DIM

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        vectors = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            vector = rng.standard_normal(DIM).astype(np.float32)
            vectors.append((vector / np.linalg.norm(vector)).tolist())
        return vectors


def test_the_cache_answers_a_text_it_has_seen_and_misses_a_new_one(tmp_path):
    model = CountingEmbedder()
    cache = DocumentVectorCache(tmp_path / "m.sqlite", model="test:counting")
    first = embed_through(cache, model.embed, ["квартира у Львові", "будинок"])
    assert model.texts == ["квартира у Львові", "будинок"]
    again = embed_through(cache, model.embed, ["будинок", "квартира у Львові", "гараж"])
    assert model.texts[2:] == ["гараж"]  # only the new text was embedded
    assert np.allclose(again[0], first[1]) and np.allclose(again[1], first[0])
    assert (cache.hits, cache.misses) == (2, 3)
    assert len(cache) == 3


def test_the_cache_key_holds_the_model_and_the_prefix(tmp_path):
    path = tmp_path / "shared.sqlite"
    DocumentVectorCache(path, model="a").put_many(["текст"], [[1.0] * 4])
    assert DocumentVectorCache(path, model="a").get_many(["текст"])[0] is not None
    assert DocumentVectorCache(path, model="b").get_many(["текст"]) == [None]
    assert DocumentVectorCache(path, model="a", prefix="passage: ").get_many(["текст"]) == [None]
    assert DocumentVectorCache(path, model="a").get_many(["текст "]) == [None]


def test_the_cache_file_name_is_safe_for_any_model_name(tmp_path):
    path = cache_file(tmp_path, "offline:multilingual-e5-small-q4")
    assert path == tmp_path / "offline_multilingual-e5-small-q4.sqlite"
    assert cache_file(tmp_path, "../../etc/x").parent == tmp_path


def test_query_embedder_documents_go_through_the_cache(tmp_path):
    model = CountingEmbedder()
    embedder = QueryEmbedder(model, document_prefix="passage: ", document_cache_dir=tmp_path)
    assert embedder.cached_documents(["одна", "дві"]) == [None, None]
    first = embedder.embed_documents(["одна", "дві"])
    assert model.texts == ["passage: одна", "passage: дві"]
    second = QueryEmbedder(model, document_prefix="passage: ", document_cache_dir=tmp_path)
    assert np.allclose(second.embed_documents(["дві"])[0], first[1])
    assert len(model.texts) == 2  # a second build embeds nothing it has seen
    found = second.cached_documents(["одна", "три"])
    assert found[0] is not None and found[1] is None
    # Without a directory there is no cache: every call embeds.
    plain = QueryEmbedder(model)
    plain.embed_documents(["одна"])
    assert len(model.texts) == 3 and plain.cached_documents(["одна"]) == [None]


DBNAME = "bg_fill"
ROWS = 40


def all_visible(conn) -> bool:
    """Every page of the listings table marked all-visible (by a VACUUM: an ANALYZE alone
    leaves the visibility map empty after a bulk load)."""
    pages, visible = conn.execute(
        "SELECT relpages, relallvisible FROM pg_class WHERE oid = 'property_listings'::regclass"
    ).fetchone()
    return pages > 0 and visible == pages


@pytest.fixture
def deferred_database(listings_db, tmp_path):
    """A demo database made as the first start makes it: listings in, embeddings deferred;
    the document cache already has the vectors of the first 10 listings' texts."""
    server = embedded_server()
    model = CountingEmbedder()
    embedder = QueryEmbedder(model, document_cache_dir=tmp_path)
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')

    def loader(conn, count, seed):
        from demo import generator

        warm = [generator.embedding_text(row) for row in generator.generate_listings(10, seed=seed)]
        embedder.embed_documents(warm)
        load_synthetic_listings(
            conn,
            count=count,
            seed=seed,
            embed=embedder.cached_documents,
            embedder_name=model.name,
            progress=False,
            defer_embedding=True,
        )

    embedded.ensure_database(
        server,
        dbname=DBNAME,
        fts_config=settings.FTS_CONFIG,
        demo_count=ROWS,
        demo_seed=5,
        loader=loader,
    )
    model.texts.clear()
    yield server, embedder, model
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DBNAME}" WITH (FORCE)')


def test_a_deferred_load_writes_only_cached_vectors_and_marks_the_database(deferred_database):
    server, _, _ = deferred_database
    with server.connect(DBNAME) as conn:
        done, total = background.counts(conn)
        assert total == sum(1 for i in range(1, ROWS + 1) if i % NO_EMBEDDING_EVERY)
        assert done == 10  # the cached ones
        assert background.pending(conn)
        meta = schema.read_meta(conn)
        assert meta["embedding_pending"] == "1"
        # /health has the progress from the first moment, before the filler starts.
        assert (meta["embedding_done"], meta["embedding_total"]) == ("10", str(total))
        # vacuumed after the load: an index-only scan of the market index reads no table page
        assert all_visible(conn)


def test_the_background_fill_embeds_the_rest_and_records_its_progress(deferred_database):
    server, embedder, model = deferred_database
    with server.connect(DBNAME) as conn:
        stopped = threading.Event()
        stopped.set()
        assert background.fill_embeddings(conn, embedder.embed_documents, stop=stopped) == 0
        meta = schema.read_meta(conn)
        assert (meta["embedding_done"], meta["embedding_pending"]) == ("10", "1")

        filled = background.fill_embeddings(conn, embedder.embed_documents, batch_size=7)
        assert filled == ROWS - 10
        assert len(model.texts) == ROWS - 10  # the 10 cached ones were not embedded again
        done, total = background.counts(conn)
        assert done == total == ROWS
        meta = schema.read_meta(conn)
        assert (meta["embedding_done"], meta["embedding_total"]) == (str(ROWS), str(ROWS))
        assert meta["embedding_pending"] == "0"
        assert not background.pending(conn)
        assert all_visible(conn)  # the fill rewrote every row, and vacuumed after it
        # Every vector is the one the model gives the listing's text.
        row = conn.execute(
            "SELECT embedding::text, title, description, district, city "
            "FROM property_listings WHERE id = 30"
        ).fetchone()
        text = background.generator.embedding_text(
            {"title": row[1], "description": row[2], "district": row[3], "city": row[4]}
        )
        stored = np.array([float(x) for x in row[0].strip("[]").split(",")])
        assert np.allclose(stored, embedder.embed_documents([text])[0], atol=1e-6)


def test_the_planner_learns_of_the_vectors_while_the_fill_runs(deferred_database, monkeypatch):
    # semantic search counts the rows it ranks by the planner's estimate: until the fill's
    # VACUUM at the end it said about one row had a vector
    server, embedder, _ = deferred_database
    monkeypatch.setattr(background, "ANALYZE_EVERY_SEC", 0)
    estimates = []

    def embed(texts):
        with server.connect(DBNAME) as other:
            plan = other.execute(
                "EXPLAIN (FORMAT JSON) SELECT id FROM property_listings WHERE embedding IS NOT NULL"
            ).fetchone()[0]
            done = other.execute(background._DONE_SQL).fetchone()[0]
        estimates.append((plan[0]["Plan"]["Plan Rows"], done))
        return embedder.embed_documents(texts)

    with server.connect(DBNAME) as conn:
        background.fill_embeddings(conn, embed, batch_size=7)
    # before each batch the estimate is the rows filled so far (10 cached, then 7 a batch)
    filled = [done for _, done in estimates]
    assert len(filled) >= 3 and filled == sorted(set(filled)) and filled[0] == 10
    assert [planned for planned, _ in estimates] == filled


def test_the_fill_refuses_a_database_the_project_did_not_create(listings_db):
    server = embedded_server()
    with server.connect("postgres") as admin:
        admin.execute('DROP DATABASE IF EXISTS "bg_foreign" WITH (FORCE)')
        admin.execute('CREATE DATABASE "bg_foreign"')
    try:
        with server.connect("bg_foreign") as conn:
            conn.execute("CREATE TABLE vmk_meta (key text PRIMARY KEY, value text)")
            with pytest.raises(PermissionError, match=re.escape(NOT_OURS)):
                background.fill_embeddings(conn, CountingEmbedder().embed)
    finally:
        with server.connect("postgres") as admin:
            admin.execute('DROP DATABASE IF EXISTS "bg_foreign" WITH (FORCE)')


def test_serve_starts_no_filler_for_a_database_that_is_not_embedded(listings_db):
    assert embedded.start_background_fill({"NAME": "x"}) is False
    assert not filler.filler.running()


def _wait_until_stopped(fill: filler.BackgroundFill, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while fill.running() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_the_filler_runs_in_a_process_of_its_own_and_fills_the_database(deferred_database):
    """In a thread of the server it held the server's GIL (get p50 46 ms instead of 5)."""
    server, _, _ = deferred_database
    fill = filler.BackgroundFill()
    assert fill.start(server.conninfo(DBNAME))
    assert not fill.start(server.conninfo(DBNAME))  # one at a time
    pid = fill.pid()
    assert pid is not None and pid != os.getpid()
    assert psutil.Process(pid).nice() == filler.FILL_NICENESS
    _wait_until_stopped(fill, 180)
    assert not fill.running()
    with server.connect(DBNAME) as conn:
        done, total = background.counts(conn)
        assert done == total == ROWS
        assert not background.pending(conn)


def test_stopping_the_filler_ends_its_process_and_leaves_the_rest_for_the_next_start(
    deferred_database,
):
    server, _, _ = deferred_database
    fill = filler.BackgroundFill()
    fill.start(server.conninfo(DBNAME))
    fill.stop(timeout=60)
    assert not fill.running()
    with server.connect(DBNAME) as conn:
        done, total = background.counts(conn)
        assert done < total  # stopped before the model had embedded everything
        assert background.pending(conn)


def test_a_database_built_before_the_loader_vacuumed_is_vacuumed_at_the_next_start(
    deferred_database,
):
    """Its visibility map empty (an embedded server that stops with each command gives
    autovacuum no time): the next start vacuums it, once."""
    server, _, _ = deferred_database
    with server.connect(DBNAME) as conn:
        conn.execute("UPDATE property_listings SET title = title")  # every page touched
        conn.execute("ANALYZE property_listings")  # reads the emptied map into pg_class
        assert not all_visible(conn)
    ready = {"fts_config": settings.FTS_CONFIG, "demo_count": ROWS, "demo_seed": 5}
    embedded.ensure_database(server, dbname=DBNAME, loader=None, **ready)
    with server.connect(DBNAME) as conn:
        assert all_visible(conn)
        assert not schema.vacuum_if_never(conn)  # nothing to do the second time
