"""Statements each search sends to the listings database (issue 13: the fewest per call).

Counted as the server's log line counts them: BEGIN/COMMIT of a transaction are not
statements. A query someone adds to one of these paths makes its test fail.
"""

from __future__ import annotations

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from pgvector import Vector

from listings import querysets, search
from listings.models import PropertyListing
from listings.search import text as text_search

pytestmark = pytest.mark.usefixtures("listings_access")

QUERY = "двокімнатна квартира біля метро з балконом"
TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def statements(call):
    """What `call()` sent, warmed first (vocabulary, capabilities, plans are remembered).

    The fewer of two counted calls: a remembered fact (embedding progress: 5 s) can expire
    between the warm-up and a count and be read again once; a statement the path sends is
    in both."""
    call()
    counted = []
    for _ in range(2):
        with CaptureQueriesContext(connections["listings"]) as captured:
            result = call()
        queries = captured.captured_queries
        counted.append(
            (result, [q["sql"] for q in queries if not q["sql"].startswith(TRANSACTION)])
        )
    return min(counted, key=lambda run: len(run[1]))


def test_get_listing_is_one_statement():
    listing_id = PropertyListing.objects.order_by("id").values_list("id", flat=True).first()
    _, sent = statements(lambda: search.get_listing(listing_id=listing_id))
    assert len(sent) == 1


@pytest.mark.parametrize("sort_by", ["date_desc", "price_asc"])
def test_a_filter_page_and_its_total_are_one_statement(sort_by):
    filters = {"city": "Київ"}
    page, sent = statements(
        lambda: search.fulltext_search(filters=filters, sort_by=sort_by, limit=10)
    )
    assert len(sent) == 1 and "AS capped" in sent[0]
    counted = PropertyListing.objects.filter(city="Київ", listing_status="active").count()
    assert len(page.listings) == 10 and (page.total, page.total_exact) == (counted, True)


def test_full_text_is_its_index_check_and_one_statement_for_page_and_total():
    page, sent = statements(lambda: search.fulltext_search(query="балкон", limit=10))
    # EXISTS after its settings (GIN only) in one query string, the page with its count
    assert len(sent) == 2
    assert sent[0].startswith("SELECT set_config('enable_seqscan', 'off', true)")
    assert "search_vector" in sent[0] and "AS capped" in sent[1]
    matching = PropertyListing.objects.filter(listing_status="active")
    counted = matching.filter(search_vector=search._fts_query("балкон")).count()
    assert (page.total, page.total_exact) == (counted, True)


def test_past_the_cap_the_estimate_is_remembered_and_the_page_is_not_counted(settings):
    settings.TOTAL_COUNT_CAP = 100
    text_search._broad.clear()
    filters = {"listing_status": "any"}
    with CaptureQueriesContext(connections["listings"]) as first:
        counted_page = search.fulltext_search(filters=filters, limit=10)
    explains = [q["sql"] for q in first.captured_queries if q["sql"].startswith("EXPLAIN")]
    assert len(explains) == 1  # counted past the cap: the planner's estimate is the total
    page, sent = statements(lambda: search.fulltext_search(filters=filters, limit=10))
    assert len(sent) == 1 and "AS capped" not in sent[0]
    assert page.total_exact is False and page.total == counted_page.total
    assert (
        0.5 * PropertyListing.objects.count() <= page.total <= 2 * PropertyListing.objects.count()
    )


def test_a_page_past_the_end_still_gets_its_total():
    page, sent = statements(
        lambda: search.fulltext_search(filters={"city": "Київ"}, limit=10, offset=5000)
    )
    counted = PropertyListing.objects.filter(city="Київ", listing_status="active").count()
    assert page.listings == [] and (page.total, page.total_exact) == (counted, True)
    assert len(sent) == 3  # the empty page, then total_of's EXPLAIN and count


def test_semantic_search_on_the_exact_path_is_two_statements():
    # A selective filter: one that keeps most of this small table is the index's.
    lviv = {"city": "Львів"}
    page, sent = statements(lambda: search.semantic_search(query=QUERY, limit=10, filters=lviv))
    assert page.index_used == search.EXACT_PATH
    assert len(sent) == 2  # ids ranked and counted in one scan, then their cards


@pytest.mark.parametrize("run", [search.semantic_search, search.hybrid_search])
def test_a_search_formats_its_query_vector_once(run, monkeypatch):
    """Each distance expression built from a list formats 768 floats again (three per
    semantic call before QueryVector): the page's statements share one text, and a query
    whose vector the embedder's cache holds is not formatted again."""
    formatted = []
    original = querysets.vector_text

    def counting(values):
        formatted.append(values)
        return original(values)

    run(query=QUERY, limit=10, filters={"city": "Київ"})  # warm: vocabulary, plans
    monkeypatch.setattr(Vector, "to_text", lambda vector: counting(vector.to_list()))
    monkeypatch.setattr(querysets, "vector_text", counting)
    fresh = f"{QUERY} {run.__name__}"  # a query not embedded yet
    first = run(query=fresh, limit=10, filters={"city": "Київ"})
    assert len(formatted) == 1
    again = run(query=fresh, limit=10, filters={"city": "Київ"})
    assert len(formatted) == 1
    assert [card.id for card in again.listings] == [card.id for card in first.listings]


def test_hybrid_search_sends_the_pages_cards_in_one_statement():
    """Ranked by both sides, then one statement for the cards: the headline of the words
    matched only for the listings the text side alone found (they were two statements)."""
    page, sent = statements(lambda: search.hybrid_search(query=QUERY, limit=10))
    text_only = [card for card in page.listings if card.semantic_rank is None]
    both = [card for card in page.listings if card.semantic_rank is not None]
    assert text_only and both  # the page needs both kinds of card
    # the semantic ids, the full-text check, the text ids, the cards
    assert len(sent) == 4
    (cards,) = [sql for sql in sent if "ts_headline" in sql]
    assert "CASE WHEN" in cards and sent[-1] == cards
    assert all("«" in card.snippet for card in text_only)
    assert not any("«" in card.snippet for card in both)
