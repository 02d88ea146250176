"""Market insight through the search layer: price trends, a listing against its market, and
listings that are probably the same property.

Like listings.search, every function is synchronous, keyword-only and raises typed errors;
the MCP tools, the admin dashboard and the market_report command all call these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

import numpy as np
from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    Func,
    IntegerField,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Abs, Trunc
from pgvector.django import CosineDistance

from .compiled import ID, Shape, Statements, values_shape
from .errors import NotFound
from .filters import parse_filters
from .filterslots import filter_values
from .market_results import (
    Comparable,
    DuplicateMatch,
    DuplicatesResult,
    MarketContext,
    PriceBand,
    PriceDistribution,
    TrendPoint,
    TrendResult,
    TrendSeries,
)
from .models import PropertyListing
from .querysets import price_in, price_windows, price_windows_condition
from .results import ListingCard, SearchPage
from .runtime import LISTINGS
from .search import (
    DEFAULT_FIGURES_CURRENCY,
    LISTING_NOT_FOUND,
    MIXED_DEALS_WARNING,
    Median,
    Money,
    Percentile,
    _database,
    _group_value,
    _rates,
    _resolved,
    _timing,
    live_vocabulary,
    median_price_per_m2,
    once_per_row,
    shown_of,
)
from .types import (
    BINS_RANGE,
    CURRENCY_UNKNOWN,
    GROUP_BY_UNKNOWN,
    PERIOD_UNKNOWN,
    PERIODS,
    Bins,
    GroupBy,
    ListingCurrency,
    ListingId,
    ListingsCurrency,
    RawFilters,
    TrendPeriod,
    checked,
)
from .vocabulary import Vocabulary

DISTRIBUTION_BINS = 20
DISTRIBUTION_TAILS = 0.02
MIN_SAMPLE = 5  # a period's figures from fewer listings are marked low_sample
MAX_TREND_GROUPS = 12

# Comparables: the same deal, property type and rooms, an area within AREA_BAND, active.
AREA_BAND = 0.2
MIN_DISTRICT_COMPARABLES = 10  # fewer in the district: compare with the whole city
MIN_COMPARABLES = 5  # fewer in the city: no verdict
NEAR_MEDIAN_PCT = 5.0
EXAMPLES = 5

# Duplicates: the same city, deal, property type, rooms, floor and number of floors, an
# area within DUPLICATE_AREA_TOLERANCE (or 1 m²), a price within DUPLICATE_PRICE_TOLERANCE,
# and texts not far apart (or the same phone when there is no embedding to compare). A
# false merge hides a real offer, so every condition must hold.
DUPLICATE_AREA_TOLERANCE = 0.02
DUPLICATE_PRICE_TOLERANCE = 0.08
# A floor, not a proof: the offline demo embedder scores two wordings of one flat from 0.44
# up, while listings of other flats that pass every structural test are rejected here.
DUPLICATE_MIN_SIMILARITY = 0.4
DUPLICATE_CANDIDATES = 50
DUPLICATE_RULE = (
    "Same city, deal type, property type, rooms, floor and number of floors; total area "
    f"within {DUPLICATE_AREA_TOLERANCE:.0%} (or 1 m²); district the same when both have one; "
    f"price within {DUPLICATE_PRICE_TOLERANCE:.0%} after currency conversion; and text "
    f"similarity (1 − cosine distance of the embeddings) at least {DUPLICATE_MIN_SIMILARITY}, "
    "or, when either has no embedding, the same contact phone."
)

COLLAPSED_NOTE = "ще {count} {word} цього об'єкта"
SOURCE_REPOSTS_NOTE = (
    "Listing {listing_id} is also posted as {ids} (the same property, find_duplicates): "
    "left out of its neighbours."
)
VERDICT_NO_PRICE = "Ціну не вказано, тож порівняти її з ринком не можна."
VERDICT_TOO_FEW = "Замало схожих активних оголошень ({count}) у місті {city}, щоб порівняти ціну."
VERDICT_NO_CITY = "Місто не вказано, тож порівняти ціну з ринком не можна."


LISTING_FIELDS = (
    "id",
    "city",
    "district",
    "deal_type",
    "property_type_id",
    "rooms_count",
    "total_area",
    "floor",
    "floors_count",
    "price",
    "currency",
    "contact_phone",
)


def _listing(number: int, *, with_embedding: bool = False) -> Any:
    """Listing `number` (an id its caller's types checked; its LISTING_FIELDS, and with
    `with_embedding` whether it has one, `has_embedding`) or NotFound."""

    def build(listing_id: int) -> Any:
        listing = PropertyListing.objects.only(*LISTING_FIELDS).filter(id=listing_id)
        if with_embedding:
            listing = listing.annotate(has_embedding=HAS_EMBEDDING)
        return listing[:1]

    shape = Shape(("listing", with_embedding), build)
    with _database():
        found = _LISTING.objects(shape, [(ID, number)], LISTINGS)
    if not found:
        raise NotFound(LISTING_NOT_FOUND.format(listing_id=number))
    return found[0]


HAS_EMBEDDING = ExpressionWrapper(Q(embedding__isnull=False), output_field=BooleanField())
# The statement reading a listing's own fields, compiled once (market_context, duplicates).
_LISTING = Statements()


def _round(value: Any, digits: int = 2) -> float | None:
    return None if value is None else round(float(value), digits)


def _in(value: Any, currency: str | None, target: str) -> float | None:
    """A price in `target` through the configured rates, its currency read as the table
    spells it (`usd`, `$`, `грн`; NULL as DEFAULT_CURRENCY); None for unknown currencies."""
    rates = _rates()
    code = live_vocabulary().currency_of(currency)
    if value is None or code is None or code not in rates:
        return None
    return float(value) * rates[target] / rates[code]


# --- trends ------------------------------------------------------------------------------


def _label(moment: date, period: str) -> str:
    if period == "quarter":
        return f"{moment.year}-Q{(moment.month - 1) // 3 + 1}"
    return f"{moment.year}-{moment.month:02d}"


def _periods(first: date, last: date, period: str) -> list[str]:
    """Every period label from `first` to `last`: an empty period shows as count 0."""
    step = 3 if period == "quarter" else 1
    labels = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        labels.append(_label(date(year, month, 1), period))
        month += step
        if month > 12:
            year, month = year + 1, month - 12
    return labels


def _change(points: list[TrendPoint]) -> float | None:
    solid = [p for p in points if not p.low_sample]
    for key in ("median_price_per_m2", "median_price"):
        values = [getattr(p, key) for p in solid if getattr(p, key)]
        if len(values) >= 2:
            return round((values[-1] / values[0] - 1.0) * 100.0, 1)
    return None


_TRENDS = Statements()


@checked
def price_trends(
    *,
    filters: RawFilters = None,
    group_by: GroupBy = None,
    period: TrendPeriod = "month",
    currency: ListingsCurrency = None,
) -> TrendResult:
    """Count, median price and median price per m² per month or quarter of publish_date.

    Every listing published in a period counts, whatever its status now (a sold flat was
    on the market then), unless filters.listing_status says otherwise. Periods with fewer
    than MIN_SAMPLE priced listings are marked low_sample; none are smoothed or dropped.
    The figures are in `currency`, by default the one most of the listings are priced in
    (search.Money).
    """
    parsed = parse_filters(filters)
    if "listing_status" not in parsed.model_fields_set:
        parsed = parsed.model_copy(update={"listing_status": "any"})
    parsed = _resolved(parsed)  # as every search reads them: spellings, place names
    vocab, rates = live_vocabulary(), _rates()
    money = Money(currency, parsed, vocab, rates)
    # What decides the SQL of its statements, with the vocabulary and rates they are built
    # with (kept alive with them, named by id()).
    # The filters' values are placeholders (filterslots).
    given = filter_values(parsed, rates)
    shape = (given.key, period, bool(money.asked), vocab.statement_key, id(rates))

    def dated(values: tuple[Any, ...]) -> Any:
        qs = (
            given.queryset(values, rates, vocab)
            .filter(publish_date__isnull=False)
            .annotate(p=money.price(), bucket=Trunc("publish_date", period))
        )
        # an enum column's spellings as one group, as listing_stats groups them
        # and a district or station with its city unless one city is filtered
        if not group_by:
            return qs
        return qs.annotate(group=_group_value(group_by, vocab, one_city=parsed.city is not None))

    def top(*values: Any) -> Any:
        return (
            dated(values)
            .values("group")
            .annotate(n=Count("*"))
            .order_by("-n", "group")[: MAX_TREND_GROUPS + 1]
        )

    def series_of(groups: tuple[Any, ...], values: tuple[Any, ...]) -> Any:
        qs = dated(values)
        if group_by is not None:
            qs = qs.filter(group__in=[g for g in groups if g is not None]) | (
                qs.filter(group__isnull=True) if None in groups else qs.none()
            )
        keys = ["bucket", *(["group"] if group_by else [])]
        figures = {
            "count": Count("*"),
            "priced_count": Count("p"),
            "median_price": Median("p"),
            "median_price_per_m2": median_price_per_m2(),
            **money.counts(),
        }
        return once_per_row(qs, *keys).values(*keys).annotate(**figures).order_by(*keys)

    groups: tuple[Any, ...] = (None,)
    truncated = False
    with _database():
        if group_by is not None:
            top_shape = Shape(("top", group_by, *shape), top, (vocab, rates))
            ranked = _TRENDS.dicts(top_shape, given.slots, LISTINGS)
            truncated = len(ranked) > MAX_TREND_GROUPS
            groups = tuple(row["group"] for row in ranked[:MAX_TREND_GROUPS])
        # The groups found are part of the statement (its IN list).
        series_shape = Shape(
            ("series", group_by, groups, *shape),
            lambda *values: series_of(groups, values),
            (vocab, rates),
        )
        rows = _TRENDS.dicts(series_shape, given.slots, LISTINGS)
    whole = money.chosen(rows)
    by_group: dict[Any, dict[str, dict[str, Any]]] = {g: {} for g in groups}
    first = last = None
    for row in rows:
        bucket = row["bucket"].date() if hasattr(row["bucket"], "date") else row["bucket"]
        first = bucket if first is None or bucket < first else first
        last = bucket if last is None or bucket > last else last
        by_group.setdefault(row.get("group"), {})[_label(bucket, period)] = row
    labels = _periods(first, last, period) if first and last else []
    series = []
    for group, found in by_group.items():
        in_currency = money.of_group(group_by, list(found.values()), whole)
        points = []
        for label in labels:
            row = found.get(label, {})
            priced = int(row.get("priced_count", 0))
            points.append(
                TrendPoint(
                    period=label,
                    count=int(row.get("count", 0)),
                    priced_count=priced,
                    median_price=in_currency.scaled(row.get("median_price")),
                    median_price_per_m2=in_currency.scaled(row.get("median_price_per_m2")),
                    low_sample=priced < MIN_SAMPLE,
                )
            )
        series.append(
            TrendSeries(
                group=group,
                count=sum(p.count for p in points),
                currency=in_currency.code,
                points=points,
                change_pct=_change(points),
            )
        )
    warnings = []
    if parsed.deal_type is None and group_by != "deal_type":
        warnings.append(MIXED_DEALS_WARNING)
    _timing().rows = len(rows)
    return TrendResult(
        currency=whole.code,
        period=period,
        group_by=group_by,
        filters=parsed.active(),
        min_sample=MIN_SAMPLE,
        series=series,
        groups_truncated=truncated,
        warnings=warnings,
    )


# --- price distribution --------------------------------------------------------------------


@checked
def price_distribution(
    *,
    filters: RawFilters = None,
    currency: ListingsCurrency = None,
    bins: Bins = DISTRIBUTION_BINS,
) -> PriceDistribution:
    """How many listings fall in each price band, between the 2nd and 98th percentiles
    (the listings outside are counted apart, so one mansion does not flatten the chart),
    in `currency`, by default the one most of the listings are priced in (search.Money)."""
    parsed = _resolved(filters)
    vocab, rates = live_vocabulary(), _rates()
    money = Money(currency, parsed, vocab, rates)
    qs = (
        PropertyListing.objects.filtered(parsed, rates, vocab)
        .annotate(p=money.price())
        .filter(p__isnull=False)
    )
    with _database():
        edges = qs.aggregate(
            low=Percentile("p", fraction=DISTRIBUTION_TAILS),
            high=Percentile("p", fraction=1 - DISTRIBUTION_TAILS),
            n=Count("*"),
            **money.counts(),
        )
        low, high = edges["low"], edges["high"]
        counts: dict[int, int] = {}
        top_edge = 0
        if low is not None and high is not None and high > low:
            bucket = Func(
                F("p"),
                Value(low),
                Value(high),
                Value(bins),
                function="width_bucket",
                output_field=IntegerField(),
            )
            # the top edge counted in the same pass (a third statement read the rows again:
            # 0.42 against 0.35 s for sales at 1 000 000 listings)
            at_top = Count("p", filter=Q(p=high))
            grouped = qs.annotate(b=bucket).values("b").annotate(n=Count("*"), at_top=at_top)
            rows = list(grouped.order_by("b"))
            counts = {row["b"]: row["n"] for row in rows}
            top_edge = sum(row["at_top"] for row in rows)
    # the bands read in the base currency, given in the chosen one
    in_currency = money.chosen([edges])
    width = (high - low) / bins if low is not None and high is not None and high > low else 0
    bands = [
        PriceBand(
            low=in_currency.scaled(low + i * width) or 0.0,
            high=in_currency.scaled(low + (i + 1) * width) or 0.0,
            # width_bucket puts the top edge itself in bucket bins + 1: it belongs to the last.
            count=counts.get(i + 1, 0) + (top_edge if i == bins - 1 else 0),
        )
        for i in range(bins if width else 0)
    ]
    _timing().rows = len(bands)
    return PriceDistribution(
        currency=in_currency.code,
        filters=parsed.active(),
        total=int(edges["n"]),
        below=counts.get(0, 0),
        above=counts.get(bins + 1, 0) - top_edge,
        bands=bands,
    )


# --- a listing against its market ---------------------------------------------------------


def _plural_listings(count: int) -> str:
    if count % 10 == 1 and count % 100 != 11:
        return f"{count} схожого оголошення"
    return f"{count} схожих оголошень"


def _verdict(difference: float, count: int, city: str, district: str | None, per_m2: bool) -> str:
    place = f"у місті {city}, район {district}" if district else f"у місті {city}"
    basis = " (за ціною за м²)" if per_m2 else ""
    rounded = round(abs(difference))
    if abs(difference) < NEAR_MEDIAN_PCT:
        direction = "дешевше" if difference < 0 else "дорожче"
        return (
            f"Ціна близька до медіани {_plural_listings(count)} {place}: на {rounded} % "
            f"{direction}{basis}."
        )
    direction = "дешевше" if difference < 0 else "дорожче"
    return f"На {rounded} % {direction} за медіану {_plural_listings(count)} {place}{basis}."


# The columns a comparable listing shares with the listing (and it is active).
COMPARABLE_ON = ("city", "deal_type", "property_type_id", "rooms_count")


def _comparable(values: dict[str, Any]) -> Any:
    """Active listings like the one `values` describe (its id, city, deal_type,
    property_type_id and rooms_count; `low` and `high` bound the total area when not None;
    `district`, when given, narrows to it), but the listing itself and its re-posts
    ("repost 0", "repost 1"...)."""
    shared = {name: values[name] for name in COMPARABLE_ON}
    itself = [values["id"], *(v for k, v in values.items() if k.startswith(REPOST) and v)]
    qs = PropertyListing.objects.filter(**shared, listing_status="active").exclude(id__in=itself)
    if values["low"] is not None:
        qs = qs.filter(total_area__gte=values["low"], total_area__lte=values["high"])
    if values.get("district") is not None:
        qs = qs.filter(district=values["district"])
    return qs


# The values naming a listing's re-posts, left out of its comparables: the same flat at the
# same price counted as its own comparable pulled the median to it (listing 21 of the demo
# had 6 comparables, one of them its re-post #67).
REPOST = "repost "
MAX_REPOSTS_LEFT_OUT = 10


def comparables_of(
    listing: Any, reposts: list[int] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What makes a listing comparable with `listing` (the values _comparable takes, in the
    city: the caller narrows to the district; its `reposts` left out, each a placeholder,
    so market_context passes at most MAX_REPOSTS_LEFT_OUT), and the criteria as the answer
    shows them."""
    criteria: dict[str, Any] = {name: getattr(listing, name) for name in COMPARABLE_ON}
    values: dict[str, Any] = {"id": listing.id, **criteria, "low": None, "high": None}
    for i, repost in enumerate(reposts or []):
        values[f"{REPOST}{i}"] = repost
    criteria["listing_status"] = "active"
    area = _round(listing.total_area)
    if area and area > 0:
        low, high = round(area * (1 - AREA_BAND), 2), round(area * (1 + AREA_BAND), 2)
        # as the ORM would send the floats to the column (to_python), so that they can be
        # placeholders of the compiled statements
        values["low"], values["high"] = (_TOTAL_AREA.to_python(bound) for bound in (low, high))
        criteria["total_area"] = [low, high]
    return values, criteria


