"""Chainable QuerySet methods that only build SQL (no I/O, no settings beyond arguments)."""

from __future__ import annotations

import re
from array import array
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
    IntegerField,
    Lookup,
    Q,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual
from pgvector import Vector
from pgvector.django import CosineDistance, L2Distance, MaxInnerProduct

from .apostrophes import APOSTROPHE_CLASS, APOSTROPHES

if TYPE_CHECKING:
    from .filters import Filters
    from .vocabulary import Vocabulary

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


def in_currency(code: str, vocabulary: Vocabulary | None) -> Q:
    """Rows priced in `code`: every raw spelling of it present (`__in`, no function on the
    column), and NULL currencies when DEFAULT_CURRENCY is `code`."""
    if vocabulary is None:
        return Q(currency=code)
    condition = Q(currency__in=vocabulary.currency_spellings(code))
    if vocabulary.null_currency == code:
        condition |= Q(currency__isnull=True)
    return condition


def price_in(
    currency: str, rates: Mapping[str, float], vocabulary: Vocabulary | None = None
) -> Case:
    """The listing's price converted to `currency` (NULL for unknown currencies)."""
    target = rates[currency]
    return Case(
        *(
            When(
                in_currency(code, vocabulary),
                then=Cast(F("price"), FloatField()) * Value(target / rate),
            )
            for code, rate in rates.items()
        ),
        default=Value(None),
        output_field=FloatField(),
    )


def price_bounds(
    low: float | None,
    high: float | None,
    currency: str,
    rates: Mapping[str, float],
    vocabulary: Vocabulary | None = None,
    *,
    per_m2: bool = False,
) -> Q:
    """Price bounds in `currency` as one range per listing currency, so the btree index
    serves; `per_m2`, bounds of the price over the total area (as median_price_per_m2 counts
    it: the rows with an area above zero)."""
    windows = price_windows(low, high, currency, rates)
    if not per_m2:
        return price_windows_condition(windows, vocabulary)
    price, area = Cast(F("price"), FloatField()), Cast(F("total_area"), FloatField())
    condition = Q()
    for code, (least, most) in windows.items():
        per_currency = in_currency(code, vocabulary) & Q(total_area__gt=0)
        if least is not None:
            per_currency &= Q(GreaterThanOrEqual(price, area * Value(least)))
        if most is not None:
            per_currency &= Q(LessThanOrEqual(price, area * Value(most)))
        condition |= per_currency
    return condition


def price_windows(
    low: float | None, high: float | None, currency: str, rates: Mapping[str, float]
) -> dict[str, tuple[float | None, float | None]]:
    """Bounds in `currency` as each listing currency's own price range."""
    windows = {}
    for code, rate in rates.items():
        factor = rate / rates[currency]
        windows[code] = (
            None if low is None else low * factor,
            None if high is None else high * factor,
        )
    return windows


def price_windows_condition(
    windows: Mapping[str, tuple[Any, Any]], vocabulary: Vocabulary | None = None
) -> Q:
    """Listings whose price is within their currency's window (price_windows)."""
    condition = Q()
    for code, (low, high) in windows.items():
        per_currency = in_currency(code, vocabulary)
        if low is not None:
            per_currency &= Q(price__gte=low)
        if high is not None:
            per_currency &= Q(price__lte=high)
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


def enum_condition(column: str, value: str, vocabulary: Vocabulary | None) -> Q:
    """Rows whose `column` means `value`: its raw spellings present, as an `__in` list.

    listing_status: 'any' is no condition, 'unknown' only NULL, 'active' also NULL (a status
    nobody recorded is most likely live).
    """
    if column == "listing_status":
        if value == "any":
            return Q()
        if value == "unknown":
            return Q(listing_status__isnull=True)
    raw = vocabulary.spellings(column, value) if vocabulary is not None else [value]
    condition = Q(**{f"{column}__in": raw})
    if column == "listing_status" and value == "active":
        condition |= Q(listing_status__isnull=True)
    return condition


def vector_text(values: Sequence[float]) -> str:
    """pgvector's text of `values` as the float4 it stores: 9 significant digits give each
    float32 back exactly. pgvector's own `repr` of each float64 is 1.6x the text (about
    15 KB for 768 dimensions) and 2x the time (0.55 against 0.25 ms)."""
    floats = array("f", values).tolist()
    return "[" + ",".join(["%.9g" % x for x in floats]) + "]"  # noqa: UP031 - %g is fastest


class AnyOf(Lookup):
    """`column = ANY(%s)`: the values as one array parameter, so a statement has one shape
    for any number of them (`__in` writes a placeholder per value)."""

    lookup_name = "any_of"
    prepare_rhs = False

    def get_db_prep_lookup(self, value: Any, connection: Any) -> tuple[str, list[Any]]:
        return "%s", [list(value)]

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} = ANY({rhs})", [*lhs_params, *rhs_params]


