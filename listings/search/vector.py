"""Vector search: the query's embedding, the HNSW-or-exact choice, semantic_search and
similar_to_listing."""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import F

from vmkproject import telemetry

from .. import capabilities, vectorplan
from ..compiled import (
    ID,
    IDS,
    CompiledQuery,
    Placeholder,
    Row,
    Settings,
    Shape,
    Statements,
    execute_fetch,
)
from ..embedders_progress import incomplete_note
from ..errors import (
    EMBEDDED_NOW_NOTE,
    EMBEDDER_MISMATCH,
    EMPTY_EMBEDDING,
    LISTING_EMBEDDING_EMPTY,
    LISTING_HAS_NO_EMBEDDING,
    LISTING_NOT_FOUND,
    NOT_EMBEDDED,
    QUERY_EMBEDDING_EMPTY,
    EmbeddingUnavailable,
    EmptyEmbedding,
    NoEmbedding,
    NotFound,
)
from ..filters import Filters
from ..filterslots import filter_values
from ..models import PropertyListing
from ..querysets import PropertyListingQuerySet, QueryVector
from ..results import SOURCE_FIELDS, SearchPage
from ..runtime import (
    EXACT_PATH,
    LISTINGS,
    ByIdentity,
    _database,
    _rates,
    _timing,
    capped_count,
    estimated_count,
    remembered,
    stored_embedder,
    up_to_cap,
)
from ..types import Limit, ListingId, Metric, MinSimilarity, Offset, Query, RawFilters, checked
from .cards import _card, _float
from .cut import reporting_cut
from .filtering import _prices_left_out, _resolved, live_vocabulary
from .understood import understood


def usable_vector(vector: Sequence[float]) -> bool:
    """A vector with a direction: an all-zero or non-finite one has no cosine distance."""
    norm = math.fsum(map(operator.mul, vector, vector))
    return math.isfinite(norm) and norm > 0


# Query vectors as statements take them, by the identity of the embedder's cached tuple.
PREPARED_SIZE = 64
_PREPARED = ByIdentity(PREPARED_SIZE)


def _prepared(values: Sequence[float]) -> tuple[QueryVector, bool]:
    """`values` as a statement's query vector, with pgvector's text written (0.19 ms for 768
    dimensions), and whether it has a direction (0.035 ms): once per query while the
    embedder's cache holds its vector, whose hits return the same immutable tuple."""
    if isinstance(values, tuple):
        return _PREPARED.get(values, lambda: _prepare(values))
    return _prepare(values)


def _prepare(values: Sequence[float]) -> tuple[QueryVector, bool]:
    encoded = QueryVector(list(values))
    encoded.to_text()
    return encoded, usable_vector(values)


def _embed(query: str, *, document: bool = False) -> QueryVector:
    """The vector of a search query, or with `document` of a listing's text made as the
    stored vectors are (their prefix)."""
    from ..embedders import get_embedder

    embedder = get_embedder()
    stored = stored_embedder()
    if stored and stored != embedder.name:
        raise EmbeddingUnavailable(EMBEDDER_MISMATCH.format(stored=stored, current=embedder.name))
    started = time.perf_counter()
    with telemetry.span(
        f"embeddings {embedder.name}",
        {"gen_ai.operation.name": "embeddings", "gen_ai.request.model": embedder.name},
    ) as span:
        made = embedder.document_vector if document else embedder.query_vector
        vector, cache_hit = made(query)
        telemetry.set_attributes(
            span, {"vmk.embedding.cache_hit": cache_hit, "vmk.embedding.dimension": len(vector)}
        )
    timing = _timing()
    timing.embedding_ms += (time.perf_counter() - started) * 1000
    timing.embedding_cache_hit = cache_hit
    encoded, usable = _prepared(vector)
    if not usable:
        raise EmbeddingUnavailable(QUERY_EMBEDDING_EMPTY)
    return encoded


# pgvector settings for one vector search, local to its transaction (vector_search_settings).
# enable_sort off keeps the planner on the index's ordered scan (listings.vectorplan).
VECTOR_SEARCH_OPTIONS_SQL = (
    "SELECT set_config('hnsw.ef_search', %s, true), "
    "set_config('hnsw.iterative_scan', %s, true), "
    "set_config('hnsw.max_scan_tuples', %s, true), "
    "set_config('enable_sort', 'off', true)"
)