_COMPARABLES = Statements()
_TOTAL_AREA = PropertyListing._meta.get_field("total_area")


def _own_currency(listing: PropertyListing, vocab: Vocabulary, rates: Mapping[str, float]) -> str:
    """The currency a listing is priced in, as the rates know it; USD when they do not."""
    own = vocab.currency_of(listing.currency)
    return own if own is not None and own in rates else DEFAULT_FIGURES_CURRENCY


@checked
def market_context(*, listing_id: ListingId, currency: ListingCurrency = None) -> MarketContext:
    """How a listing's price compares with its comparables: how many, their median price
    and price per m², the listing's percentile, and a verdict in plain Ukrainian. The figures
    are in `currency`, by default the listing's own (USD when it has none the rates know)."""
    listing = _listing(listing_id, with_embedding=True)
    vocab, rates = live_vocabulary(), _rates()
    code = currency or _own_currency(listing, vocab, rates)
    price = _in(listing.price, listing.currency, code)
    area = _round(listing.total_area)
    per_m2 = price / area if price is not None and area else None
    # the same property posted again is not its own comparable (find_duplicates' rule)
    matches = _matches(listing, compare_texts=listing.has_embedding)
    reposts = [match.id for match in matches][:MAX_REPOSTS_LEFT_OUT]
    values, criteria = comparables_of(listing, reposts)

    def priced(found: dict[str, Any]) -> Any:
        prices = price_in(code, rates, vocab)
        return _comparable(found).annotate(p=prices).filter(p__isnull=False)

    def figures_of(found: dict[str, Any]) -> Any:
        aggregates: dict[str, Any] = {
            "n": Count("*"),
            "median_price": Median("p"),
            "median_price_per_m2": median_price_per_m2(),
        }
        if found.get("price") is not None:
            aggregates["cheaper"] = Count("p", filter=Q(p__lt=found["price"]))
            aggregates["same"] = Count("p", filter=Q(p=found["price"]))
        return priced(found).summary(**aggregates)

    def examples_of(found: dict[str, Any]) -> Any:
        return (
            priced(found)
            .annotate(gap=Abs(F("total_area") - found["area"]))
            .order_by("gap", "id")
            .values("id", "district", "rooms_count", "total_area", "p")[:EXAMPLES]
        )

    def rows(kind: str, build: Callable[[dict[str, Any]], Any], found: dict[str, Any]) -> Any:
        """The rows of one of its statements, compiled once per shape (the listing's values
        are its placeholders; the currency, the vocabulary and the rates decide the rest)."""
        key = (kind, code, vocab.statement_key, id(rates))
        shape, slots = values_shape(key, build, found, keep=(vocab, rates))
        return _COMPARABLES.dicts(shape, slots, LISTINGS)

    scope, count, figures = "none", 0, {}
    examples: list[dict[str, Any]] = []
    if listing.city:
        district = {"district": listing.district}
        with _database():
            if listing.district:
                figures = rows("figures", figures_of, {**values, **district, "price": price})[0]
                scope = "district"
            if figures.get("n", 0) < MIN_DISTRICT_COMPARABLES:
                figures = rows("figures", figures_of, {**values, "price": price})[0]
                scope = "city"
            count = int(figures["n"])
            near = {**values, **(district if scope == "district" else {}), "area": area or 0.0}
            examples = rows("examples", examples_of, near)
    if scope == "district":
        criteria["district"] = listing.district
    median_price = _round(figures.get("median_price"))
    median_m2 = _round(figures.get("median_price_per_m2"))
    percentile = difference = None
    if listing.city is None:
        verdict = VERDICT_NO_CITY
    elif price is None:
        verdict = VERDICT_NO_PRICE
    elif count < MIN_COMPARABLES:
        verdict = VERDICT_TOO_FEW.format(count=count, city=listing.city)
    else:
        percentile = round(100.0 * (figures["cheaper"] + 0.5 * figures["same"]) / count, 1)
        use_m2 = per_m2 is not None and median_m2 is not None
        mine, median = (per_m2, median_m2) if use_m2 else (price, median_price)
        difference = round((mine / median - 1.0) * 100.0, 1) if mine and median else None
        verdict = (
            _verdict(
                difference,
                count,
                listing.city,
                listing.district if scope == "district" else None,
                use_m2,
            )
            if difference is not None
            else VERDICT_NO_PRICE
        )
    _timing().rows = count
    return MarketContext(
        listing_id=listing.id,
        currency=code,
        price=_round(price),
        price_per_m2=_round(per_m2),
        scope=scope,
        criteria=criteria,
        comparables_count=count,
        median_price=median_price,
        median_price_per_m2=median_m2,
        percentile=percentile,
        difference_pct=difference,
        verdict=verdict,
        reposts_left_out=reposts,
        examples=[
            Comparable(
                id=row["id"],
                district=row["district"],
                rooms_count=row["rooms_count"],
                total_area=_round(row["total_area"]),
                price=_round(row["p"]),
                price_per_m2=_round(row["p"] / float(row["total_area"]))
                if row["total_area"]
                else None,
            )
            for row in examples
        ],
    )


