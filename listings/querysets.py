"""Chainable QuerySet methods that only build SQL (no I/O, no settings beyond arguments)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank
from django.db import models
from django.db.models import (
    BooleanField,
    Case,
    F,
    FloatField,
    Func,
    Q,
    Value,
    When,
)
from django.db.models.functions import Cast
from pgvector.django import CosineDistance, L2Distance, MaxInnerProduct

if TYPE_CHECKING:
    from .filters import Filters

CARD_FIELDS: tuple[str, ...] = (
    "id",
    "title",
    "description",
    "price",
    "currency",
    "deal_type",
    "listing_status",
    "city",
    "district",
    "metro_station",
    "rooms_count",
    "total_area",
    "floor",
    "floors_count",
    "property_type__name",
    "publish_date",
    "url_source",
)


def price_in(currency: str, rates: Mapping[str, float]) -> Case:
    """The listing's price converted to `currency` (NULL for unknown currencies)."""
    target = rates[currency]
    return Case(
        *(
            When(currency=code, then=Cast(F("price"), FloatField()) * Value(target / rate))
            for code, rate in rates.items()
        ),
        default=Value(None),
        output_field=FloatField(),
    )


def price_bounds(
    low: float | None, high: float | None, currency: str, rates: Mapping[str, float]
) -> Q:
    """Price bounds in `currency` as one range per listing currency, so the btree index serves."""
    condition = Q()
    for code, rate in rates.items():
        factor = rate / rates[currency]
        per_currency = Q(currency=code)
        if low is not None:
            per_currency &= Q(price__gte=low * factor)
        if high is not None:
            per_currency &= Q(price__lte=high * factor)
        condition |= per_currency
    return condition


# An embedding with a direction. pgvector refuses NaN and infinite elements, so a zero norm is
# the one vector without a cosine distance. Written as `<> 0`, which the planner expects to
# keep nearly every row (`> 0` it would guess keeps a third, and then skip the HNSW index).
USABLE_EMBEDDING = Func(
    F("embedding"),
    function="vector_norm",
    template="%(function)s(%(expressions)s) <> 0",
    output_field=BooleanField(),
)


class PropertyListingQuerySet(models.QuerySet):
    def filtered(self, filters: Filters, rates: Mapping[str, float]) -> PropertyListingQuerySet:
        q = Q()
        for name in ("city", "district", "metro_station", "deal_type", "property_type_id"):
            value = getattr(filters, name)
            if value is not None:
                q &= Q(**{name: value})
        if filters.property_type is not None:
            q &= Q(property_type__slug=filters.property_type)
        if filters.listing_status != "any":
            q &= Q(listing_status=filters.listing_status)
        if filters.min_price is not None or filters.max_price is not None:
            q &= price_bounds(filters.min_price, filters.max_price, filters.currency, rates)
        for name, lookup in (
            ("rooms_count", "rooms_count"),
            ("min_rooms", "rooms_count__gte"),
            ("max_rooms", "rooms_count__lte"),
            ("min_area", "total_area__gte"),
            ("max_area", "total_area__lte"),
            ("floor", "floor"),
            ("min_floor", "floor__gte"),
            ("max_floor", "floor__lte"),
            ("building_type", "building_type"),
            ("renovation_status", "renovation_status"),
            ("published_after", "publish_date__date__gte"),
        ):
            value = getattr(filters, name)
            if value is not None:
                q &= Q(**{lookup: value})
        if filters.has_balcony is not None:
            q &= Q(balcony_count__gt=0) if filters.has_balcony else Q(balcony_count=0)
        return self.filter(q)

    def with_embedding(self) -> PropertyListingQuerySet:
        """Listings whose embedding has a direction: an all-zero vector has no cosine
        distance (NaN), and would otherwise come back as an arbitrary neighbour."""
        return self.filter(embedding__isnull=False).filter(USABLE_EMBEDDING)

    def with_has_embedding(self) -> PropertyListingQuerySet:
        """`has_usable_embedding`: whether 'more like this' can start from the listing."""
        return self.annotate(has_usable_embedding=USABLE_EMBEDDING)

    def nearest(self, vector: Sequence[float]) -> PropertyListingQuerySet:
        """Order by cosine distance: the only operator class the HNSW index has.

        Callers narrow to with_embedding() first; a listing without one sorts last."""
        return self.annotate(distance=CosineDistance("embedding", vector)).order_by(
            "distance", "id"
        )

    def with_metric(self, vector: Sequence[float], metric: str) -> PropertyListingQuerySet:
        if metric == "l2":
            return self.annotate(metric_distance=L2Distance("embedding", vector))
        if metric == "inner_product":
            return self.annotate(metric_distance=MaxInnerProduct("embedding", vector))
        return self.annotate(metric_distance=F("distance"))

    def matching(self, query: SearchQuery) -> PropertyListingQuerySet:
        return self.filter(search_vector=query).annotate(
            rank=SearchRank(F("search_vector"), query, cover_density=True)
        )

    def containing_words(self, words: Sequence[str]) -> PropertyListingQuerySet:
        q = Q()
        for word in words:
            q &= (
                Q(title__icontains=word)
                | Q(description__icontains=word)
                | Q(address_raw__icontains=word)
            )
        return self.filter(q)

    def with_headline(self, query: SearchQuery, config: str) -> PropertyListingQuerySet:
        return self.annotate(
            headline=SearchHeadline(
                "description",
                query,
                config=config,
                start_sel="«",
                stop_sel="»",
                max_words=40,
                min_words=15,
                max_fragments=2,
                fragment_delimiter=" … ",
            )
        )

    def cards(self) -> PropertyListingQuerySet:
        return self.select_related("property_type").only(*CARD_FIELDS)

    def with_price_in(self, currency: str, rates: Mapping[str, float]) -> PropertyListingQuerySet:
        return self.annotate(normalised_price=price_in(currency, rates))

    def sorted_by(self, sort_by: str) -> PropertyListingQuerySet:
        orders: dict[str, list[Any]] = {
            "relevance": [F("rank").desc(), "id"],
            "price_asc": [F("normalised_price").asc(nulls_last=True), "id"],
            "price_desc": [F("normalised_price").desc(nulls_last=True), "id"],
            "date_desc": [F("publish_date").desc(nulls_last=True), "-id"],
            "area_desc": [F("total_area").desc(nulls_last=True), "id"],
        }
        return self.order_by(*orders[sort_by])