def vector_search_options(ef_search: int | None = None) -> list[str]:
    """Parameters of VECTOR_SEARCH_OPTIONS_SQL from settings."""
    return [
        str(ef_search or settings.HNSW_EF_SEARCH),
        settings.HNSW_ITERATIVE_SCAN,
        str(settings.HNSW_MAX_SCAN_TUPLES),
    ]


def vector_search_settings(ef_search: int) -> Settings:
    """The HNSW branch's settings, sent with its statement: iterative index scans, so that
    filtered queries still fill the page (pgvector ≥ 0.8), and no sorting."""
    return Settings(VECTOR_SEARCH_OPTIONS_SQL, tuple(vector_search_options(ef_search)))


def _graph_rows(graph_rows: int | None = None) -> int:
    """The listings an HNSW graph holds: a partial index's `graph_rows`, else the table's
    listings with a vector (a partial index never analysed counts -1 rows)."""
    if graph_rows is not None and graph_rows > 0:
        return graph_rows
    return remembered(
        "rows_with_embedding", lambda: estimated_count(PropertyListing.objects.with_embedding())
    )


def _selective(estimate: int, graph_rows: int | None = None) -> bool:
    """Whether the filter keeps less than HNSW_SELECTIVE_SHARE of the graph's listings: the
    table's, or the `graph_rows` of a partial index."""
    return estimate < settings.HNSW_SELECTIVE_SHARE * _graph_rows(graph_rows)


def _by_status_only(filters: Filters) -> bool:
    """Whether the filters narrow the listings by their status alone: the one filter a
    query's text cannot talk about. Under any other (a city, a type, rooms, a price), the
    listings the query is nearest to are the ones the filter keeps or drops, and the narrow
    search lost recall: at 100 000 listings, 40 queries, `sale` (55 %) 0.953 at 200 against
    0.983 at 400, apartments (76 %) 0.912 against 0.945, a worst query of 0.4-0.6; under the
    default status (81 %) 0.988, its worst query 0.9."""
    return set(filters.active()) <= {"listing_status"}


def _ef_search_for(
    estimate: int, index_rows: int | None = None, *, by_status_only: bool = False
) -> int:
    """The graph search's width from the share of the graph's listings the filter keeps,
    and the table's size (bench_search's recall table): wider when the filter keeps a small
    share (HNSW_EF_SEARCH_SELECTIVE), narrower (HNSW_EF_SEARCH_BROAD) when only the status
    filters and it keeps at least HNSW_BROAD_SHARE of the graph, in a table of at most
    HNSW_BROAD_MAX_ROWS listings with a vector, HNSW_EF_SEARCH otherwise. The table's size,
    not a partial index's: at 1 000 000 listings the city indexes of about 100 000 (m 24)
    gave recall@10 0.938 at 200 against 1.0 at 400, where the whole-table index of 100 000
    listings gives 1.0 at 200."""
    if _selective(estimate, index_rows):
        return max(settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_SELECTIVE)
    broad = by_status_only and estimate >= settings.HNSW_BROAD_SHARE * _graph_rows(index_rows)
    if broad and _graph_rows() <= settings.HNSW_BROAD_MAX_ROWS:
        return min(settings.HNSW_EF_SEARCH, settings.HNSW_EF_SEARCH_BROAD)
    return int(settings.HNSW_EF_SEARCH)


def _ranked_by_a_scan(estimate: int) -> bool:
    """Whether the rows the filters keep are ranked by an exact scan: at most
    EXACT_VECTOR_SEARCH_MAX_ROWS of them, and under HNSW_SELECTIVE_SHARE of the listings (an
    HNSW walk under such a filter loses recall: 0.825 for Львів + 2 rooms, 5 % of 100 000).
    A filter that keeps most of a small table is the index's: on the demo's 5 000 listings
    its recall@10 was 1.0 under six filters keeping 10-100 % of them, unfiltered in 6.6 ms
    of SQL against 25 exactly."""
    return estimate <= settings.EXACT_VECTOR_SEARCH_MAX_ROWS and _selective(estimate)