# --- duplicates ----------------------------------------------------------------------------


def _candidates(
    values: dict[str, Any], *, compare_texts: bool, vocab: Any, rates: Mapping[str, float]
) -> Any:
    """Listings that could be the same property as the one `values` describe (its id, city,
    deal type, property type, rooms, floor and number of floors; its area window `low` to
    `high`; its district, which a candidate shares or lacks; its price window in each
    currency, `low CODE` to `high CODE`), by the structured fields alone; with
    `compare_texts`, each with the cosine distance of its embedding to the listing's own
    (read in the statement, not sent to it). Prices are read with `vocab` and `rates`."""
    qs = PropertyListing.objects.filter(
        city=values["city"],
        deal_type=values["deal_type"],
        property_type_id=values["property_type_id"],
        rooms_count=values["rooms_count"],
        floor=values["floor"],
        floors_count=values["floors_count"],
        total_area__gte=values["low"],
        total_area__lte=values["high"],
    ).exclude(id=values["id"])
    if values["district"] is not None:
        qs = qs.filter(Q(district=values["district"]) | Q(district__isnull=True))
    windows = {code: (values[f"low {code}"], values[f"high {code}"]) for code in rates}
    qs = qs.filter(price_windows_condition(windows, vocab))
    qs = qs.annotate(usd=price_in("USD", rates, vocab))
    fields = [*CANDIDATE_FIELDS]
    if compare_texts:
        own = PropertyListing.objects.filter(id=values["id"]).values("embedding")[:1]
        qs = qs.annotate(distance=CosineDistance("embedding", Subquery(own)))
        fields.append("distance")
    return qs.order_by("id").values(*fields)[:DUPLICATE_CANDIDATES]