models.BigIntegerField.register_lookup(AnyOf)


def substring_pattern(word: str) -> str:
    """`word` as a regular expression that matches it alone: every character but a letter or
    a digit escaped (a backslash before one of those is an escape of PostgreSQL's own), and
    an apostrophe as any of them (APOSTROPHE_CLASS)."""
    escaped = re.sub(rf"([^\w{APOSTROPHES}]|_)", r"\\\1", word)
    return re.sub(APOSTROPHE_CLASS, APOSTROPHE_CLASS, escaped)


class ContainsPattern(Lookup):
    """A case-insensitive substring match, `column::text ~* %s`, with a pattern made before the
    statement (substring_pattern), so that a statement built with a stand-in word can be sent
    again with another. What `icontains` writes, `UPPER(column::text) LIKE UPPER(%s)`, read 1
    000 000 listings in 3.0 s against 1.7 s this way (UPPER copies each description)."""

    lookup_name = "contains_pattern"
    prepare_rhs = False

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs}::text ~* {rhs}", [*lhs_params, *rhs_params]


models.CharField.register_lookup(ContainsPattern)
models.TextField.register_lookup(ContainsPattern)


class QueryVector(Vector):
    """A search's query vector, formatted as pgvector's text once (`vector_text`): every
    distance expression built from a list formats its floats again."""

    def to_text(self) -> str:
        text: str | None = getattr(self, "_text", None)
        if text is None:
            text = self._text = vector_text(self.to_list())
        return text


# summary()'s one group: a constant, which PostgreSQL is not asked to group by.
WHOLE = Value(1, output_field=IntegerField())


def listing_condition(
    filters: Filters,
    rates: Mapping[str, float],
    vocabulary: Vocabulary | None = None,
    *,
    windows: Mapping[str, tuple[Any, Any]] | None = None,
) -> Q:
    """What rows matching `filters` (resolved: see filters.resolve_filters) meet;
    `vocabulary` gives the raw spellings of enum values and currencies present in the table;
    `windows`, each listing currency's price bounds as given (price_windows' values,
    or filterslots' placeholders), instead of those of min_price and max_price."""
    q = Q()
    for name in ("city", "district", "metro_station", "property_type_id"):
        value = getattr(filters, name)
        if value is None:
            continue
        spelled = filters.spelled(name, value)
        q &= Q(**{name: value}) if len(spelled) == 1 else Q(**{f"{name}__in": spelled})
    if filters.property_type is not None:
        # By id where the vocabulary knows the slug: the planner estimates the share.
        ids = vocabulary.property_type_ids(filters.property_type) if vocabulary else ()
        if ids:
            q &= Q(property_type_id__in=ids)
        else:
            q &= Q(property_type__slug=filters.property_type)
    for name, value in filters.enums().items():
        q &= enum_condition(name, value, vocabulary)
    if filters.has_parking is not None:
        # none recorded as such; NULL says nothing either way
        no_parking = enum_condition("parking_type", "none", vocabulary)
        q &= ~no_parking & Q(parking_type__isnull=False) if filters.has_parking else no_parking
    if windows is not None:
        q &= price_windows_condition(windows, vocabulary)
    elif filters.min_price is not None or filters.max_price is not None:
        q &= price_bounds(filters.min_price, filters.max_price, filters.currency, rates, vocabulary)
    if filters.min_price_per_m2 is not None or filters.max_price_per_m2 is not None:
        q &= price_bounds(
            filters.min_price_per_m2,
            filters.max_price_per_m2,
            filters.currency,
            rates,
            vocabulary,
            per_m2=True,
        )
    for name, lookup in (
        ("rooms_count", "rooms_count"),
        ("min_rooms", "rooms_count__gte"),
        ("max_rooms", "rooms_count__lte"),
        ("min_area", "total_area__gte"),
        ("max_area", "total_area__lte"),
        ("min_kitchen_area", "kitchen_area__gte"),
        ("max_kitchen_area", "kitchen_area__lte"),
        ("min_living_area", "living_area__gte"),
        ("max_living_area", "living_area__lte"),
        ("max_metro_distance", "metro_distance_meters__lte"),
        ("min_building_year", "building_year__gte"),
        ("max_building_year", "building_year__lte"),
        ("floor", "floor"),
        ("min_floor", "floor__gte"),
        ("max_floor", "floor__lte"),
        ("min_floors_count", "floors_count__gte"),
        ("max_floors_count", "floors_count__lte"),
        ("published_after", "publish_date__date__gte"),
        ("published_before", "publish_date__date__lte"),
    ):
        value = getattr(filters, name)
        if value is not None:
            q &= Q(**{lookup: value})
    if filters.not_top_floor or filters.top_floor is False:
        q &= Q(floor__lt=F("floors_count"))
    if filters.top_floor:
        q &= Q(floor=F("floors_count"))
    if filters.has_balcony is not None:
        q &= Q(balcony_count__gt=0) if filters.has_balcony else Q(balcony_count=0)
    return q


