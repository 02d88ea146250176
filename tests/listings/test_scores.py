"""Scores an agent can read: the model's typical range, and what min_similarity removed."""

from __future__ import annotations

import pytest

from listings import describe, search
from listings.search.cut import CUT_NOTE
from listings.search.score_range import measured_ranges, score_range

pytestmark = pytest.mark.usefixtures("listings_access")


@pytest.fixture(autouse=True)
def measured_afresh():
    # Measured on this database: not a range an earlier test left (another database, or a
    # measurement that failed while a fault test had the database down).
    measured_ranges.clear()


SEED_EXAMPLE = "3-кімнатна квартира Київ продаж"


def test_a_threshold_that_empties_the_page_says_what_it_dropped():
    span = score_range()  # measured first, so the note quotes it
    page = search.semantic_search(query=SEED_EXAMPLE, min_similarity=0.99)
    uncut = search.semantic_search(query=SEED_EXAMPLE, limit=1)
    assert page.listings == []
    cut = page.similarity_cut
    assert cut is not None
    assert cut.dropped == uncut.total and cut.dropped > 0
    assert cut.best_score == uncut.listings[0].similarity_score < 0.99
    expected = CUT_NOTE.format(
        threshold=0.99,
        dropped=cut.dropped,
        total=uncut.total,
        best=cut.best_score,
        low=span["low"],
        high=span["high"],
    )
    assert cut.note == expected


def test_a_threshold_that_keeps_a_full_page_reports_nothing():
    page = search.semantic_search(query=SEED_EXAMPLE, min_similarity=-1.0, limit=5)
    assert len(page.listings) == 5
    assert page.similarity_cut is None
    assert search.semantic_search(query=SEED_EXAMPLE, limit=5).similarity_cut is None


def test_describe_schema_reports_the_models_score_range():
    span = describe.describe_schema()["embedding"]["score_range"]
    assert -1.0 <= span["low"] <= span["median_tenth"] <= span["median_best"] <= span["high"]
    assert span["high"] <= 1.0
    best = search.semantic_search(query=SEED_EXAMPLE, limit=1).listings[0].similarity_score
    assert span["low"] <= best <= span["high"]