CANDIDATE_FIELDS = (
    "id",
    "title",
    "listing_status",
    "price",
    "currency",
    "total_area",
    "url_source",
    "publish_date",
    "usd",
    "contact_phone",
    "district",
)
_DUPLICATES = Statements()
_PRICE = PropertyListing._meta.get_field("price")


def _comparable_fields(listing: Any) -> bool:
    return bool(
        listing.city
        and listing.total_area
        and listing.price is not None
        and listing.rooms_count is not None
    )


def _matches(listing: Any, *, compare_texts: bool) -> list[DuplicateMatch]:
    if not _comparable_fields(listing):
        return []
    usd = _in(listing.price, listing.currency, "USD")
    if usd is None or usd <= 0:
        return []
    area = float(listing.total_area)
    tolerance = max(1.0, area * DUPLICATE_AREA_TOLERANCE)
    vocab, rates = live_vocabulary(), _rates()
    windows = price_windows(
        usd * (1 - DUPLICATE_PRICE_TOLERANCE), usd * (1 + DUPLICATE_PRICE_TOLERANCE), "USD", rates
    )
    # The floats as the ORM would send them to their columns (to_python), so that they can
    # be placeholders: the same parameters as before, and the price index still serves.
    values: dict[str, Any] = {
        **{name: getattr(listing, name) for name in (*_structure(listing), "id")},
        "low": _TOTAL_AREA.to_python(area - tolerance),
        "high": _TOTAL_AREA.to_python(area + tolerance),
        "district": listing.district or None,
        **{f"low {code}": _PRICE.to_python(low) for code, (low, _) in windows.items()},
        **{f"high {code}": _PRICE.to_python(high) for code, (_, high) in windows.items()},
    }

    def build(found: dict[str, Any]) -> Any:
        return _candidates(found, compare_texts=compare_texts, vocab=vocab, rates=rates)

    # compiled once per shape: which values are NULL, whether texts are compared, and the
    # vocabulary and rates the price is converted with
    key = ("duplicates", compare_texts, vocab.statement_key, id(rates))
    shape, slots = values_shape(key, build, values, keep=(vocab, rates))
    with _database():
        rows = _DUPLICATES.dicts(shape, slots, LISTINGS)
    mine = {**{name: getattr(listing, name) for name in RULE_FIELDS}, "usd": usd}
    matches = []
    for row in rows:
        distance = row.get("distance")
        similarity = None if distance is None else round(1.0 - float(distance), 4)
        same_phone = bool(listing.contact_phone) and row["contact_phone"] == listing.contact_phone
        if not same_property(mine, {**row, **_structure(listing)}, similarity):
            continue
        area = float(row["total_area"])
        matches.append(
            DuplicateMatch(
                id=row["id"],
                title=row["title"],
                listing_status=row["listing_status"],
                price=_round(row["price"]),
                currency=row["currency"],
                total_area=_round(area),
                url_source=row["url_source"],
                publish_date=row["publish_date"],
                evidence={
                    "area_difference_m2": round(area - float(listing.total_area or 0), 2),
                    "price_difference_pct": round((float(row["usd"]) / usd - 1.0) * 100.0, 1),
                    "text_similarity": similarity,
                    "same_contact_phone": same_phone,
                    "same_district": row["district"] == listing.district,
                    "same_floor": True,
                },
            )
        )
    return matches


