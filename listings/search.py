"""The one entry point: every interface (MCP tools, admin, commands) searches through here.

Functions are synchronous (Django ORM); async callers run them in a worker thread. They
raise typed errors from listings.errors and never return error values.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import DatabaseError, connections, transaction
from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    FloatField,
    Max,
    Min,
    Q,
    Subquery,
    Value,
    When,
    Window,
)
from django.db.models.aggregates import Aggregate, Avg

from vmkproject import telemetry

from . import capabilities, vocabulary
from .errors import (
    DatabaseUnavailable,
    EmbeddingUnavailable,
    InvalidArgument,
    NotFound,
    QueryTimeout,
    SearchError,
)
from .filters import Filters, parse_filters, resolve_filters
from .models import PropertyListing
from .querysets import PropertyListingQuerySet, enum_condition, price_in
from .results import (
    CARD_TEXT_LIMITS,
    DETAIL_SHORT_TEXT_LIMIT,
    DETAIL_TEXT_LIMITS,
    ListingCard,
    ListingDetail,
    SearchPage,
    StatsResult,
    StatsRow,
    bound_fields,
    bound_text,
)

logger = logging.getLogger("vmk.search")

LISTINGS = "listings"
# The HNSW index our own databases have; index_used names whichever one the catalog shows.
HNSW_INDEX = "ix_property_listings_embedding_hnsw"
EXACT_PATH = "exact (pre-filtered scan)"
RRF_K = 60
SNIPPET_CHARS = 300
MAX_OFFSET = 10_000
MAX_CANDIDATES = 1_000
DISTANCE_METRICS = ("cosine", "l2", "inner_product")
SORT_ORDERS = ("relevance", "price_asc", "price_desc", "date_desc", "area_desc")
GROUP_BY = ("city", "district", "rooms_count", "deal_type", "building_type")
MAX_STATS_GROUPS = 100

QUERY_REQUIRED = "'query' must be a non-empty Ukrainian text."
QUERY_TOO_LONG = "'query' is {length} characters long; the limit is {limit}."
QUERY_CONTROL_CHARS = "'query' must not contain control characters."
LIMIT_RANGE = "'limit' must be an integer from 1 to {max_limit}."
OFFSET_RANGE = "'offset' must be an integer from 0 to {max_offset}."
METRIC_UNKNOWN = "'distance_metric' must be one of: cosine, l2, inner_product."
SORT_UNKNOWN = "'sort_by' must be one of: relevance, price_asc, price_desc, date_desc, area_desc."
MIN_SIMILARITY_RANGE = "'min_similarity' must be a number from -1 to 1 (1 − cosine distance)."
GROUP_BY_UNKNOWN = (
    "'group_by' must be one of: city, district, rooms_count, deal_type, building_type."
)
CURRENCY_UNKNOWN = "'currency' must be one of: {allowed}."
LISTING_ID_INVALID = "'listing_id' must be a positive integer."
LISTING_NOT_FOUND = "Listing {listing_id} does not exist."
LISTING_HAS_NO_EMBEDDING = (
    "Listing {listing_id} has no embedding yet, so there is nothing to compare it with; "
    "use search_by_metadata with its title instead."
)
LISTING_EMBEDDING_EMPTY = (
    "Listing {listing_id} has an empty (all-zero) embedding, so it is like no other listing; "
    "use search_by_metadata with its title instead."
)
QUERY_EMBEDDING_EMPTY = (
    "The embedder returned an empty (all-zero) vector for this query, which matches nothing; "
    "rephrase the query or check the embedding model."
)
EMBEDDER_MISMATCH = (
    "The stored embeddings were made by '{stored}', but the server embeds queries with "
    "'{current}': results would be meaningless. Set EMBEDDER to the model that built the vectors."
)
QUERY_TIMED_OUT = (
    "The query took longer than {seconds:g} s and was stopped. Narrow it with filters "
    "(city, deal_type, price) or lower 'offset'."
)
DATABASE_DOWN = "The listings database is not reachable right now; try again shortly."
POOL_BUSY = (
    "All connections to the listings database are busy; the call waited and gave up. "
    "Try again shortly."
)
MIXED_DEALS_WARNING = (
    "Sale and rent prices are mixed in these figures; filter or group by deal_type."
)
PRICES_LEFT_OUT_WARNING = (
    "{count} listings have a price in a missing or unrecognised currency and are left out of "
    "the price figures (describe_schema: currencies; the DEFAULT_CURRENCY setting)."
)


# --- timings for the per-call log line ---------------------------------------------------


@dataclass
class Timings:
    embedding_ms: float = 0.0
    db_ms: float = 0.0
    embedding_cache_hit: bool | None = None
    rows: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


_timings: ContextVar[Timings | None] = ContextVar("vmk_search_timings", default=None)


@contextlib.contextmanager
def collect_timings(timings: Timings | None = None) -> Iterator[Timings]:
    """Collect embedding and database time of the search calls made inside the block."""
    timings = timings if timings is not None else Timings()
    token = _timings.set(timings)
    try:
        yield timings
    finally:
        _timings.reset(token)


def _timing() -> Timings:
    return _timings.get() or Timings()


@contextlib.contextmanager
def _database() -> Iterator[None]:
    """Time database work and turn driver errors into typed errors without internals."""
    started = time.perf_counter()
    try:
        yield
    except DatabaseError as exc:
        cause = exc.__cause__
        name = type(cause).__name__ if cause is not None else type(exc).__name__
        if name == "QueryCanceled":
            raise QueryTimeout(QUERY_TIMED_OUT.format(seconds=settings.QUERY_TIMEOUT_SEC)) from None
        if name == "PoolTimeout":
            logger.warning("listings pool exhausted")
            raise DatabaseUnavailable(POOL_BUSY) from None
        if name in {"OperationalError", "InterfaceError", "PoolClosed"} or (
            type(exc).__name__ in {"OperationalError", "InterfaceError"}
        ):
            logger.warning("listings database unavailable: %s", name)
            raise DatabaseUnavailable(DATABASE_DOWN) from None
        raise
    finally:
        _timing().db_ms += (time.perf_counter() - started) * 1000


def estimated_count(qs: Any) -> int:
    """PostgreSQL's planner estimate of how many rows `qs` matches: EXPLAIN, nothing runs."""
    plan = json.loads(qs.order_by().values("pk").explain(format="json"))
    return int(plan[0]["Plan"]["Plan Rows"])


