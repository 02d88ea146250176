"""Typed results of listings.market: price trends, a listing against its market, duplicates."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from .results import UntrustedContent
from .types import Period


class TrendPoint(BaseModel):
    period: str = Field(description="'2026-05' for a month, '2026-Q2' for a quarter.")
    count: int = Field(description="Listings published in the period.")
    priced_count: int = Field(description="Of them, with a price (the median's sample).")
    median_price: float | None
    median_price_per_m2: float | None = Field(
        None, description="Median of price / total area over the listings that have both."
    )
    low_sample: bool = Field(
        description="True when fewer than min_sample listings carry the figures: read them "
        "as noise, not as a movement. Periods are never smoothed or merged."
    )


class TrendSeries(BaseModel):
    group: str | int | None = Field(None, description="The group's value (absent overall).")
    count: int
    currency: str = Field(
        description="The currency of the series' figures: the result's, but grouped by "
        "deal_type with no currency asked, the one the group's listings are priced in."
    )
    points: list[TrendPoint]
    change_pct: float | None = Field(
        None,
        description="Change of median_price_per_m2 (else median_price) from the first to the "
        "last period that is not low_sample, in per cent; None with fewer than two.",
    )


class TrendResult(BaseModel):
    currency: str
    period: Period
    group_by: str | None
    filters: dict[str, Any]
    min_sample: int = Field(description="Listings a period needs not to be low_sample.")
    series: list[TrendSeries]
    groups_truncated: bool = False
    warnings: list[str] = Field(default_factory=list)


class PriceBand(BaseModel):
    low: float
    high: float
    count: int


class PriceDistribution(BaseModel):
    currency: str
    filters: dict[str, Any]
    total: int = Field(description="Listings with a price under the filters.")
    below: int = Field(description="Listings cheaper than the first band (the cheapest 2 %).")
    above: int = Field(description="Listings dearer than the last band (the dearest 2 %).")
    bands: list[PriceBand]


class Comparable(BaseModel):
    id: int
    district: str | None
    rooms_count: int | None
    total_area: float | None
    price: float | None = Field(description="In the result's currency.")
    price_per_m2: float | None


class MarketContext(BaseModel):
    listing_id: int
    currency: str
    price: float | None = Field(description="The listing's price in `currency`.")
    price_per_m2: float | None
    scope: Literal["district", "city", "none"] = Field(
        description="Where the comparables come from: the listing's district when it has "
        "enough of them, else its whole city."
    )
    criteria: dict[str, Any] = Field(description="What a comparable has in common with it.")
    comparables_count: int = Field(description="Active comparables with a price.")
    median_price: float | None
    median_price_per_m2: float | None
    percentile: float | None = Field(
        None, description="Share of comparables cheaper than the listing (0-100), by price."
    )
    difference_pct: float | None = Field(
        None,
        description="The listing against the comparables' median (per m² when it has an "
        "area, else the price): negative is cheaper.",
    )
    verdict: str = Field(description="The comparison in plain Ukrainian.")
    reposts_left_out: list[int] = Field(
        default_factory=list,
        description="The listing's own re-posts (find_duplicates), not counted as its "
        "comparables: the same flat would pull the median to its own price.",
    )
    examples: list[Comparable] = Field(
        default_factory=list, description="A few comparables closest in area."
    )


class DuplicateMatch(BaseModel):
    id: int
    title: str | None
    listing_status: str | None
    price: float | None
    currency: str | None
    total_area: float | None
    url_source: str | None
    publish_date: datetime | None
    evidence: dict[str, Any] = Field(
        description="Why it is thought the same property: area and price differences, text "
        "similarity of the embeddings, same contact phone, same district and floor."
    )


class DuplicatesResult(BaseModel):
    listing_id: int
    duplicate_group: int = Field(
        description="The smallest id among the listing and its duplicates: the same for "
        "every listing of the group."
    )
    duplicates: list[DuplicateMatch]
    rule: str = Field(description="When two listings are taken for one property.")
    untrusted_content: UntrustedContent = Field(default_factory=UntrustedContent)