RULE_FIELDS = (
    "city",
    "deal_type",
    "property_type_id",
    "rooms_count",
    "floor",
    "floors_count",
    "total_area",
    "district",
    "contact_phone",
)


def _structure(listing: Any) -> dict[str, Any]:
    """The fields _candidates already made equal in SQL."""
    return {
        name: getattr(listing, name)
        for name in ("city", "deal_type", "property_type_id", "rooms_count", "floor")
    } | {"floors_count": listing.floors_count}


def _alike(a: Mapping[str, Any], b: Mapping[str, Any], property_type: str) -> bool:
    """DUPLICATE_RULE's place, kind, size and floor: the same city, deal, property type (the
    field named `property_type`), rooms, floor and floors, districts not different, total
    areas within DUPLICATE_AREA_TOLERANCE (or 1 m²)."""
    for name in ("city", "deal_type", property_type, "rooms_count", "floor", "floors_count"):
        if a.get(name) != b.get(name):
            return False
    if not a.get("city") or a.get("rooms_count") is None:
        return False
    if a.get("district") and b.get("district") and a["district"] != b["district"]:
        return False
    area_a, area_b = a.get("total_area"), b.get("total_area")
    if not area_a or not area_b:
        return False
    tolerance = max(1.0, float(area_a) * DUPLICATE_AREA_TOLERANCE)
    return abs(float(area_a) - float(area_b)) <= tolerance + 1e-9


