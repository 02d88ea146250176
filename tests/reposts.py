"""A listing whose own re-post is among its neighbours: "more like this" must leave it out."""

from __future__ import annotations

from typing import Any

from listings import market, search
from listings.models import PropertyListing

# The generator's planted copies carry another site's address (demo.generator).
OUR_SITE = "https://example-realty.ua/"


def reposted_listing(filters: dict[str, Any] | None = None) -> tuple[int, set[int], list[int]]:
    """The first planted copy with a re-post of itself among its first ten neighbours under
    `filters`: its id, its re-posts (find_duplicates) and its neighbours' ids as
    similar_to_listing ranks them, re-posts included."""
    copies = PropertyListing.objects.exclude(url_source__startswith=OUR_SITE)
    for listing_id in copies.order_by("id").values_list("id", flat=True)[:40]:
        reposts = {m.id for m in market.find_duplicates(listing_id=listing_id).duplicates}
        page = search.similar_to_listing(listing_id=listing_id, filters=filters, limit=10)
        neighbours = [card.id for card in page.listings]
        if reposts & set(neighbours):
            return listing_id, reposts, neighbours
    raise AssertionError("no planted copy has a re-post among its neighbours")