def total_of(qs: Any) -> tuple[int, bool]:
    """How many rows match, as (total, exact), without counting a large result.

    Past TOTAL_COUNT_CAP rows by the planner's estimate, the estimate itself is the total
    (total_exact = false); otherwise the rows are counted, up to the cap.
    """
    estimate = estimated_count(qs)
    if estimate > settings.TOTAL_COUNT_CAP:
        return estimate, False
    return capped_count(qs)


def capped_count(qs: Any, cap: int | None = None) -> tuple[int, bool]:
    """How many rows match, counting at most `cap` (TOTAL_COUNT_CAP): (count, exact).

    An exact COUNT(*) over most of a large table costs more than the page itself; past the
    cap the total is a lower bound and the result says so (total_exact = false).
    """
    cap = settings.TOTAL_COUNT_CAP if cap is None else cap
    # Only the key: annotations such as ts_rank_cd would be computed for every counted row.
    counted = int(qs.order_by().values("pk")[: cap + 1].count())
    return (cap, False) if counted > cap else (counted, True)


# --- argument checks -----------------------------------------------------------------------


def _clean_query(query: Any, *, required: bool) -> str | None:
    if query is None or (isinstance(query, str) and not query.strip()):
        if required:
            raise InvalidArgument(QUERY_REQUIRED)
        return None
    if not isinstance(query, str):
        raise InvalidArgument(QUERY_REQUIRED)
    if len(query) > settings.MAX_QUERY_LENGTH:
        raise InvalidArgument(
            QUERY_TOO_LONG.format(length=len(query), limit=settings.MAX_QUERY_LENGTH)
        )
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in query) or "\x00" in query:
        raise InvalidArgument(QUERY_CONTROL_CHARS)
    return " ".join(query.split())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _page(limit: Any, offset: Any) -> tuple[int, int]:
    if not _is_int(limit) or not 1 <= limit <= settings.MAX_LIMIT:
        raise InvalidArgument(LIMIT_RANGE.format(max_limit=settings.MAX_LIMIT))
    if not _is_int(offset) or not 0 <= offset <= MAX_OFFSET:
        raise InvalidArgument(OFFSET_RANGE.format(max_offset=MAX_OFFSET))
    return limit, offset


def _listing_id(listing_id: Any) -> int:
    if not _is_int(listing_id) or not 1 <= listing_id <= 2**63 - 1:
        raise InvalidArgument(LISTING_ID_INVALID)
    return int(listing_id)


def _rates() -> Mapping[str, float]:
    return settings.EXCHANGE_RATES


# --- the vocabulary the table really holds -------------------------------------------------

VOCABULARY_COLUMNS = (*vocabulary.ENUM_CHOICES, "currency")


def _vocabulary_sql() -> str:
    """Every enum column's values with counts (NULL too), and the currencies of priced rows,
    in one scan: one grouping set per column."""
    columns = ", ".join(f"{name}::text AS {name}" for name in VOCABULARY_COLUMNS)
    flags = ", ".join(f"GROUPING({name})" for name in VOCABULARY_COLUMNS)
    sets = ", ".join(
        f"({name})" if name != "currency" else "(currency, priced)" for name in VOCABULARY_COLUMNS
    )
    values = ", ".join(VOCABULARY_COLUMNS)
    return (
        f"SELECT {flags}, {values}, priced, count(*) FROM ("  # noqa: S608 - fixed names
        f"SELECT {columns}, price IS NOT NULL AS priced FROM property_listings) AS t "
        f"GROUP BY GROUPING SETS ({sets})"
    )