def same_property(a: Mapping[str, Any], b: Mapping[str, Any], similarity: float | None) -> bool:
    """DUPLICATE_RULE on two listings' fields (`usd`: the price in USD) and the similarity
    of their embeddings (None when either has none)."""
    if not _alike(a, b, "property_type_id"):
        return False
    usd_a, usd_b = a.get("usd"), b.get("usd")
    if not usd_a or not usd_b or abs(usd_b / usd_a - 1.0) > DUPLICATE_PRICE_TOLERANCE:
        return False
    if similarity is None:
        return bool(a.get("contact_phone")) and a.get("contact_phone") == b.get("contact_phone")
    return similarity >= DUPLICATE_MIN_SIMILARITY


def _may_be_same(a: ListingCard, b: ListingCard) -> bool:
    """The tests of DUPLICATE_RULE that two cards of a page can answer from what they show:
    never false for two listings same_property holds for (a card's field is a function of
    its column: equal columns, equal fields), so only the pairs it passes are read from the
    table (price in USD, property type id, embeddings, phone) and judged in full. 2.1 ms a
    10-card page when every page was read (100 000 listings, embeddings parsed from text)."""
    return _alike(vars(a), vars(b), "property_type")  # the type's name, not its id


def _more_listings(count: int) -> str:
    word = (
        "оголошення"
        if count % 10 in (1, 2, 3, 4) and count % 100 not in (11, 12, 13, 14)
        else "оголошень"
    )
    return COLLAPSED_NOTE.format(count=count, word=word)


