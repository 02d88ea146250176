"""EMBEDDER_THREADS caps the BLAS/OpenMP pools of the offline embedder when it is built."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from listings import embedders, threads


def _sizes() -> set[int]:
    return {int(pool["num_threads"]) for pool in threadpool_info()}


def test_building_the_offline_embedder_caps_blas_threads(settings):
    settings.EMBEDDER, settings.EMBEDDER_THREADS = "offline", 1
    assert threadpool_info(), "numpy's BLAS should be visible to threadpoolctl"
    with threadpool_limits(limits=2):  # a known start; restored on the way out
        assert _sizes() == {2}
        embedders.build_embedder()
        assert _sizes() == {1}
        assert set(threads.pool_sizes().values()) == {1}


def test_zero_leaves_the_libraries_defaults(settings):
    settings.EMBEDDER, settings.EMBEDDER_THREADS = "offline", 0
    with threadpool_limits(limits=2):
        assert threads.limit_threads() is None
        embedders.build_embedder()
        assert _sizes() == {2}


def test_one_thread_gives_the_same_vectors(settings):
    settings.EMBEDDER, settings.EMBEDDER_THREADS = "offline", 1
    model = embedders.OfflineEmbedder(dimension=settings.EMBEDDING_DIM)
    text = ["простора квартира з балконом біля парку"]
    with threadpool_limits(limits=2):
        wide = model.embed(text)
        threads.limit_threads()
        narrow = model.embed(text)
    assert np.allclose(wide, narrow, atol=1e-5)


def test_the_cap_holds_inside_the_models_own_forward_pass(settings, monkeypatch):
    """USE wraps each encode in its own threadpool limit; it must be EMBEDDER_THREADS."""
    settings.EMBEDDER, settings.EMBEDDER_THREADS = "offline", 1
    monkeypatch.setattr(embedders, "_use_model", None)
    model = embedders._load_use()
    seen: list[set[int]] = []
    forward = model._backend._encode

    def watched(texts):
        # BLAS only: an OpenMP pool (the e5 engine's, if loaded earlier) is not USE's to set.
        seen.append({int(p["num_threads"]) for p in threadpool_info() if p["user_api"] == "blas"})
        return forward(texts)

    monkeypatch.setattr(model._backend, "_encode", watched)
    with threadpool_limits(limits=2):
        embedders.OfflineEmbedder(dimension=settings.EMBEDDING_DIM).embed(["квартира з балконом"])
    assert seen == [{1}]