@dataclass
class _Neighbour:
    listing: PropertyListing | Row
    distance: float


# The page statements of the HNSW branch (and of its exact fallback) by shape: the ORM's
# build and compile took 1.7 ms a call (bench_compile), a third of our time above the SQL.
_PAGES = Statements()


class _StandInVector(QueryVector):
    """A query vector a page statement is compiled with: its text is a marker."""

    def __init__(self, marker: str) -> None:
        super().__init__([0.0])
        self._text = marker


_VECTOR_MARKERS = ("[-7310000.125]", "[-7310000.25]")
VECTOR = Placeholder(
    (_StandInVector(_VECTOR_MARKERS[0]), _StandInVector(_VECTOR_MARKERS[1])),
    _VECTOR_MARKERS,
    QueryVector.to_text,
)


def _neighbours(
    encoded: QueryVector,
    filters: Filters,
    *,
    count: int,
    min_similarity: float | None = None,
    metric: str = "cosine",
    exclude_id: int | None = None,
    with_total: bool = True,
    cards: bool = True,
) -> tuple[list[_Neighbour], int, bool, list[Any], str]:
    """The `count` nearest listings under `filters`, exactly ordered, how many match, and
    which path ranked them (the HNSW index the plan scans, whole-table or partial, or
    EXACT_PATH). Each is a card's row, or with `cards=False` its id and distance only (hybrid
    search fuses 100 or more candidates and shows 10: their cards are fetched for the page alone;
    cosine distance only).

    When the planner expects few rows to match (at most EXACT_VECTOR_SEARCH_MAX_ROWS), they
    are ranked exactly by a pre-filtered scan: an HNSW graph walk under a selective filter
    loses recall. Otherwise the HNSW index ranks them, with iterative scans so the page still
    fills; should the scan stop short of a full page anyway, the exact scan runs instead.
    Querysets are built only when a statement is compiled (see _PAGES).
    """

    vocabulary, rates = live_vocabulary(), _rates()
    filters_json = filters.key()
    # the filters' values: placeholders after the vector and the id left out (filterslots)
    given = filter_values(filters, rates)

    def kept(
        *, usable: bool, excluded: int | None = exclude_id, values: tuple[Any, ...] = given.values
    ) -> PropertyListingQuerySet:
        """The filtered listings with a vector: `usable` leaves out all-zero ones too (their
        norm is checked), else only NULLs (the HNSW index holds no zero vector, and the
        exact ranking leaves their NaN distances out)."""
        rows = given.queryset(values, rates, vocabulary)
        if exclude_id is not None:
            rows = rows.exclude(id=excluded)
        return rows.with_embedding() if usable else rows.filter(embedding__isnull=False)

    def ranking(
        query_vector: QueryVector,
        excluded: int | None = exclude_id,
        *,
        usable: bool,
        values: tuple[Any, ...] = given.values,
    ) -> PropertyListingQuerySet:
        ranked = kept(usable=usable, excluded=excluded, values=values).nearest(query_vector)
        if min_similarity is not None:
            ranked = ranked.filter(distance__lte=1.0 - min_similarity)
        return ranked

    if not cards and metric != "cosine":
        raise ValueError("neighbours without their cards are ranked by cosine distance only")

    def unpacked(rest: tuple[Any, ...]) -> tuple[int | None, tuple[Any, ...]]:
        """A statement's arguments after the vector: the id left out, if any, and the
        filters' values."""
        return (None, rest) if exclude_id is None else (rest[0], rest[1:])

    def page(usable: bool) -> Any:
        def build(query_vector: QueryVector, *rest: Any) -> Any:
            excluded, values = unpacked(rest)
            ranked = ranking(query_vector, excluded, usable=usable, values=values)
            if not cards:
                return ranked.only("id")[:count]
            return ranked.with_metric(query_vector, metric).cards()[:count]

        return build

    def distances_of(query_vector: QueryVector, *rest: Any) -> Any:
        excluded, values = unpacked(rest)
        ranked = ranking(query_vector, excluded, usable=False, values=values)
        return ranked.order_by().values("id", "distance")

    slots: list[tuple[Placeholder, Any]] = [(VECTOR, encoded)]
    if exclude_id is not None:
        slots.append((ID, exclude_id))
    slots += given.slots
    context = (vocabulary, rates)  # the statement keeps them: its key names them by id()

    def key(kind: object) -> tuple[Any, ...]:
        # the page (kind: whether norms are checked) or the exact ranking's "distances"
        shape = (given.key, exclude_id is None, min_similarity, metric, count, cards)
        return ("vector", kind, *shape, vocabulary.statement_key, id(rates))

    def page_shape(usable: bool) -> Shape:
        return Shape(key(usable), page(usable), context)

    def rows_kept(*rest: Any) -> Any:
        excluded, values = unpacked(rest)
        return kept(usable=True, excluded=excluded, values=values)

    def planned_rows() -> int:
        """The planner's estimate of the rows kept, compiled once per filter names."""
        return _PAGES.estimated_rows(Shape(key("kept"), rows_kept, context), slots[1:], LISTINGS)

    def rows_up_to(*rest: Any) -> Any:
        excluded, values = unpacked(rest)
        rows = kept(usable=False, excluded=excluded, values=values)
        return up_to_cap(rows, settings.EXACT_VECTOR_SEARCH_MAX_ROWS)

    def counted_rows() -> int:
        """The rows kept, counted up to EXACT_VECTOR_SEARCH_MAX_ROWS + 1 (compiled once per
        filter names: the ORM built the count each call)."""
        limit = ("counted", settings.EXACT_VECTOR_SEARCH_MAX_ROWS)
        sql, params = _PAGES.sql(Shape(key(limit), rows_up_to, context), slots[1:], LISTINGS)
        counting = f"SELECT count(*) FROM ({sql}) AS kept"  # noqa: S608 - the ORM's
        return int(execute_fetch(counting, params, LISTINGS)[0][0])

    rows: list[Any] | None = None
    total, exact = 0, False
    path = EXACT_PATH
    found = capabilities.current()
    indexes, partial_rows = found.vector_indexes, dict(found.partial_index_rows)
    # No transaction: the HNSW branch's settings go with each of its statements (Settings).
    with _database():
        estimate = vectorplan.remembered_estimate(
            (filters_json, exclude_id is None),
            lambda: _rows_kept(planned_rows, counted_rows),
        )
        # Without an HNSW index the "index" path would be a slower exact scan: skip it.
        if indexes and not _ranked_by_a_scan(estimate):
            by_status_only = _by_status_only(filters)
            ef_search = _ef_search_for(estimate, by_status_only=by_status_only)
            options = vector_search_settings(ef_search)
            thresholds = (min_similarity is None, exclude_id is None)
            # Which filters are set decides the plan; with partial indexes their values do
            # too (Київ's index serves city = Київ, not city = Львів).
            filtered_by = filters_json if partial_rows else tuple(filters.active())
            shape = (filtered_by, metric, *thresholds, ef_search)
            # The index the planner scans (a partial one where its WHERE fits the filter).
            plan = lambda: _PAGES.plan(page_shape(False), slots, LISTINGS, options)  # noqa: E731
            path = vectorplan.plan_index(plan, indexes, shape) or EXACT_PATH
            # The planner ranks these by a scan (EXACT_PATH): exact all the same.
            usable = path == EXACT_PATH
            if path in partial_rows:
                # A partial index's graph holds only its WHERE's rows: the share that counts
                # is the filter's of those (Львів's own index under city = Львів: all of it).
                ef_search = _ef_search_for(
                    estimate, partial_rows[path], by_status_only=by_status_only
                )
                options = vector_search_settings(ef_search)
            rows = _PAGES.objects(page_shape(usable), slots, LISTINGS, options)
            if len(rows) < count:
                rows = None  # too few for a full page: only an exact scan can tell why
            elif with_total and min_similarity is not None:
                total, exact = capped_count(ranking(encoded, usable=True))
            elif with_total:
                total = max(estimate, count)  # the planner's estimate: no count of the rows
        if rows is None:
            # its own statement, so the planner's own settings (sorting on)
            path = EXACT_PATH
            distances = _PAGES.sql(Shape(key("distances"), distances_of, context), slots, LISTINGS)
            rows, total = _ranked_exactly(distances, encoded, metric, count, cards=cards)
            exact = True
    if not with_total:
        total, exact = 0, False
    # relaxed_order iterative scans may return near-ties out of order: sort the page exactly.
    rows.sort(key=lambda listing: (listing.distance, listing.id))
    metrics = [
        listing.distance if metric == "cosine" else listing.metric_distance for listing in rows
    ]
    return [_Neighbour(row, float(row.distance)) for row in rows], total, exact, metrics, path


