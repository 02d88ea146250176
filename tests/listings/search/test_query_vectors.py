"""A query vector from the embedder's cache is prepared for statements once (issue 13)."""

from __future__ import annotations

import pytest

from listings import querysets, search
from listings.embedders import get_embedder
from listings.errors import EmbeddingUnavailable
from listings.search import vector as vector_search

pytestmark = pytest.mark.usefixtures("listings_access")


def test_the_caches_tuple_is_prepared_once_and_a_copy_again(monkeypatch):
    formatted = []
    original = querysets.vector_text
    monkeypatch.setattr(querysets, "vector_text", lambda v: formatted.append(1) or original(v))
    values = tuple(float(i % 7) for i in range(16))

    first, usable = vector_search._prepared(values)
    again, _ = vector_search._prepared(values)
    equal, _ = vector_search._prepared(tuple(list(values)))  # equal, another object
    listed, _ = vector_search._prepared(list(values))  # a list may change: never kept

    assert usable and again is first
    assert equal is not first and listed is not first
    assert len(formatted) == 3
    assert first.to_text() == listed.to_text()


def test_a_cached_vector_without_a_direction_is_refused_every_time():
    embedder = get_embedder()
    query = "вектор без напрямку"
    embedder.cache.put(embedder.query_text(query), (0.0,) * embedder.dimension)
    for _ in range(2):  # the second from the prepared vector's remembered answer
        with pytest.raises(EmbeddingUnavailable):
            search.semantic_search(query=query, limit=5)


def test_the_prepared_vectors_stay_bounded():
    kept = [tuple([float(i), 1.0]) for i in range(vector_search.PREPARED_SIZE + 10)]
    for values in kept:
        vector_search._prepared(values)
    assert len(vector_search._PREPARED) == vector_search.PREPARED_SIZE
    assert vector_search._PREPARED.holds(kept[-1]) and not vector_search._PREPARED.holds(kept[0])
