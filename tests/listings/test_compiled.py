"""listings.compiled: SQL the ORM wrote once, sent again with each call's parameter."""

from __future__ import annotations

import pytest
from django.db.models import F, Q

from listings import search
from listings.compiled import UNCOMPILABLE, CompiledQuery
from listings.models import PropertyListing
from listings.results import ListingDetail
from listings.runtime import LISTINGS
from listings.search import cards

pytestmark = pytest.mark.usefixtures("listings_access")


def _orm_fields(listing_id: int) -> dict:
    listing = (
        PropertyListing.objects.select_related("property_type")
        .with_has_embedding()
        .get(id=listing_id)
    )
    data = {
        name: getattr(listing, name)
        for name in ListingDetail.model_fields
        if hasattr(listing, name)
    }
    data["property_type"] = listing.property_type.name if listing.property_type else None
    data["has_embedding"] = bool(listing.has_usable_embedding)
    return data


def test_a_listing_from_the_compiled_statement_is_the_one_the_orm_loads():
    # listings with and without a property type, an embedding, nulls in many columns
    ids = set(PropertyListing.objects.order_by("id").values_list("id", flat=True)[:40])
    ids |= set(
        PropertyListing.objects.filter(
            Q(property_type__isnull=True) | Q(embedding__isnull=True) | Q(price__isnull=True)
        ).values_list("id", flat=True)[:20]
    )
    assert cards._BY_ID.statement(LISTINGS) is not UNCOMPILABLE
    for listing_id in sorted(ids):
        assert cards._detail_fields(listing_id) == _orm_fields(listing_id), listing_id
    assert cards._detail_fields(-1) is None


def test_the_compiled_statement_is_written_once_and_carries_each_calls_id():
    first, second = PropertyListing.objects.order_by("id").values_list("id", flat=True)[:2]
    statement = cards._BY_ID.statement(LISTINGS)
    assert cards._BY_ID.statement(LISTINGS) is statement
    assert search.get_listing(listing_id=first).id == first
    assert search.get_listing(listing_id=second).id == second


def test_a_query_whose_parameter_appears_twice_is_left_to_the_orm():
    # (so is one with a field that cannot hold the sentinel: Django drops that condition, and
    # the sentinel is found fewer times than it was given)
    twice = CompiledQuery(
        lambda value: PropertyListing.objects.filter(Q(id=value) | Q(id__gt=value)).annotate(
            next_id=F("id") + 1
        )
    )
    assert twice.statement(LISTINGS) is UNCOMPILABLE
    assert twice.rows(1, LISTINGS) is None


def test_get_listing_reads_through_the_orm_when_its_statement_is_not_compiled(monkeypatch):
    uncompilable = CompiledQuery(
        lambda value: PropertyListing.objects.filter(Q(id=value) | Q(id__gt=value))
    )
    monkeypatch.setattr(cards, "_BY_ID", uncompilable)
    listing_id = PropertyListing.objects.order_by("id").values_list("id", flat=True)[0]
    assert cards._detail_fields(listing_id) == _orm_fields(listing_id)
    assert search.get_listing(listing_id=listing_id).id == listing_id
