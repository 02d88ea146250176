"""The queryset methods only build SQL: compiled with the listings alias's backend, no test
here touches a database (pytest-django refuses any connection in a test without a db mark)."""

from __future__ import annotations

import random

import pytest
from django.contrib.postgres.search import SearchQuery
from pgvector import Vector

from listings.filters import parse_filters
from listings.models import PropertyListing
from listings.querysets import PropertyListingQuerySet, QueryVector, substring_pattern

RATES = {"USD": 1.0, "EUR": 0.92, "UAH": 41.5}
VECTOR = [0.1, 0.2, 0.3]


def compiled(qs: PropertyListingQuerySet) -> tuple[str, tuple]:
    sql, params = qs.query.get_compiler(using="listings").as_sql()
    return sql, tuple(params)


def listings() -> PropertyListingQuerySet:
    return PropertyListing.objects.using("listings").all()


def test_filtered_puts_each_filter_in_the_where_clause_as_a_parameter():
    filters = parse_filters({"city": "Київ", "min_rooms": 2, "max_area": 80})
    sql, params = compiled(listings().filtered(filters, RATES))
    where = sql.split(" WHERE ", 1)[1]
    assert '"property_listings"."city" = %s' in where
    assert '"property_listings"."rooms_count" >= %s' in where
    assert '"property_listings"."total_area" <= %s' in where
    assert "Київ" in params and 2 in params
    assert "Київ" not in sql  # values travel as parameters, never inside the SQL text


def test_no_filters_means_active_listings_and_those_without_a_status():
    sql, params = compiled(listings().filtered(parse_filters(None), RATES))
    where = sql.split(" WHERE ", 1)[1]
    assert '"property_listings"."listing_status" IN (%s)' in where
    assert '"property_listings"."listing_status" IS NULL' in where
    assert "active" in params


def test_nearest_orders_by_cosine_distance_then_id():
    sql, _ = compiled(listings().with_embedding().nearest(VECTOR))
    select, order = sql.split(" ORDER BY ", 1)
    assert '"embedding" <=> %s) AS "distance"' in select
    # The distance by its position in the select list, then the id as a tie-breaker.
    position = select.split(" FROM ", 1)[0].count(", ") + 1
    assert order == f'{position} ASC, "property_listings"."id" ASC'
    assert '"property_listings"."embedding" IS NOT NULL' in sql


def test_each_metric_has_its_own_pgvector_operator():
    base = listings().nearest(VECTOR)
    assert "<->" in compiled(base.with_metric(VECTOR, "l2"))[0]
    assert "<#>" in compiled(base.with_metric(VECTOR, "inner_product"))[0]
    assert "<->" not in compiled(base.with_metric(VECTOR, "cosine"))[0]


def test_a_cosine_page_carries_its_query_vector_once():
    """Cosine's metric is the ordering distance: a second expression would send and parse
    the whole vector twice per statement."""
    vector = QueryVector([0.25, -0.5, 0.125])
    sql, params = compiled(
        listings().with_embedding().nearest(vector).with_metric(vector, "cosine")
    )
    text = vector.to_text()
    assert sql.count("<=>") == 1 and params.count(text) == 1
    sql, params = compiled(listings().with_embedding().nearest(vector).with_metric(vector, "l2"))
    assert sql.count("<=>") == 1 and sql.count("<->") == 1 and params.count(text) == 2


def test_the_query_vector_text_is_the_float4_values_exactly_and_short():
    rng = random.Random(7)
    values = [rng.uniform(-1, 1) for _ in range(768)] + [1e-8, -3.4e38, 0.0]
    text = QueryVector(values).to_text()
    assert Vector.from_text(text) == Vector(values)  # every float32 back, bit for bit
    assert len(text) < 0.7 * len(Vector(values).to_text())


def test_matching_filters_by_the_text_query_and_ranks_by_cover_density():
    query = SearchQuery("квартира", config="simple")
    sql, params = compiled(listings().matching(query))
    assert "@@" in sql and "plainto_tsquery" in sql
    assert "ts_rank_cd" in sql
    assert "квартира" in params


def test_price_sorts_put_unpriced_listings_last_in_both_directions():
    priced = listings().with_price_in("USD", RATES)
    for order in ("price_asc", "price_desc"):
        sql, _ = compiled(priced.sorted_by(order))
        assert "NULLS LAST" in sql.split(" ORDER BY ", 1)[1]


def test_cards_fetch_neither_the_embedding_nor_the_search_vector():
    sql, _ = compiled(listings().cards())
    select = sql.split(" FROM ", 1)[0]
    assert '"embedding"' not in select and '"search_vector"' not in select
    assert '"property_types"' in sql  # the type's name comes in the same query


def test_any_of_sends_every_id_as_one_array_parameter():
    for ids in ([5], [3, 1, 4, 1, 5, 9, 2, 6]):
        sql, params = compiled(listings().filter(id__any_of=ids))
        assert '"property_listings"."id" = ANY(%s)' in sql
        assert params == (ids,)


@pytest.mark.parametrize(
    ("text", "word", "found"),
    [
        ("Простора ТЕРАСА з видом", "тераса", True),
        ("гарантія 100% чистоти", "100%", True),
        ("a_b", "a_b", True),
        ("axb", "a_b", False),  # no wildcard: LIKE's _ and %
        ("abc", "a.c", False),  # no regular expression either
        ("a.c", "a.c", True),
        ("back\\slash", "back\\slash", True),
        ("вартість 1 000 ГРН", "грн", True),
        ("x'; --", "'; --", True),
        ("(?i) [a] {2} ^$ |*+", "(?i) [a] {2} ^$ |*+", True),
        ("кімната", "квартира", False),
    ],
)
def test_a_substring_pattern_matches_its_word_alone_in_any_case(listings_cursor, text, word, found):
    """containing_words goes through patterns made before the statement (so the substring
    fallback can be compiled once): the word as it is, in any case, and nothing else."""
    listings_cursor.execute("SELECT %s::text ~* %s", [text, substring_pattern(word)])
    assert listings_cursor.fetchone()[0] is found
    sql, params = compiled(listings().containing_words([word]).only("id"))
    assert sql.count("::text ~* %s") == 3 and params == (substring_pattern(word),) * 3


def test_a_property_type_known_to_the_vocabulary_is_matched_by_its_ids():
    from listings.vocabulary import Vocabulary

    filters = parse_filters({"property_type": "house"})
    known = Vocabulary(property_types={"house": (3, 7), "apartment": (1,)})
    sql, params = compiled(listings().filtered(filters, RATES, known))
    where = sql.split(" WHERE ", 1)[1]
    # ids the planner has statistics for, no join to property_types
    assert '"property_listings"."property_type_id" IN (%s, %s)' in where
    assert "property_types" not in sql and 3 in params and 7 in params
    # a slug the vocabulary has not seen (a type added since it was read): the join
    for vocabulary in (Vocabulary(property_types={"apartment": (1,)}), Vocabulary(), None):
        sql, params = compiled(listings().filtered(filters, RATES, vocabulary))
        assert '"property_types"."slug" = %s' in sql and "house" in params
