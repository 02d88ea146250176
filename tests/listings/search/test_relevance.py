"""Pages of relevance-ordered matches (the admin's changelist search) read without sorting
every match: a word in most listings timed out at 1 000 000 listings as one sorted query."""

from __future__ import annotations

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from listings import search
from listings.models import PropertyListing

pytestmark = pytest.mark.usefixtures("listings_access")

WINDOWS = [(0, 10), (5, 25), (10, 30), (30, 45), (100, 110), (10_000, 10_010)]


def _ordered(word: str, **narrowed):
    base = PropertyListing.objects.filter(**narrowed)  # as the admin's filtered changelist
    matched, mode = search.fulltext_queryset(query=word, base=base)
    assert mode == "fulltext"
    return search.by_relevance(matched, query=word)


@pytest.mark.parametrize("start, stop", WINDOWS)
def test_a_slice_is_the_one_the_whole_sort_gives(settings, start, stop):
    settings.FTS_RANK_CANDIDATES = 20  # most of "квартира"'s matches are past the candidates
    ordered = _ordered("квартира")
    assert search.is_by_relevance(ordered)
    expected = [row.id for row in ordered[start:stop]]
    assert [row.id for row in search.relevance_slice(ordered, start, stop)] == expected


def test_a_word_with_fewer_matches_than_candidates_pages_the_same(settings):
    settings.FTS_RANK_CANDIDATES = 2000
    ordered = _ordered("балкон", city="Львів")
    total = ordered.count()
    assert 0 < total < settings.FTS_RANK_CANDIDATES
    for start, stop in [(0, 10), (total - 5, total + 5), (total, total + 10)]:
        expected = [row.id for row in ordered[start:stop]]
        assert [row.id for row in search.relevance_slice(ordered, start, stop)] == expected


def test_a_page_among_the_candidates_sorts_only_them(settings):
    settings.FTS_RANK_CANDIDATES = 20
    ordered = _ordered("квартира")
    with CaptureQueriesContext(connections["listings"]) as queries:
        search.relevance_slice(ordered, 0, 10)
    (sent,) = [q["sql"] for q in queries.captured_queries]
    # the page's rows are limited to the candidates before they are ordered
    assert sent.count("LIMIT 20") >= 1 and '"id" IN (SELECT' in sent


def test_other_orderings_are_not_taken_for_relevance():
    ordered = _ordered("квартира")
    assert not search.is_by_relevance(ordered.order_by("-publish_date"))
    assert not search.is_by_relevance(ordered.model.objects.order_by("-id"))