# Estimates between this share of EXACT_VECTOR_SEARCH_MAX_ROWS and it are counted.
COUNTED_FROM_SHARE = 0.25


def _rows_kept(estimated: Callable[[], int], counted: Callable[[], int]) -> int:
    """How many listings the filters keep, as the path choice needs it: the planner's
    estimate, or, where that says the exact scan but is within 4x of its limit, the rows
    `counted` up to EXACT_VECTOR_SEARCH_MAX_ROWS + 1 (without the norm check, so no vector is
    read). The planner misjudges price filters across currencies: 5 560 estimated for 19 993
    at 100 000 listings, and the exact scan of 20 000 rows took 183 ms where the index takes
    11 and the count 26."""
    estimate = estimated()
    cap = settings.EXACT_VECTOR_SEARCH_MAX_ROWS
    if not COUNTED_FROM_SHARE * cap < estimate <= cap:
        return estimate
    found = counted()
    return found if found <= cap else max(estimate, found)


def exact_top_sql(rows: str) -> str:
    """The exact ranking around the ORM's statement `rows` of the filtered rows and their
    distances (spliced in, not formatted: its text may hold braces), so that each row's vector
    is read once. An all-zero vector's cosine distance is NaN, which PostgreSQL sorts after
    every number and the count leaves out; checking each row's norm in the WHERE read every
    vector a second time (49 of 28 ms for 5 181 rows at 100 000 listings)."""
    return (
        "SELECT id, COUNT(*) FILTER (WHERE distance <> 'NaN') OVER (), distance FROM ("  # noqa: S608 - the ORM's statement; values stay parameters
        + rows
        + " OFFSET 0) AS ranked ORDER BY distance, id LIMIT %s"
    )