def _read_vocabulary() -> vocabulary.Vocabulary:
    present: dict[str, dict[str, int]] = {name: {} for name in VOCABULARY_COLUMNS}
    nulls: dict[str, int] = dict.fromkeys(VOCABULARY_COLUMNS, 0)
    priced: dict[str | None, int] = {}
    width = len(VOCABULARY_COLUMNS)
    try:
        with _database(), connections[LISTINGS].cursor() as cursor:
            cursor.execute(_vocabulary_sql())
            rows = cursor.fetchall()
    except DatabaseError:
        # A table without one of these columns: the documented values still work.
        logger.warning("the values present in property_listings could not be read")
        rows = []
    for row in rows:
        flags, values, is_priced, count = row[:width], row[width : 2 * width], row[-2], row[-1]
        name = VOCABULARY_COLUMNS[flags.index(0)]
        value = values[flags.index(0)]
        if name == "currency" and is_priced:
            priced[value] = priced.get(value, 0) + int(count)
        if value is None:
            nulls[name] += int(count)
        else:
            present[name][str(value)] = present[name].get(str(value), 0) + int(count)
    ordered = {
        name: dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))
        for name, found in present.items()
    }
    return vocabulary.Vocabulary(
        present=ordered,
        nulls=nulls,
        priced_currencies=priced,
        aliases=vocabulary.currency_aliases(settings.CURRENCY_ALIASES, list(_rates())),
        null_currency=settings.DEFAULT_CURRENCY or None,
    )


def live_vocabulary() -> vocabulary.Vocabulary:
    """The enum values and currency spellings present in the table (re-read once a minute)."""
    found: vocabulary.Vocabulary = _for_a_minute("vocabulary", _read_vocabulary)
    return found


def _resolved(raw: Filters | Mapping[str, Any] | None) -> Filters:
    """Untrusted filters validated, their enum values checked against the live vocabulary."""
    return resolve_filters(parse_filters(raw), live_vocabulary())


def _filtered(filters: Filters) -> PropertyListingQuerySet:
    return PropertyListing.objects.filtered(filters, _rates(), live_vocabulary())


def filter_condition(column: str, value: str) -> Q:
    """The condition of one enum filter (for the admin's sidebar): the same resolution and
    the same raw spellings as the tools' filters; raises InvalidArgument for a bad value."""
    resolved = resolve_filters(parse_filters({column: value}), live_vocabulary())
    return enum_condition(column, str(getattr(resolved, column)), live_vocabulary())


def _prices_left_out(filters: Filters, sort_by: str | None = None) -> int | None:
    """With a price bound or a price sort: how many listings matching the other filters have
    a price that could not be used (currency NULL or unrecognised); None otherwise."""
    priced_filter = filters.min_price is not None or filters.max_price is not None
    if not priced_filter and sort_by not in {"price_asc", "price_desc"}:
        return None
    vocab = live_vocabulary()
    if not vocab.prices_without_currency():
        return 0
    unusable = vocab.unusable_currencies()
    condition = Q(currency__in=[raw for raw in unusable if raw is not None])
    if None in unusable:
        condition |= Q(currency__isnull=True)
    unbounded = filters.model_copy(update={"min_price": None, "max_price": None})
    with _database():
        count, _ = capped_count(_filtered(unbounded).filter(condition, price__isnull=False))
    return count


# --- embeddings ----------------------------------------------------------------------------

META_TTL_SEC = 60.0
_recent: dict[str, tuple[float, Any]] = {}


def _for_a_minute(key: str, compute: Callable[[], Any]) -> Any:
    """`compute()`, reused for META_TTL_SEC: facts about the database that rarely change."""
    now = time.monotonic()
    cached = _recent.get(key)
    if cached is not None and cached[0] > now:
        return cached[1]
    value = compute()
    _recent[key] = (now + META_TTL_SEC, value)
    return value


def stored_embedder() -> str | None:
    """Which embedder built the stored vectors, when the database records it (ours do)."""
    stored: str | None = _for_a_minute("embedder", _read_stored_embedder)
    return stored


def _read_stored_embedder() -> str | None:
    with _database(), connections[LISTINGS].cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.vmk_meta') IS NOT NULL")
        row = cursor.fetchone()
        if not (row and row[0]):
            return None
        cursor.execute("SELECT value FROM vmk_meta WHERE key = 'embedder'")
        found = cursor.fetchone()
        return found[0] if found else None


def usable_vector(vector: list[float]) -> bool:
    """A vector with a direction: an all-zero or non-finite one has no cosine distance."""
    norm = math.fsum(x * x for x in vector)
    return math.isfinite(norm) and norm > 0


