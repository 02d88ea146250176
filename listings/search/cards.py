"""Listing cards for result pages, and the full card of one listing (get_listing)."""

from __future__ import annotations

from typing import Any

from ..compiled import CompiledQuery, Row
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
from ..runtime import LISTINGS, SNIPPET_CHARS, _database, _timing
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


def _card(listing: PropertyListing | Row, **scores: Any) -> ListingCard:
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


def _listing_by_id(listing_id: Any) -> Any:
    # [:1], not first(): an id is one listing, and first()'s ORDER BY id costs a compile.
    return (
        PropertyListing.objects.select_related("property_type")
        .defer("embedding", "search_vector", "raw_data_id", "created_at", "updated_at")
        .with_has_embedding()
        .filter(id=listing_id)[:1]
    )


# Compiled once per alias: building and compiling cost more than the lookup itself.
_BY_ID = CompiledQuery(_listing_by_id)


def _detail_fields(listing_id: int) -> dict[str, Any] | None:
    """The listing's ListingDetail fields from the database, or None when there is none."""
    rows = _BY_ID.rows(listing_id, LISTINGS)
    if rows is not None:
        if not rows:
            return None
        row = rows[0]
        data = {name: row[name] for name in ListingDetail.model_fields if name in row}
        data["property_type"] = row.get("property_type__name")
        data["has_embedding"] = bool(row["has_usable_embedding"])
        return data
    listing = next(iter(_listing_by_id(listing_id)), None)  # the ORM's way, if not compiled
    if listing is None:
        return None
    fields = ListingDetail.model_fields
    data = {name: getattr(listing, name) for name in fields if hasattr(listing, name)}
    data["property_type"] = listing.property_type.name if listing.property_type else None
    data["has_embedding"] = bool(listing.has_usable_embedding)
    return data


@checked
def get_listing(*, listing_id: ListingId) -> ListingDetail:
    """The full card of one listing, any status; service columns never appear."""
    with _database():
        data = _detail_fields(listing_id)
    if data is None:
        raise NotFound(LISTING_NOT_FOUND.format(listing_id=listing_id))
    data["truncated_fields"] = bound_fields(data, DETAIL_TEXT_LIMITS, DETAIL_SHORT_TEXT_LIMIT)
    _timing().rows = 1
    return ListingDetail.model_validate(data)