class PropertyListingQuerySet(models.QuerySet):
    def filtered(
        self,
        filters: Filters,
        rates: Mapping[str, float],
        vocabulary: Vocabulary | None = None,
        *,
        windows: Mapping[str, tuple[Any, Any]] | None = None,
    ) -> PropertyListingQuerySet:
        """Rows matching `filters` (listing_condition's)."""
        return self.filter(listing_condition(filters, rates, vocabulary, windows=windows))

    def with_embedding(self) -> PropertyListingQuerySet:
        """Listings whose embedding has a direction: an all-zero vector has no cosine
        distance (NaN), and would otherwise come back as an arbitrary neighbour."""
        return self.filter(embedding__isnull=False).filter(USABLE_EMBEDDING)

    def with_has_embedding(self) -> PropertyListingQuerySet:
        """`has_usable_embedding`: whether 'more like this' can start from the listing."""
        return self.annotate(has_usable_embedding=USABLE_EMBEDDING)

    def nearest(self, vector: Sequence[float] | Vector) -> PropertyListingQuerySet:
        """Order by cosine distance: the only operator class the HNSW index has.

        Callers narrow to with_embedding() first; a listing without one sorts last."""
        return self.annotate(distance=CosineDistance("embedding", vector)).order_by(
            "distance", "id"
        )

    def with_metric(self, vector: Sequence[float] | Vector, metric: str) -> PropertyListingQuerySet:
        """`metric_distance` for L2 and inner product. Cosine's is the `distance` that
        nearest() annotates: no second copy of the expression (F would inline it, query
        vector and all, a second time in the statement)."""
        if metric == "l2":
            return self.annotate(metric_distance=L2Distance("embedding", vector))
        if metric == "inner_product":
            return self.annotate(metric_distance=MaxInnerProduct("embedding", vector))
        return self

    def matching(self, query: SearchQuery) -> PropertyListingQuerySet:
        return self.filter(search_vector=query).annotate(
            rank=SearchRank(F("search_vector"), query, cover_density=True)
        )

    def containing_words(self, words: Sequence[str]) -> PropertyListingQuerySet:
        """Listings whose title, description or address contains every word (any case)."""
        return self.containing_patterns([substring_pattern(word) for word in words])

    def containing_patterns(self, patterns: Sequence[str]) -> PropertyListingQuerySet:
        """containing_words with each word's pattern made already (substring_pattern)."""
        q = Q()
        for pattern in patterns:
            q &= (
                Q(title__contains_pattern=pattern)
                | Q(description__contains_pattern=pattern)
                | Q(address_raw__contains_pattern=pattern)
            )
        return self.filter(q)

    def with_headline(
        self, query: SearchQuery, config: str, *, for_ids: Sequence[int] | None = None
    ) -> PropertyListingQuerySet:
        """The description's fragments with the query's words marked («…»), as `headline`;
        with `for_ids`, for those listings only (NULL for the others)."""
        headline: Any = SearchHeadline(
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
        if for_ids is not None:
            headline = Case(
                When(id__any_of=for_ids, then=headline), default=None, output_field=TextField()
            )
        return self.annotate(headline=headline)

    def cards(self) -> PropertyListingQuerySet:
        return self.select_related("property_type").only(*CARD_FIELDS)

    def summary(self, **aggregates: Any) -> PropertyListingQuerySet:
        """aggregate(**aggregates) as a queryset of one row (whatever the rows kept; with
        none, the count is 0), so its statement can be compiled once and sent again."""
        return self.annotate(_all=WHOLE).values("_all").annotate(**aggregates)

    def with_price_in(
        self, currency: str, rates: Mapping[str, float], vocabulary: Vocabulary | None = None
    ) -> PropertyListingQuerySet:
        return self.annotate(normalised_price=price_in(currency, rates, vocabulary))

    def sorted_by(self, sort_by: str) -> PropertyListingQuerySet:
        orders: dict[str, list[Any]] = {
            "relevance": [F("rank").desc(), "id"],
            "price_asc": [F("normalised_price").asc(nulls_last=True), "id"],
            "price_desc": [F("normalised_price").desc(nulls_last=True), "id"],
            "date_desc": [F("publish_date").desc(nulls_last=True), "-id"],
            "area_desc": [F("total_area").desc(nulls_last=True), "id"],
        }
        return self.order_by(*orders[sort_by])
