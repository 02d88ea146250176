"""The mixed tool calls of the load tests (`soak`, and `soak_fleet` through the balancer)."""

from __future__ import annotations

from typing import Any

MIX: list[tuple[str, dict[str, Any]]] = [
    ("search_similar_listings", {"query": "двокімнатна квартира біля метро", "limit": 10}),
    ("search_similar_listings", {"query": "будинок з садом", "filters": {"deal_type": "sale"}}),
    ("search_by_metadata", {"query": "квартира з балконом", "limit": 10}),
    ("search_by_metadata", {"filters": {"city": "Київ"}, "sort_by": "price_asc"}),
    ("hybrid_search", {"query": "простора квартира з ремонтом", "limit": 10}),
    ("get_listing_by_id", {"listing_id": 1}),
    ("find_similar_to_listing", {"listing_id": 2}),
    ("listing_stats", {"filters": {"deal_type": "sale"}, "group_by": "city"}),
    ("get_listing_by_id", {"listing_id": 10**12}),  # not_found: an expected error result
]
EXPECTED_ERRORS = {"not_found"}