def _embed(query: str) -> list[float]:
    from .embedders import get_embedder

    embedder = get_embedder()
    stored = stored_embedder()
    if stored and stored != embedder.name:
        raise EmbeddingUnavailable(EMBEDDER_MISMATCH.format(stored=stored, current=embedder.name))
    started = time.perf_counter()
    with telemetry.span(
        f"embeddings {embedder.name}",
        {"gen_ai.operation.name": "embeddings", "gen_ai.request.model": embedder.name},
    ) as span:
        vector = embedder.embed_query_sync(query)
        stats = embedder.last_query_stats()
        cache_hit = stats.cache_hit if stats else None
        telemetry.set_attributes(
            span, {"vmk.embedding.cache_hit": cache_hit, "vmk.embedding.dimension": len(vector)}
        )
    timing = _timing()
    timing.embedding_ms += (time.perf_counter() - started) * 1000
    timing.embedding_cache_hit = cache_hit
    if not usable_vector(vector):
        raise EmbeddingUnavailable(QUERY_EMBEDDING_EMPTY)
    return vector


# --- cards ---------------------------------------------------------------------------------


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


# --- semantic ------------------------------------------------------------------------------


# Transaction-local pgvector settings for one vector search (see vector_search_options).
VECTOR_SEARCH_OPTIONS_SQL = (
    "SELECT set_config('hnsw.ef_search', %s, true), "
    "set_config('hnsw.iterative_scan', %s, true), "
    "set_config('hnsw.max_scan_tuples', %s, true)"
)


def vector_search_options(ef_search: int | None = None) -> list[str]:
    """Parameters of VECTOR_SEARCH_OPTIONS_SQL from settings."""
    return [
        str(ef_search or settings.HNSW_EF_SEARCH),
        settings.HNSW_ITERATIVE_SCAN,
        str(settings.HNSW_MAX_SCAN_TUPLES),
    ]


def _set_vector_search_options(ef_search: int) -> None:
    """Iterative index scans so that filtered queries still fill the page (pgvector ≥ 0.8)."""
    with connections[LISTINGS].cursor() as cursor:
        cursor.execute(VECTOR_SEARCH_OPTIONS_SQL, vector_search_options(ef_search))


def _plan_uses(qs: Any, index: str) -> bool:
    """Whether PostgreSQL's plan for `qs` scans `index` (EXPLAIN: planned, not run)."""

    def scans(node: Mapping[str, Any]) -> bool:
        return node.get("Index Name") == index or any(scans(n) for n in node.get("Plans", ()))

    return scans(json.loads(qs.explain(format="json"))[0]["Plan"])


def _ef_search_for(estimate: int) -> int:
    """A wider graph search when the filter keeps a small share of the listings."""
    rows = _for_a_minute(
        "rows_with_embedding",
        lambda: estimated_count(PropertyListing.objects.with_embedding()),
    )
    if estimate < settings.HNSW_SELECTIVE_SHARE * rows:
        return max(settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_SELECTIVE)
    return int(settings.HNSW_EF_SEARCH)


@dataclass
class _Neighbour:
    listing: PropertyListing
    distance: float


def _neighbours(
    vector: list[float],
    filters: Filters,
    *,
    count: int,
    min_similarity: float | None = None,
    metric: str = "cosine",
    exclude_id: int | None = None,
    with_total: bool = True,
) -> tuple[list[_Neighbour], int, bool, list[Any], str]:
    """The `count` nearest listings under `filters`, exactly ordered, how many match, and
    which path ranked them (the HNSW index's name from the catalog, or EXACT_PATH).

    When the planner expects few rows to match (at most EXACT_VECTOR_SEARCH_MAX_ROWS), they
    are ranked exactly by a pre-filtered scan: an HNSW graph walk under a selective filter
    loses recall. Otherwise the HNSW index ranks them, with iterative scans so the page still
    fills; should the scan stop short of a full page anyway, the exact scan runs instead.
    """
    base = _filtered(filters).with_embedding()
    if exclude_id is not None:
        base = base.exclude(id=exclude_id)
    ranked = base.nearest(vector)
    if min_similarity is not None:
        ranked = ranked.filter(distance__lte=1.0 - min_similarity)
    rows: list[Any] | None = None
    total, exact = 0, False
    hnsw = capabilities.current().hnsw_index
    with _database(), transaction.atomic(using=LISTINGS):
        estimate = estimated_count(base)
        # Without an HNSW index the "index" path would be a slower exact scan: skip it.
        if hnsw is not None and estimate > settings.EXACT_VECTOR_SEARCH_MAX_ROWS:
            path = hnsw
            _set_vector_search_options(_ef_search_for(estimate))
            page = ranked.with_metric(vector, metric).cards()[:count]
            if not _plan_uses(page, hnsw):
                path = EXACT_PATH  # the planner ranks these by a scan: exact all the same
            rows = list(page)
            if len(rows) < count:
                rows = None  # too few for a full page: only an exact scan can tell why
            elif with_total and min_similarity is not None:
                total, exact = capped_count(ranked)
            elif with_total:
                total = max(estimate, count)  # the planner's estimate: no count of the rows
        if rows is None:
            path = EXACT_PATH
            rows, total = _ranked_exactly(ranked, vector, metric, count)
            exact = True
    if not with_total:
        total, exact = 0, False
    # relaxed_order iterative scans may return near-ties out of order: sort the page exactly.
    rows.sort(key=lambda listing: (listing.distance, listing.id))
    metrics = [listing.metric_distance for listing in rows]
    return [_Neighbour(row, float(row.distance)) for row in rows], total, exact, metrics, path


