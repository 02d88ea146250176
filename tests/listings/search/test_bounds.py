"""Card and detail text bounds: a card's JSON stays within CARD_MAX_BYTES whatever it holds."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from listings import search
from listings.models import PropertyListing, PropertyType
from listings.results import CARD_MAX_BYTES, CARD_TEXT_LIMITS, PAGE_MAX_BYTES, bound_text

COSTLY = '😀"\\\x07'  # 4, 2, 2 and 6 bytes of JSON for four characters


def compact(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("text", ["квартира " * 100, COSTLY * 500, "a" * 1000])
def test_bound_text_keeps_the_character_and_byte_limits(text):
    cut, truncated = bound_text(text, 200)
    assert truncated is True and cut.endswith("…")
    assert len(cut) <= 200
    assert len(compact(cut)) <= 2 * 200 + 2


def test_short_text_is_left_alone():
    assert bound_text("Київ", 100) == ("Київ", False)
    assert bound_text(None, 100) == (None, False)


def test_the_largest_card_is_within_its_budget():
    huge = COSTLY * 10_000
    listing = PropertyListing(
        id=2**63 - 1,
        price=123456789012.12,
        total_area=12345678.12,
        rooms_count=2**31 - 1,
        floor=2**31 - 1,
        floors_count=2**31 - 1,
        publish_date=datetime(2026, 12, 1, 23, 59, 59, 999999, tzinfo=UTC),
        **{name: huge for name in CARD_TEXT_LIMITS if name not in {"snippet", "property_type"}},
        description=huge,
    )
    kind = PropertyType(id=1, slug="x", name=huge)
    listing._state.db = kind._state.db = "listings"  # as if read: assigning asks no router
    listing.property_type = kind
    card = search._card(
        listing,
        similarity_score=-0.123456,
        distance=1.123456,
        rank_score=0.123456,
        fused_score=0.123456,
        semantic_rank=10_000,
        fulltext_rank=10_000,
    )
    data = card.model_dump(mode="json")
    assert len(compact(data)) <= CARD_MAX_BYTES
    assert set(data["truncated_fields"]) == set(CARD_TEXT_LIMITS) - {"snippet"}
    assert data["snippet_truncated"] is True
    assert 50 * len(compact(data)) < PAGE_MAX_BYTES
