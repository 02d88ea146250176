"""Listing cards for result pages, and the full card of one listing (get_listing)."""

from __future__ import annotations

from typing import Any

from ..errors import LISTING_NOT_FOUND, NotFound
from ..models import PropertyListing
from ..results import (
    CARD_TEXT_LIMITS,
    DETAIL_SHORT_TEXT_LIMIT,
    DETAIL_TEXT_LIMITS,
    ListingCard,
    ListingDetail,
    bound_fields,
    bound_text,
)
from ..runtime import SNIPPET_CHARS, _database, _timing
from ..types import ListingId, checked


def _snippet(text: str | None, limit: int = SNIPPET_CHARS) -> tuple[str | None, bool]:
    if not text:
        return None, False
    text = " ".join(text.split())
    if len(text) <= limit:
        return text, False
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",.;:—-")
    return cut + "…", True


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _card(listing: PropertyListing, **scores: Any) -> ListingCard:
    headline = getattr(listing, "headline", None)
    snippet, truncated = _snippet(headline or listing.description)
    if (
        headline
        and listing.description
        and len(" ".join(listing.description.split())) > len(headline)
    ):
        truncated = True
    snippet, cut = bound_text(snippet, CARD_TEXT_LIMITS["snippet"])
    text = {
        "title": listing.title,
        "currency": listing.currency,
        "deal_type": listing.deal_type,
        "listing_status": listing.listing_status,
        "city": listing.city,
        "district": listing.district,
        "metro_station": listing.metro_station,
        "property_type": listing.property_type.name if listing.property_type else None,
        "url_source": listing.url_source,
    }
    truncated_fields = bound_fields(text, CARD_TEXT_LIMITS)
    return ListingCard(
        id=listing.id,
        price=_float(listing.price),
        rooms_count=listing.rooms_count,
        total_area=_float(listing.total_area),
        floor=listing.floor,
        floors_count=listing.floors_count,
        publish_date=listing.publish_date,
        snippet=snippet,
        snippet_truncated=truncated or cut,
        truncated_fields=truncated_fields,
        **text,
        **scores,
    )


@checked
def get_listing(*, listing_id: ListingId) -> ListingDetail:
    """The full card of one listing, any status; service columns never appear."""
    with _database():
        # [:1], not first(): an id is one listing, and first()'s ORDER BY id costs a compile.
        found = (
            PropertyListing.objects.select_related("property_type")
            .defer("embedding", "search_vector", "raw_data_id", "created_at", "updated_at")
            .with_has_embedding()
            .filter(id=listing_id)[:1]
        )
        listing = next(iter(found), None)
    if listing is None:
        raise NotFound(LISTING_NOT_FOUND.format(listing_id=listing_id))
    data = {
        name: getattr(listing, name)
        for name in ListingDetail.model_fields
        if hasattr(listing, name)
    }
    data["property_type"] = listing.property_type.name if listing.property_type else None
    data["has_embedding"] = bool(listing.has_usable_embedding)
    data["truncated_fields"] = bound_fields(data, DETAIL_TEXT_LIMITS, DETAIL_SHORT_TEXT_LIMIT)
    _timing().rows = 1
    return ListingDetail.model_validate(data)