def _ranked_exactly(
    ranked: PropertyListingQuerySet, vector: list[float], metric: str, count: int
) -> tuple[list[Any], int]:
    """The `count` nearest rows of `ranked` by exact distance, and how many rows it has.

    One scan computes every distance and the count (a window over id and distance only, so
    little is held in memory); the cards of the page are then fetched by primary key.
    """
    # `distance + 0` is an ORDER BY the index cannot serve: the planner filters, then sorts.
    top = list(
        ranked.order_by(F("distance") + 0, "id")
        .annotate(matched=Window(Count("pk")))
        .values_list("id", "matched")[:count]
    )
    if not top:
        return [], 0
    cards = (
        PropertyListing.objects.filter(id__in=[listing_id for listing_id, _ in top])
        .nearest(vector)
        .with_metric(vector, metric)
        .cards()
    )
    by_id = {card.id: card for card in cards}
    return [by_id[listing_id] for listing_id, _ in top], int(top[0][1])


def _vector_page(
    vector: list[float],
    filters: Filters,
    *,
    limit: int,
    offset: int,
    min_similarity: float | None,
    metric: str,
    mode: str,
    query: str | None,
    exclude_id: int | None = None,
    with_total: bool = True,
) -> SearchPage:
    neighbours, total, exact, metric_values, path = _neighbours(
        vector,
        filters,
        count=offset + limit,
        min_similarity=min_similarity,
        metric=metric,
        exclude_id=exclude_id,
        with_total=with_total,
    )
    cards = []
    for neighbour, metric_value in list(zip(neighbours, metric_values, strict=True))[offset:]:
        distance = float(metric_value)
        if metric == "inner_product":
            distance = -distance  # pgvector's <#> is the negative inner product
        cards.append(
            _card(
                neighbour.listing,
                similarity_score=round(1.0 - neighbour.distance, 6),
                distance=round(distance, 6),
            )
        )
    _timing().rows = len(cards)
    return SearchPage(
        total=total if with_total else offset + len(cards),
        total_exact=exact,
        limit=limit,
        offset=offset,
        mode=mode,
        query=query,
        filters=filters.active(),
        distance_metric=metric,
        index_used=path,
        prices_left_out=_prices_left_out(filters),
        listings=cards,
    )


def _check_metric(distance_metric: Any) -> str:
    if distance_metric not in DISTANCE_METRICS:
        raise InvalidArgument(METRIC_UNKNOWN)
    return str(distance_metric)


def _check_min_similarity(min_similarity: Any) -> float | None:
    if min_similarity is None:
        return None
    if (
        isinstance(min_similarity, bool)
        or not isinstance(min_similarity, int | float)
        or math.isnan(min_similarity)
        or not -1.0 <= float(min_similarity) <= 1.0
    ):
        raise InvalidArgument(MIN_SIMILARITY_RANGE)
    return float(min_similarity)


def semantic_search(
    *,
    query: str,
    filters: Filters | Mapping[str, Any] | None = None,
    limit: int = 10,
    offset: int = 0,
    min_similarity: float | None = None,
    distance_metric: str = "cosine",
) -> SearchPage:
    """Listings nearest in meaning to a Ukrainian `query` (the server embeds it).

    All three metrics are ranked through the cosine HNSW index: the stored vectors are unit
    length, so cosine, L2 and inner product order them identically; `distance` reports the
    requested metric and `similarity_score` is always 1 − cosine distance.
    """
    text = _clean_query(query, required=True)
    assert text is not None
    limit, offset = _page(limit, offset)
    parsed = _resolved(filters)
    metric = _check_metric(distance_metric)
    threshold = _check_min_similarity(min_similarity)
    vector = _embed(text)
    return _vector_page(
        vector,
        parsed,
        limit=limit,
        offset=offset,
        min_similarity=threshold,
        metric=metric,
        mode="semantic",
        query=text,
    )