# The cards of the exact ranking's page, by id, distance computed again (one shape per metric).
_BY_IDS = Statements()


def _ranked_exactly(
    distances: tuple[str, list[Any]],
    vector: QueryVector,
    metric: str,
    count: int,
    *,
    cards: bool = True,
) -> tuple[list[Any], int]:
    """The `count` nearest rows by exact distance, of `distances` (the statement, and its
    parameters, of the filtered rows' ids and distances), and how many rows have a distance
    (rows with an all-zero vector have none: never ranked nor counted).

    One scan computes every distance and the count (over id and distance only, so little
    is held in memory); the cards of the page are then fetched by primary key (with
    `cards=False`, the rows are the ids and distances).
    """
    sql, params = distances
    with connections[LISTINGS].cursor() as cursor:
        cursor.execute(exact_top_sql(sql), [*params, count])
        top = cursor.fetchall()
    matched = int(top[0][1]) if top else 0
    top = top[:matched]  # NaN distances sort last
    ranked_ids = [listing_id for listing_id, _, _ in top]
    if not ranked_ids:
        return [], matched
    if not cards:
        return [Row({"id": row[0], "distance": row[2]}) for row in top], matched

    def by_ids(ids: list[int], query_vector: QueryVector) -> Any:
        listings = PropertyListing.objects.filter(id__any_of=ids)
        return listings.nearest(query_vector).with_metric(query_vector, metric).cards()

    shape = Shape(("exact_cards", metric), by_ids)
    found = _BY_IDS.objects(shape, [(IDS, ranked_ids), (VECTOR, vector)], LISTINGS)
    by_id = {card.id: card for card in found}
    return [by_id[listing_id] for listing_id in ranked_ids], matched