def collapse_duplicates(page: SearchPage, source: int | None = None) -> SearchPage:
    """One card per property on a page: a card whose duplicates (DUPLICATE_RULE) are also on
    the page keeps its place, lists their ids and says "ще N оголошення цього об'єкта"; the
    duplicates are taken out. Duplicates on other pages are find_duplicates' job.

    `source`: the listing whose neighbours the page holds ("more like this"). Its own
    re-posts are the same property, not one like it: they are taken out too, and the page's
    warnings name them (SOURCE_REPOSTS_NOTE). Its card's fields come with the page (read
    with its vector); most pages then need no statement."""
    cards = page.listings
    ids = [card.id for card in cards]
    candidates = {
        (earlier.id, later.id)
        for position, later in enumerate(cards)
        for earlier in cards[:position]
        if _may_be_same(earlier, later)
    }
    if source is not None:
        # the source against every card, as its card would show it: read with its vector
        # by similar_to_listing (SearchPage._source), else read by id (search.shown_of)
        shown = page._source if page._source and page._source["id"] == source else None
        shown = shown or shown_of(source)
        if shown is not None:
            candidates |= {
                (source, card.id) for card in cards if _alike(shown, vars(card), "property_type")
            }
            ids = [source, *ids]
    if not candidates:
        return page  # no statement: most pages hold no two cards of one property
    involved = {listing_id for pair in candidates for listing_id in pair}
    with _database():
        rows = {
            row["id"]: row
            for row in PropertyListing.objects.filter(id__in=involved)
            .annotate(usd=price_in("USD", _rates(), live_vocabulary()))
            .values("id", "embedding", "usd", *RULE_FIELDS)
        }
    vectors = {}
    for listing_id, row in rows.items():
        if row["embedding"] is not None:
            vector = np.asarray(row["embedding"], dtype=np.float64)
            norm = float(np.linalg.norm(vector))
            vectors[listing_id] = vector / norm if norm else None
    first_of: dict[int, int] = {}
    for position, later in enumerate(ids):
        for earlier in ids[:position]:
            if (earlier, later) not in candidates or earlier in first_of:
                continue
            if later not in rows or earlier not in rows:
                continue
            a, b = vectors.get(earlier), vectors.get(later)
            similarity = None if a is None or b is None else float(a @ b)
            if same_property(rows[earlier], rows[later], similarity):
                first_of[later] = earlier
                break
    if not first_of:
        return page
    hidden: dict[int, list[int]] = {}
    for later, earlier in first_of.items():
        hidden.setdefault(earlier, []).append(later)
    kept = [
        card.model_copy(
            update={
                "duplicate_ids": hidden[card.id],
                "duplicates_note": _more_listings(len(hidden[card.id])),
            }
        )
        if card.id in hidden
        else card
        for card in cards
        if card.id not in first_of
    ]
    update: dict[str, Any] = {"listings": kept, "duplicates_collapsed": len(first_of)}
    if source in hidden:
        reposts = ", ".join(str(i) for i in hidden[source])
        note = SOURCE_REPOSTS_NOTE.format(listing_id=source, ids=reposts)
        update["warnings"] = [*(page.warnings or []), note]
    collapsed = page.model_copy(update=update)
    collapsed._reposts = hidden.get(source, []) if source is not None else []
    return collapsed