def similar_to_listing(
    *,
    listing_id: int,
    filters: Filters | Mapping[str, Any] | None = None,
    limit: int = 10,
    offset: int = 0,
    with_total: bool = True,
) -> SearchPage:
    """'More like this': neighbours of a listing's stored embedding, without the listing.

    `with_total=False` skips counting every listing that has an embedding (a full scan at a
    million rows); `total` is then the lower bound offset + len(listings), not exact.
    """
    listing_id = _listing_id(listing_id)
    limit, offset = _page(limit, offset)
    parsed = _resolved(filters)
    with _database():
        rows = list(PropertyListing.objects.filter(id=listing_id).values_list("embedding"))
    if not rows:
        raise NotFound(LISTING_NOT_FOUND.format(listing_id=listing_id))
    if rows[0][0] is None:
        raise NotFound(LISTING_HAS_NO_EMBEDDING.format(listing_id=listing_id))
    vector = [float(x) for x in rows[0][0]]
    if not usable_vector(vector):
        raise NotFound(LISTING_EMBEDDING_EMPTY.format(listing_id=listing_id))
    return _vector_page(
        vector,
        parsed,
        limit=limit,
        offset=offset,
        min_similarity=None,
        metric="cosine",
        mode="similar",
        query=None,
        exclude_id=listing_id,
        with_total=with_total,
    )


# --- full text -----------------------------------------------------------------------------


def _fts_config() -> str:
    """FTS_CONFIG when the database has it, else the fallback (capabilities says why)."""
    return capabilities.current().fts_config


def _fts_query(text: str) -> SearchQuery:
    return SearchQuery(text, config=_fts_config(), search_type="plain")


def _words(text: str) -> list[str]:
    return [word for word in text.split() if len(word) >= 2][:10] or [text]


def _any_word_query(text: str) -> SearchQuery:
    """Listings with any of the words (websearch syntax, its operators taken out)."""
    words = [word.strip('"-') for word in text.split()]
    return SearchQuery(
        " or ".join(word for word in words if word and word.lower() != "or"),
        config=_fts_config(),
        search_type="websearch",
    )


def _text_search_query(text: str, mode: str) -> SearchQuery | None:
    """The tsquery a text mode of _matching_text matches with; None for the ILIKE fallback."""
    if mode == "fulltext":
        return _fts_query(text)
    if mode == "fulltext_any_word":
        return _any_word_query(text)
    return None


def _matching_text(
    text: str, base: PropertyListingQuerySet, *, any_word_fallback: bool = False
) -> tuple[Any, str]:
    """Listings matching every word (full text), else a fallback, and which one ran.

    The fallback is the ILIKE substring match; with `any_word_fallback` (hybrid search) it is
    full text with any of the words instead, which the GIN index serves.
    """
    matched = base.matching(_fts_query(text))
    with _database(), transaction.atomic(using=LISTINGS):
        # Through the GIN index: for `LIMIT 1` the planner may otherwise scan the table or a
        # filter's index row by row, all of it when the words match nothing.
        with connections[LISTINGS].cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off")
        if matched.exists():
            return matched, "fulltext"
    if any_word_fallback:
        return base.matching(_any_word_query(text)), "fulltext_any_word"
    return base.containing_words(_words(text)), "ilike_fallback"


def fulltext_queryset(
    *, query: str, base: PropertyListingQuerySet | None = None
) -> tuple[PropertyListingQuerySet, str]:
    """Listings matching `query` as a lazy queryset, for callers that paginate themselves.

    Full text with Ukrainian morphology (annotated with `rank`) when anything matches,
    otherwise the ILIKE fallback over title, description and address; the second item is
    the mode, "fulltext" or "ilike_fallback", as in fulltext_search. `base` narrows it
    (the admin passes its filtered changelist queryset); the caller orders and slices.
    """
    text = _clean_query(query, required=True)
    assert text is not None
    return _matching_text(text, base if base is not None else PropertyListing.objects.all())


def _text_ranked(
    text: str, filters: Filters, sort_by: str, *, any_word_fallback: bool = False
) -> tuple[Any, Any, str]:
    """(the page queryset, the queryset to count, mode) for a text query.

    Full text when anything matches, else the ILIKE fallback. Relevance ranks at most the
    FTS_RANK_CANDIDATES newest matches: ts_rank_cd reads every candidate's tsvector, and a
    word in most listings would otherwise rank the whole table for one page.
    """
    matched, mode = _matching_text(
        text,
        _filtered(filters),
        any_word_fallback=any_word_fallback,
    )
    qs = matched
    query = _text_search_query(text, mode)
    if query is not None:
        if sort_by == "relevance":
            newest = matched.order_by("-id").values("id")[: settings.FTS_RANK_CANDIDATES]
            qs = PropertyListing.objects.filter(id__in=Subquery(newest)).annotate(
                rank=SearchRank(F("search_vector"), query, cover_density=True)
            )
        qs = qs.with_headline(query, _fts_config())
    elif sort_by == "relevance":
        sort_by = "date_desc"
    if sort_by in {"price_asc", "price_desc"}:
        qs = qs.with_price_in("USD", _rates(), live_vocabulary())
    return qs.sorted_by(sort_by), matched, mode