def _vector_page(
    vector: QueryVector,
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
                # cosine distance is 1 − similarity_score: not sent twice
                distance=None if metric == "cosine" else round(distance, 6),
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


@understood()
@reporting_cut
@checked
def semantic_search(
    *,
    query: Query,
    filters: RawFilters = None,
    limit: Limit = 10,
    offset: Offset = 0,
    min_similarity: MinSimilarity = None,
    distance_metric: Metric = "cosine",
    in_ukrainian: str | None = None,
) -> SearchPage:
    """Listings nearest in meaning to a Ukrainian `query` (the server embeds it).

    All three metrics are ranked through the cosine HNSW index: the stored vectors are unit
    length, so cosine, L2 and inner product order them identically; `distance` reports the
    requested metric and `similarity_score` is always 1 − cosine distance. `in_ukrainian`:
    the query's words as Ukrainian listings write them (the request read,
    foreign.in_ukrainian), embedded instead of the query.
    """
    parsed = _resolved(filters)
    vector = _embed(in_ukrainian or query)
    page = _vector_page(
        vector,
        parsed,
        limit=limit,
        offset=offset,
        min_similarity=min_similarity,
        metric=distance_metric,
        mode="semantic",
        query=query,
    )
    note = incomplete_note()
    return page.model_copy(update={"embedding_note": note}) if note else page


def _embedding_of(listing_id: Any) -> Any:
    """A listing's stored vector, the text it is made from (listing_text) for a listing
    without one, and what its card would show of it (results.SOURCE_FIELDS, the type's
    name): "more like this" compares the neighbours' cards with it."""
    return (
        PropertyListing.objects.filter(id=listing_id)
        .annotate(type_name=F("property_type__name"))
        .values("embedding", "title", "description", "type_name", *SOURCE_FIELDS)
    )


_EMBEDDING = CompiledQuery(_embedding_of)


def _embedding_rows(listing_id: Any) -> list[dict[str, Any]]:
    """_embedding_of's row of the listing (none: no such listing)."""
    with _database():
        rows = _EMBEDDING.rows(listing_id, LISTINGS)
        if rows is None:  # left to the ORM
            rows = list(_embedding_of(listing_id))
    return rows


def _shown(row: dict[str, Any], listing_id: Any) -> dict[str, Any]:
    """What the listing's card would show of `row` (an _embedding_of row) that
    market._may_be_same compares with other cards: SearchPage._source."""
    return {name: row[name] for name in SOURCE_FIELDS} | {
        "id": listing_id,
        "property_type": row["type_name"],
        "total_area": _float(row["total_area"]),
    }


def shown_of(listing_id: Any) -> dict[str, Any] | None:
    """The same, read by id, for a page that did not come from similar_to_listing."""
    rows = _embedding_rows(listing_id)
    return _shown(rows[0], listing_id) if rows else None


@checked
def similar_to_listing(
    *,
    listing_id: ListingId,
    filters: RawFilters = None,
    limit: Limit = 10,
    offset: Offset = 0,
    with_total: bool = True,
) -> SearchPage:
    """'More like this': neighbours of a listing's stored embedding, without the listing.

    `with_total=False` skips counting every listing that has an embedding (a full scan at a
    million rows); `total` is then the lower bound offset + len(listings), not exact.
    """
    parsed = _resolved(filters)
    rows = _embedding_rows(listing_id)
    if not rows:
        raise NotFound(LISTING_NOT_FOUND.format(listing_id=listing_id))
    row, note = rows[0], None
    stored = None if row["embedding"] is None else [float(x) for x in row["embedding"]]
    if stored is not None and usable_vector(stored):
        vector = QueryVector(stored)
    else:
        # Not embedded yet (the newest listings, before the collector's embedding job), or
        # an all-zero vector: its own text, embedded now as the stored vectors are made.
        from ..embedders import listing_text

        text = listing_text(row)
        if not text:
            error = NoEmbedding if stored is None else EmptyEmbedding
            template = LISTING_HAS_NO_EMBEDDING if stored is None else LISTING_EMBEDDING_EMPTY
            raise error(template.format(listing_id=listing_id))
        vector = _embed(text, document=True)
        why = NOT_EMBEDDED if stored is None else EMPTY_EMBEDDING
        note = EMBEDDED_NOW_NOTE.format(listing_id=listing_id, why=why)
    page = _vector_page(
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
    page = page.model_copy(update={"embedding_note": note}) if note else page
    page._source = _shown(row, listing_id)
    return page