def collapsing(search_function: Callable[..., SearchPage]) -> Callable[..., SearchPage]:
    """`search_function` whose page comes back with duplicates collapsed; for "more like
    this" (a `listing_id`), the listing's own re-posts are taken out too."""

    def run(**kwargs: Any) -> SearchPage:
        return collapse_duplicates(search_function(**kwargs), source=kwargs.get("listing_id"))

    return run


@checked
def find_duplicates(*, listing_id: ListingId) -> DuplicatesResult:
    """Listings that are probably the same property as this one, each with its evidence.

    Precision comes first (a false merge hides a real offer): see DUPLICATE_RULE.
    """
    listing = _listing(listing_id, with_embedding=True)
    matches = _matches(listing, compare_texts=listing.has_embedding)
    _timing().rows = len(matches)
    return DuplicatesResult(
        listing_id=listing.id,
        duplicate_group=min([listing.id, *(m.id for m in matches)]),
        duplicates=matches,
        rule=DUPLICATE_RULE,
    )


__all__ = [
    "BINS_RANGE",
    "CURRENCY_UNKNOWN",
    "DUPLICATE_RULE",
    "GROUP_BY_UNKNOWN",
    "PERIODS",
    "PERIOD_UNKNOWN",
    "SOURCE_REPOSTS_NOTE",
    "collapse_duplicates",
    "collapsing",
    "find_duplicates",
    "market_context",
    "price_distribution",
    "price_trends",
]