def fulltext_search(
    *,
    query: str | None = None,
    filters: Filters | Mapping[str, Any] | None = None,
    sort_by: str = "relevance",
    limit: int = 10,
    offset: int = 0,
) -> SearchPage:
    """Full-text search (PostgreSQL text search, Ukrainian morphology) plus filters.

    With no query it is a pure filter. When full text finds nothing it falls back to a
    case-insensitive substring match over title, description and address (mode says which).
    """
    text = _clean_query(query, required=False)
    limit, offset = _page(limit, offset)
    parsed = _resolved(filters)
    if sort_by not in SORT_ORDERS:
        raise InvalidArgument(SORT_UNKNOWN)
    if text is None:
        order = "date_desc" if sort_by == "relevance" else sort_by
        qs = _filtered(parsed)
        if order in {"price_asc", "price_desc"}:
            qs = qs.with_price_in("USD", _rates(), live_vocabulary())
        qs = counted = qs.sorted_by(order)
        mode = "filter"
    else:
        qs, counted, mode = _text_ranked(text, parsed, sort_by)
    with _database():
        rows = list(qs.cards()[offset : offset + limit])
        if len(rows) < limit and (rows or not offset):
            total, exact = offset + len(rows), True  # the last page: nothing to count
        else:
            total, exact = total_of(counted)
            total = max(total, offset + len(rows))
    cards = [
        _card(row, rank_score=round(float(row.rank), 6) if getattr(row, "rank", None) else None)
        for row in rows
    ]
    _timing().rows = len(cards)
    return SearchPage(
        total=total,
        total_exact=exact,
        limit=limit,
        offset=offset,
        mode=mode,
        query=text,
        filters=parsed.active(),
        sort_by=sort_by,
        fts_config=None if text is None else _fts_config(),
        prices_left_out=_prices_left_out(parsed, sort_by),
        listings=cards,
    )


# --- hybrid --------------------------------------------------------------------------------


