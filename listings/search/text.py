"""Full-text search over search_vector."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any

import cachetools
from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connections, transaction
from django.db.models import Case, F, FloatField, IntegerField, OrderBy, Q, Subquery, Value, When

from .. import capabilities, vectorplan
from ..filters import Filters
from ..models import PropertyListing
from ..querysets import PropertyListingQuerySet
from ..results import SearchPage
from ..runtime import LISTINGS, _database, _rates, _timing, estimated_count, total_of
from ..types import Limit, Offset, OptionalQuery, Query, RawFilters, SortBy, checked
from .cards import _card
from .filtering import _filtered, _prices_left_out, _resolved, live_vocabulary
from .understood import understood


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


@checked
def fulltext_queryset(
    *, query: Query, base: PropertyListingQuerySet | None = None
) -> tuple[PropertyListingQuerySet, str]:
    """Listings matching `query` as a lazy queryset, for callers that paginate themselves.

    Full text with Ukrainian morphology (annotated with `rank`) when anything matches,
    otherwise the ILIKE fallback over title, description and address; the second item is
    the mode, "fulltext" or "ilike_fallback", as in fulltext_search. `base` narrows it
    (the admin passes its filtered changelist queryset); the caller orders and slices.
    """
    return _matching_text(query, base if base is not None else PropertyListing.objects.all())


def _rank_candidates(matched: Any) -> Subquery:
    """The ids relevance ranks: the FTS_RANK_CANDIDATES newest matches. ts_rank_cd reads
    every candidate's tsvector, and a word in most listings would otherwise rank the whole
    table for one page."""
    return Subquery(matched.order_by("-id").values("id")[: settings.FTS_RANK_CANDIDATES])


def _rank(query: SearchQuery) -> SearchRank:
    return SearchRank(F("search_vector"), query, cover_density=True)


RELEVANCE_ORDER = (F("rank").desc(), F("ranked_id").asc(nulls_last=True), OrderBy(F("id"), True))


def by_relevance(matched: PropertyListingQuerySet, *, query: Query) -> PropertyListingQuerySet:
    """Every full-text match of `query` (fulltext_queryset's), in fulltext_search's order:
    its ranked candidates first, as it ranks them, then the other matches newest first
    (rank 0). For callers that page through all matches (the admin); read its pages with
    relevance_slice, which does not sort every match."""
    candidate = Q(id__in=_rank_candidates(matched))
    return matched.annotate(
        rank=Case(
            When(candidate, then=_rank(_fts_query(query))),
            default=Value(0.0),
            output_field=FloatField(),
        ),
        ranked_id=Case(When(candidate, then=F("id"))),
    ).order_by(*RELEVANCE_ORDER)


def is_by_relevance(queryset: Any) -> bool:
    """Whether `queryset` is ordered as by_relevance orders it (a caller may add a tie-break)."""
    ordering = tuple(queryset.query.order_by)
    return "ranked_id" in queryset.query.annotations and ordering[:3] == RELEVANCE_ORDER


def relevance_slice(ordered: PropertyListingQuerySet, start: int, stop: int) -> list[Any]:
    """Rows `start:stop` of a by_relevance() queryset, read without ordering every match.

    As one statement, a word in most listings made PostgreSQL compute the order key of each
    match and sort them all (past QUERY_TIMEOUT_SEC at 1 000 000 listings). The candidates
    are the FTS_RANK_CANDIDATES newest matches, so a page among them sorts those alone, and
    a page past them reads the other matches newest first, down the primary key.
    """
    newest = Subquery(ordered.order_by("-id").values("id")[: settings.FTS_RANK_CANDIDATES])
    rows: list[Any] = []
    if start < settings.FTS_RANK_CANDIDATES:
        rows = list(ordered.filter(id__in=newest)[start:stop])
        if len(rows) == stop - start or len(rows) + start < settings.FTS_RANK_CANDIDATES:
            return rows  # a full page, or the candidates are every match
    candidates = ordered.order_by().values("id")[: settings.FTS_RANK_CANDIDATES].count()
    if candidates < settings.FTS_RANK_CANDIDATES:
        return rows
    skip = max(0, start - candidates)
    others = ordered.exclude(id__in=newest).order_by("-id")
    return rows + list(others[skip : skip + (stop - start) - len(rows)])


def _text_ranked(
    text: str, filters: Filters, sort_by: str, *, any_word_fallback: bool = False
) -> tuple[Any, Any, str]:
    """(the page queryset, the queryset to count, mode) for a text query.

    Full text when anything matches, else the ILIKE fallback. Relevance ranks at most the
    FTS_RANK_CANDIDATES newest matches (_rank_candidates).
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
            qs = PropertyListing.objects.filter(id__in=_rank_candidates(matched)).annotate(
                rank=_rank(query)
            )
        qs = qs.with_headline(query, _fts_config())
    elif sort_by == "relevance":
        sort_by = "date_desc"
    if sort_by in {"price_asc", "price_desc"}:
        qs = qs.with_price_in("USD", _rates(), live_vocabulary())
    return qs.sorted_by(sort_by), matched, mode


class CappedCount(Subquery):
    """How many rows a sliced queryset has, as a scalar subquery of the page's statement:
    `(SELECT COUNT(*) FROM (… LIMIT cap + 1))`, computed once (an InitPlan) and only when the
    page has a row."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) AS capped)"
    output_field = IntegerField()


# The planner's estimate for searches found to match more than TOTAL_COUNT_CAP rows: while
# remembered, their pages are fetched without counting (the total is the estimate).
_broad: cachetools.TTLCache[Hashable, int] = cachetools.TTLCache(
    vectorplan.MAX_PLANS, vectorplan.PLAN_TTL_SEC
)
_broad_lock = threading.Lock()


def _page_and_total(
    qs: Any, counted: Any, *, key: Hashable, offset: int, limit: int
) -> tuple[list[Any], int, bool]:
    """The page's rows and (total, exact) as total_of gives them, in one statement for most
    searches: the page carries a count of the matches capped at TOTAL_COUNT_CAP + 1. Past
    the cap the planner's estimate is the total (an EXPLAIN, then remembered for the key)."""
    cap = settings.TOTAL_COUNT_CAP
    config = connections[LISTINGS].settings_dict  # tests switch between databases
    key = (config.get("HOST"), config.get("PORT"), config.get("NAME"), cap, key)
    with _broad_lock:
        broad = _broad.get(key)
    page = qs.cards()
    if broad is None:
        page = page.annotate(matches=CappedCount(counted.order_by().values("pk")[: cap + 1]))
    rows = list(page[offset : offset + limit])
    if len(rows) < limit and (rows or not offset):
        return rows, offset + len(rows), True  # the last page: its rows are the count
    if broad is not None:
        return rows, max(broad, offset + len(rows)), False
    if not rows:  # past the end: the count came with no row
        total, exact = total_of(counted)
        return rows, total, exact
    matches = int(rows[0].matches)
    if matches <= cap:
        return rows, max(matches, offset + len(rows)), True
    estimate = estimated_count(counted)
    with _broad_lock:
        _broad[key] = estimate
    return rows, max(estimate, cap, offset + len(rows)), False


@understood(empty_text="none")
@checked
def fulltext_search(
    *,
    query: OptionalQuery = None,
    filters: RawFilters = None,
    sort_by: SortBy = "relevance",
    limit: Limit = 10,
    offset: Offset = 0,
) -> SearchPage:
    """Full-text search (PostgreSQL text search, Ukrainian morphology) plus filters.

    With no query it is a pure filter. When full text finds nothing it falls back to a
    case-insensitive substring match over title, description and address (mode says which).
    """
    text = query
    parsed = _resolved(filters)
    if text is None:
        order = "date_desc" if sort_by == "relevance" else sort_by
        qs = _filtered(parsed)
        if order in {"price_asc", "price_desc"}:
            qs = qs.with_price_in("USD", _rates(), live_vocabulary())
        qs = counted = qs.sorted_by(order)
        mode = "filter"
    else:
        qs, counted, mode = _text_ranked(text, parsed, sort_by)
    key = ("fulltext_total", mode, text, parsed.model_dump_json())
    with _database():
        rows, total, exact = _page_and_total(qs, counted, key=key, offset=offset, limit=limit)
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