def rrf_fuse(*ranked_lists: list[int], k: int = RRF_K) -> list[tuple[int, float, list[int | None]]]:
    """Reciprocal Rank Fusion: (id, score, 1-based rank in each list or None), best first."""
    scores: dict[int, float] = {}
    ranks: dict[int, list[int | None]] = {}
    for position, ids in enumerate(ranked_lists):
        for rank, listing_id in enumerate(ids, start=1):
            scores[listing_id] = scores.get(listing_id, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(listing_id, [None] * len(ranked_lists))[position] = rank
    ordered = sorted(scores, key=lambda listing_id: (-scores[listing_id], listing_id))
    return [(listing_id, scores[listing_id], ranks[listing_id]) for listing_id in ordered]


def hybrid_search(
    *,
    query: str,
    filters: Filters | Mapping[str, Any] | None = None,
    limit: int = 10,
    offset: int = 0,
) -> SearchPage:
    """Semantic and full-text results fused by Reciprocal Rank Fusion (k = 60)."""
    text = _clean_query(query, required=True)
    assert text is not None
    limit, offset = _page(limit, offset)
    parsed = _resolved(filters)
    candidates = min(max(50, 2 * (offset + limit)), MAX_CANDIDATES)
    vector = _embed(text)
    neighbours, _, _, _, path = _neighbours(vector, parsed, count=candidates, with_total=False)
    # A sentence rarely has every word in one listing; scanning for substrings instead would
    # read the whole table for a weak signal, so the text side falls back to any word.
    text_qs, _, text_mode = _text_ranked(text, parsed, "relevance", any_word_fallback=True)
    with _database():
        text_ids = list(text_qs.values_list("id", flat=True)[:candidates])
    fused = rrf_fuse([n.listing.id for n in neighbours], text_ids)
    page = fused[offset : offset + limit]
    by_id = {n.listing.id: n.listing for n in neighbours}
    missing = [listing_id for listing_id, _, _ in page if listing_id not in by_id]
    if missing:
        with _database():
            query_for_headline = _text_search_query(text, text_mode)
            extra = PropertyListing.objects.filter(id__in=missing).cards()
            if query_for_headline is not None:
                extra = extra.with_headline(query_for_headline, _fts_config())
            by_id.update({row.id: row for row in extra})
    distances = {n.listing.id: n.distance for n in neighbours}
    cards = []
    for listing_id, score, (semantic_rank, text_rank) in page:
        similarity = distances.get(listing_id)
        cards.append(
            _card(
                by_id[listing_id],
                fused_score=round(score, 6),
                semantic_rank=semantic_rank,
                fulltext_rank=text_rank,
                similarity_score=None if similarity is None else round(1.0 - similarity, 6),
            )
        )
    _timing().rows = len(cards)
    exact = len(neighbours) < candidates and len(text_ids) < candidates
    return SearchPage(
        total=len(fused),
        total_exact=exact,
        limit=limit,
        offset=offset,
        mode="hybrid",
        query=text,
        filters=parsed.active() | {"fulltext_mode": text_mode},
        index_used=path,
        fts_config=_fts_config(),
        prices_left_out=_prices_left_out(parsed),
        listings=cards,
    )


# --- single listing ------------------------------------------------------------------------


def get_listing(*, listing_id: int) -> ListingDetail:
    """The full card of one listing, any status; service columns never appear."""
    listing_id = _listing_id(listing_id)
    with _database():
        listing = (
            PropertyListing.objects.select_related("property_type")
            .defer("embedding", "search_vector", "raw_data_id", "created_at", "updated_at")
            .with_has_embedding()
            .filter(id=listing_id)
            .first()
        )
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


# --- stats ---------------------------------------------------------------------------------


def _group_value(group_by: str) -> Any:
    """The column to group by; an enum column in its documented form, so that 'daily' and
    'rent_short' are one group."""
    if group_by not in vocabulary.ENUM_CHOICES:
        return F(group_by)
    vocab = live_vocabulary()
    whens = []
    for value in vocabulary.documented(group_by):
        spellings = [raw for raw in vocab.spellings(group_by, value) if raw != value]
        if spellings:
            whens.append(When(**{f"{group_by}__in": spellings}, then=Value(value)))
    if not whens:
        return F(group_by)
    return Case(*whens, default=F(group_by), output_field=CharField())


class Percentile(Aggregate):
    """The continuous percentile `fraction` (0 to 1) of the expression."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: Any, *, fraction: float, **extra: Any) -> None:
        super().__init__(expression, fraction=float(fraction), **extra)


class Median(Percentile):
    def __init__(self, expression: Any, **extra: Any) -> None:
        super().__init__(expression, fraction=0.5, **extra)


def listing_stats(
    *,
    filters: Filters | Mapping[str, Any] | None = None,
    group_by: str | None = None,
    currency: str = "USD",
) -> StatsResult:
    """Counts and price figures (min, median, max, average, median per m²) in `currency`."""
    parsed = _resolved(filters)
    if group_by is not None and group_by not in GROUP_BY:
        raise InvalidArgument(GROUP_BY_UNKNOWN)
    code = isinstance(currency, str) and vocabulary.currency_code(
        currency, live_vocabulary().aliases
    )
    if not code:
        raise InvalidArgument(CURRENCY_UNKNOWN.format(allowed=", ".join(_rates())))
    currency = code
    normalised = price_in(currency, _rates(), live_vocabulary())
    qs = _filtered(parsed).annotate(p=normalised)
    aggregates = {
        "count": Count("id"),
        "priced_count": Count("p"),
        "prices_left_out": Count("id", filter=Q(price__isnull=False, p__isnull=True)),
        "min_price": Min("p"),
        "median_price": Median("p"),
        "max_price": Max("p"),
        "avg_price": Avg("p"),
        "median_price_per_m2": Median(
            F("p") / F("total_area"), filter=Q(total_area__gt=0, p__isnull=False)
        ),
    }
    truncated = False
    with _database():
        if group_by is None:
            rows = [qs.aggregate(**aggregates)]
            total = rows[0]["count"]
        else:
            grouped = list(
                qs.annotate(group_value=_group_value(group_by))
                .values("group_value")
                .annotate(**aggregates)
                .order_by("-count", "group_value")[: MAX_STATS_GROUPS + 1]
            )
            truncated = len(grouped) > MAX_STATS_GROUPS
            rows = grouped[:MAX_STATS_GROUPS]
            total = qs.count() if truncated else sum(row["count"] for row in rows)
    groups = [
        StatsRow(
            group=row.get("group_value") if group_by else None,
            count=row["count"],
            priced_count=row["priced_count"],
            prices_left_out=row["prices_left_out"],
            **{
                key: None if row[key] is None else round(float(row[key]), 2)
                for key in (
                    "min_price",
                    "median_price",
                    "max_price",
                    "avg_price",
                    "median_price_per_m2",
                )
            },
        )
        for row in rows
    ]
    warnings = []
    if parsed.deal_type is None and group_by != "deal_type":
        warnings.append(MIXED_DEALS_WARNING)
    left_out = sum(row.prices_left_out for row in groups)
    if left_out:
        warnings.append(PRICES_LEFT_OUT_WARNING.format(count=left_out))
    _timing().rows = len(groups)
    return StatsResult(
        currency=currency,
        group_by=group_by,
        filters=parsed.active(),
        total=total,
        groups=groups,
        groups_truncated=truncated,
        warnings=warnings,
    )


__all__ = [
    "DISTANCE_METRICS",
    "GROUP_BY",
    "SORT_ORDERS",
    "SearchError",
    "collect_timings",
    "fulltext_queryset",
    "fulltext_search",
    "get_listing",
    "hybrid_search",
    "listing_stats",
    "rrf_fuse",
    "semantic_search",
    "similar_to_listing",
]
