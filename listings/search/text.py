"""Full-text search over search_vector."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import cachetools
from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import DatabaseError, connections
from django.db.models import Case, F, FloatField, IntegerField, OrderBy, Q, Subquery, Value, When

from .. import capabilities, vectorplan
from ..apostrophes import AS_ASCII
from ..compiled import TEXT, Placeholder, Settings, Shape, Statements, text_placeholder
from ..errors import QueryTimeout
from ..filters import Filters
from ..filterslots import FilterValues, filter_values
from ..models import PropertyListing
from ..querysets import PropertyListingQuerySet, substring_pattern
from ..results import SearchPage
from ..runtime import (
    LISTINGS,
    _database,
    _rates,
    _timing,
    database_identity,
    database_trouble,
    total_of,
    up_to_cap,
)
from ..types import Limit, Offset, OptionalQuery, Query, RawFilters, SortBy, checked
from .cards import _card
from .filtering import (
    PRICE_SORTS,
    Matches,
    _prices_left_out,
    _resolved,
    budgeted_counts,
    live_vocabulary,
    mixed_deals,
    within,
)
from .understood import time_left, understood


def _fts_config() -> str:
    """FTS_CONFIG when the database has it, else the fallback (capabilities says why)."""
    return capabilities.current().fts_config


def one_apostrophe(text: str) -> str:
    """`text` with every apostrophe as ' (apostrophes.AS_ASCII).
    PostgreSQL's parser splits a word at ' and ’ alike ("сім'ї": 'сім' & 'ї') but keeps ʼ
    (U+02BC, the Ukrainian letter apostrophe some keyboards type) inside it, so "сімʼї"
    matched no listing written with either of the others."""
    return text.translate(AS_ASCII)


def _fts_query(text: str) -> SearchQuery:
    """Every word of `text`, of one of the words said as either ("балкон або лоджія")."""
    return _text_query(_either(text), "fulltext")


# Between two words said as either: "у Києві або Львові", "з балконом чи лоджією".
EITHER = frozenset({"або", "чи", "или", "либо", "or"})
# After one, no alternative: a question ("з каміном, чи є ліфт": the fireplace and the lift,
# not either), a "with or without" ("з ліфтом чи без").
NO_CHOICE = frozenset({"є", "есть", "там", "не", "ні", "нет", "без", "is", "are", "not"})
# The most texts a request's alternatives make ("a або b або c", with "d або e": six)
MOST_EITHER = 4


def _either(text: str) -> tuple[str, ...]:
    """The texts `text` says either of, each with the words besides the alternatives: "Києві
    або Львові" is "Києві" or "Львові", "каміном Києві або Львові" "каміном Києві" or
    "каміном Львові" (full text matched every word, "або" between: no listing is in both
    cities); `text` itself when it says none, or more than MOST_EITHER."""
    words = text.split()
    options: list[list[str]] = [[]]
    i = 0
    while i < len(words):
        group = [words[i]]
        while (
            i + 2 < len(words)
            and words[i + 1].casefold() in EITHER
            and words[i + 2].casefold() not in EITHER | NO_CHOICE
        ):
            group.append(words[i + 2])
            i += 2
        options = [[*option, word] for option in options for word in group]
        if len(options) > MOST_EITHER:
            return (text,)
        i += 1
    return tuple(" ".join(option) for option in options) if len(options) > 1 else (text,)


def _words(text: str) -> list[str]:
    return [word for word in text.split() if len(word) >= 2][:10] or [text]


def _any_words(text: str) -> str:
    """The websearch text of "any of the words" (their operators taken out)."""
    words = [word.strip('"-') for word in text.split()]
    return " or ".join(word for word in words if word and word.lower() != "or")


def _any_word_query(text: str) -> SearchQuery:
    """Listings with any of the words (websearch syntax, its operators taken out)."""
    return _tsquery(_any_words(text), "fulltext_any_word")


def _tsquery(words: str, mode: str, config: str | None = None) -> SearchQuery:
    """The SearchQuery of a text mode's own words (`words` reach the statement as they are:
    a compiled statement sends each call's words in their place)."""
    search_type = "websearch" if mode == "fulltext_any_word" else "plain"
    return SearchQuery(words, config=config or _fts_config(), search_type=search_type)


def _text_query(words: tuple[str, ...], mode: str, config: str | None = None) -> SearchQuery:
    """The tsquery of a text mode's words: the request's, or, with the request's words in
    Ukrainian after them (foreign.in_ukrainian), either: as given or as listings write them."""
    query = _tsquery(words[0], mode, config)
    for other in words[1:]:
        query = query | _tsquery(other, mode, config)
    return query


# The existence check's settings: through the GIN index, for `LIMIT 1` the planner may
# otherwise scan the table or a filter's index row by row, all of it when the words match
# nothing. Sent with the check in one query string (compiled.Settings).
BY_GIN_INDEX = Settings(
    "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)"
)


# The substring fallback's page is first planned as PostgreSQL likes, for SUBSTRING_WALK_MS: a
# walk down publish_date's index fills a page of a common substring in a few ms ("Оболон" in
# addresses). Past that it reads the table instead (in parallel), never walking the index: the
# fallback's words are in no listing's full text, so most match few listings or none, and the
# walk read every row in date order for a word in none (a call took 8.6 s at 1 000 000
# listings; 1.9-2.3 s this way, _if_dropped's searches left out). It comes without its count,
# counted alone when the page is full: a parallel plan computes the count's subquery before
# the page, even for a page with no row (the table read twice), and in the walk the count of
# a common substring took the page past its time ("Хрещат": 2.2 s for the first page, 16 ms
# without). Bitmap scans stay: a selective filter's btree still finds its rows.
SUBSTRING_WALK_MS = 300
BY_TABLE_SCAN = Settings("SELECT set_config('enable_indexscan', 'off', true)")
# The planner takes a case-insensitive match for as cheap as an equality: reading the table
# for substrings without a sort to share it, it planned one process (320 ms for a word in no
# listing at 100 000 listings, 187 ms in parallel).
SUBSTRINGS_IN_PARALLEL = Settings("SELECT set_config('parallel_setup_cost', '0', true)")


def _any_match(exists: Callable[[], bool]) -> bool:
    """`exists()` (an ORM query) run under BY_GIN_INDEX, in a transaction."""
    with _database(), BY_GIN_INDEX.held(LISTINGS):
        return exists()


def _matching_text(
    text: str, base: PropertyListingQuerySet, *, any_word_fallback: bool = False
) -> tuple[Any, str]:
    """Listings matching every word (full text), else a fallback, and which one ran.

    The fallback is the ILIKE substring match; with `any_word_fallback` (hybrid search) it is
    full text with any of the words instead, which the GIN index serves.
    """
    text = one_apostrophe(text)
    matched = base.matching(_fts_query(text))
    if _any_match(matched.exists):
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


# Text search statements by shape (the page, the index check, hybrid's ranked ids): building
# and compiling a ranked full-text page took 3.5 ms a call (bench_compile).
_TEXT = Statements()


@dataclass(frozen=True)
class TextRanking:
    """A text query's ranking, as builders of querysets for the words of its mode (called
    with stand-ins when a statement is compiled, with `words` when it is not): full text
    takes its query's text, the ILIKE fallback each word's LIKE pattern, a filter nothing."""

    mode: str
    words: tuple[str, ...]
    page: Callable[..., PropertyListingQuerySet]  # ordered, headlines and ranks annotated
    matched: Callable[..., PropertyListingQuerySet]  # every match (to count)
    shape: tuple[Any, ...]  # what else decides the SQL (the key of its statements)
    keep: tuple[Any, ...]  # objects `shape` names by id()
    values: FilterValues  # the filters' values, sent after the words

    @property
    def slots(self) -> list[tuple[Placeholder, Any]]:
        return _text_slots(self.words) + self.values.slots

    def args(self) -> tuple[Any, ...]:
        return (*self.words, *self.values.values)


def _searched_texts(text: str, ukrainian: str | None) -> tuple[str, ...]:
    """The texts full text matches either of: the request's words, and (the request read,
    foreign.in_ukrainian) the same words as Ukrainian listings write them; each as the texts
    it says either of (_either)."""
    return _either(text) + (_either(one_apostrophe(ukrainian)) if ukrainian else ())


def _text_slots(words: tuple[str, ...]) -> list[tuple[Placeholder, Any]]:
    """A statement's texts, each in its place (TEXT the first's)."""
    return [(TEXT if n == 0 else text_placeholder(n), word) for n, word in enumerate(words)]


def _text_ranked(
    text: str | None,
    filters: Filters,
    sort_by: str,
    *,
    any_word_fallback: bool = False,
    ukrainian: str | None = None,
) -> TextRanking:
    """How a text query (None: no text, a pure filter) ranks under `filters`.

    Full text when anything matches, else the fallback (_matching_text's). Relevance ranks
    at most the FTS_RANK_CANDIDATES newest matches (_rank_candidates). `ukrainian`, the
    text's words in Ukrainian: full text matches the words as given or as these, and hybrid's
    any-word fallback takes these.
    """
    text = one_apostrophe(text) if text is not None else None
    vocabulary, rates, config = live_vocabulary(), _rates(), _fts_config()
    # What decides the SQL besides the mode and order (the ranked candidates' LIMIT too);
    # the filters' values are placeholders after the words (filterslots).
    candidates = settings.FTS_RANK_CANDIDATES
    given = filter_values(filters, rates)
    shape = (given.key, config, candidates, vocabulary.statement_key, id(rates))
    keep = (vocabulary, rates)
    count = len(given.values)

    def split(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], PropertyListingQuerySet]:
        """A statement's arguments: its words, and the filtered listings of its values."""
        words = args[: len(args) - count]
        return words, given.queryset(args[len(words) :], rates, vocabulary)

    mode = "filter"
    texts = _searched_texts(text, ukrainian) if text is not None else ()
    if text is not None:
        mode = "fulltext"

        def exists(*args: Any) -> Any:
            words, filtered = split(args)
            query = _text_query(words, "fulltext", config)
            return filtered.filter(search_vector=query).only("id")[:1]

        check = Shape(("exists", len(texts), *shape), exists, keep)
        slots = [*_text_slots(texts), *given.slots]
        with _database():
            found = _TEXT.objects(check, slots, LISTINGS, BY_GIN_INDEX)
        if not found:
            mode = "fulltext_any_word" if any_word_fallback else "ilike_fallback"
    words: tuple[str, ...] = ()
    if mode == "ilike_fallback":
        # one placeholder per word: the statement's shape is their number
        words = tuple(substring_pattern(word) for word in _words(text or ""))
    elif mode == "fulltext_any_word":
        # the words in Ukrainian, when read so
        words = (_any_words(one_apostrophe(ukrainian) if ukrainian else text or ""),)
    elif text is not None:
        words = texts
    if mode in {"filter", "ilike_fallback"} and sort_by == "relevance":
        sort_by = "date_desc"

    def matched(*args: Any) -> PropertyListingQuerySet:
        words, filtered = split(args)
        if mode == "filter":
            return filtered
        if mode == "ilike_fallback":
            return filtered.containing_patterns(words)
        return filtered.matching(_text_query(words, mode, config))

    def page(*args: Any) -> PropertyListingQuerySet:
        qs = matched(*args)
        if mode in {"fulltext", "fulltext_any_word"}:
            query = _text_query(split(args)[0], mode, config)
            if sort_by == "relevance":
                qs = PropertyListing.objects.filter(id__in=_rank_candidates(qs)).annotate(
                    rank=_rank(query)
                )
            qs = qs.with_headline(query, config)
        if sort_by in PRICE_SORTS:
            qs = qs.with_price_in("USD", rates, vocabulary)
        return qs.sorted_by(sort_by)

    return TextRanking(mode, words, page, matched, (mode, sort_by, len(words), *shape), keep, given)


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
    ranking: TextRanking, *, key: Hashable, offset: int, limit: int
) -> tuple[list[Any], int, bool]:
    """The page's rows and (total, exact) as total_of gives them, in one statement for most
    searches: the page carries a count of the matches capped at TOTAL_COUNT_CAP + 1 (not the
    substring fallback's: see BY_TABLE_SCAN). Past the cap the planner's estimate is the
    total (an EXPLAIN, then remembered for the key)."""
    cap = settings.TOTAL_COUNT_CAP
    key = (database_identity(), cap, key)
    with _broad_lock:
        broad = _broad.get(key)
    # The substring fallback's page comes without its count (see BY_TABLE_SCAN)
    substring = ranking.mode == "ilike_fallback"
    count_in_page = broad is None and not substring

    def page(*args: str) -> Any:
        rows = ranking.page(*args).cards()
        if count_in_page:
            counted = up_to_cap(ranking.matched(*args), cap)
            rows = rows.annotate(matches=CappedCount(counted))
        return rows[offset : offset + limit]

    def rows_under(plan: Settings | None) -> list[Any]:
        shape = ("text_page", *ranking.shape, count_in_page, cap, offset, limit)
        return _TEXT.objects(Shape(shape, page, ranking.keep), ranking.slots, LISTINGS, plan)

    if not substring:
        rows = rows_under(None)
    elif connections[LISTINGS].in_atomic_block:
        # in a caller's transaction a statement timed out would end it: the table is read
        # at once
        rows = rows_under(BY_TABLE_SCAN)
    else:
        try:
            rows = rows_under(within(SUBSTRING_WALK_MS))
        except DatabaseError as exc:  # (the caller's _database() times it, once)
            if not isinstance(database_trouble(exc), QueryTimeout):
                raise
            rows = rows_under(BY_TABLE_SCAN)
    if len(rows) < limit and (rows or not offset):
        return rows, offset + len(rows), True  # the last page: its rows are the count
    if broad is not None:
        return rows, max(broad, offset + len(rows)), False
    counted = ranking.matched(*ranking.args())
    estimate = lambda _: _estimated_matches(ranking)  # noqa: E731
    if not rows:  # past the end: the count came with no row
        total, exact = total_of(counted, estimate=estimate)
        return rows, total, exact
    if not count_in_page:  # the substring fallback's page: counted alone
        total, exact = total_of(counted, estimate=estimate)
        if not exact:  # remembered, as below: the next page is walked for without a count
            with _broad_lock:
                _broad[key] = total
        return rows, max(total, offset + len(rows)), exact
    matches = int(rows[0].matches)
    if matches <= cap:
        return rows, max(matches, offset + len(rows)), True
    broad_estimate = _estimated_matches(ranking)
    with _broad_lock:
        _broad[key] = broad_estimate
    return rows, max(broad_estimate, cap, offset + len(rows)), False


def _estimated_matches(ranking: TextRanking) -> int:
    """The planner's estimate of a ranking's matches, compiled once per shape
    (estimated_count's was built by the ORM each call, ~1 ms on a new filter value)."""
    shape = Shape(("matched", *ranking.shape), ranking.matched, ranking.keep)
    return _TEXT.estimated_rows(shape, ranking.slots, LISTINGS)


def _without_each(
    text: str,
    filters: Filters,
    groups: list[tuple[list[str], Filters]],
    deadline: float,
    took_ms: float,
    ukrainian: str | None = None,
) -> list[tuple[list[str], tuple[int, bool]]]:
    """What fulltext_search's empty first page would find with its words dropped and with each
    filter group dropped (`groups`, one_dropped's), within `deadline`: understood's
    if_dropped, each as a search again's total up to TOTAL_COUNT_CAP (a lower bound past it).

    A statement counts the filters alone, then one the full-text matches under each group
    dropped. Where full text finds nothing the search again would fall back to substrings:
    one more statement reads their matches under all those groups at once (a search again
    each read the table; the page and its if_dropped took 530 ms for three filters at
    100 000 listings, 260 ms this way), and one counts those that read did not settle (it
    stopped at the cap); not when the page itself took (`took_ms`) more than the time left:
    without one of its filters it reads at least the rows the page read.
    """
    alone = budgeted_counts([filters], time_left(deadline))
    if alone is None:
        return []
    text, config = one_apostrophe(text), _fts_config()
    texts = _searched_texts(text, ukrainian)

    def in_full_text(queryset: PropertyListingQuerySet, *words: str) -> PropertyListingQuerySet:
        return queryset.filter(search_vector=_text_query(words, "fulltext", config))

    full_text = Matches(("fulltext", config, len(texts)), in_full_text, tuple(_text_slots(texts)))
    counts = full_text.counts([narrowed for _, narrowed in groups], time_left(deadline))
    if counts is None:
        return [(["query"], alone[0])]
    found = {n: counted for n, counted in enumerate(counts) if counted[0]}
    nowhere = [n for n in range(len(groups)) if n not in found]
    if nowhere and took_ms <= time_left(deadline):
        patterns = [substring_pattern(word) for word in _words(text)]

        def containing(queryset: PropertyListingQuerySet, *words: str) -> PropertyListingQuerySet:
            return queryset.containing_patterns(words)

        slots = tuple((text_placeholder(n), pattern) for n, pattern in enumerate(patterns))
        substrings = Matches(("substrings", len(slots)), containing, slots)
        names = [groups[n][0] for n in nowhere]
        left = time_left(deadline)
        sampled = substrings.sampled(filters, names, left, SUBSTRINGS_IN_PARALLEL) or []
        settled = dict(zip(nowhere, sampled, strict=False))
        found |= {n: counted for n, counted in settled.items() if counted is not None}
        # not settled by that read (it stopped at the cap): a count each, in one statement
        unsettled = [n for n, counted in settled.items() if counted is None]
        lifted = [groups[n][1] for n in unsettled]
        if lifted and (counted := substrings.counts(lifted, time_left(deadline))):
            found |= dict(zip(unsettled, counted, strict=True))
    return [(["query"], alone[0])] + [(groups[n][0], found[n]) for n in sorted(found)]


@understood(empty_text="none", words_dropped=_without_each)
@checked
def fulltext_search(
    *,
    query: OptionalQuery = None,
    filters: RawFilters = None,
    sort_by: SortBy = "relevance",
    limit: Limit = 10,
    offset: Offset = 0,
    in_ukrainian: str | None = None,
) -> SearchPage:
    """Full-text search (PostgreSQL text search, Ukrainian morphology) plus filters.

    With no query it is a pure filter. When full text finds nothing it falls back to a
    case-insensitive substring match over title, description and address (mode says which).
    `in_ukrainian`: the query's words as Ukrainian listings write them (the request read,
    foreign.in_ukrainian): full text matches either.
    """
    text = query
    parsed = _resolved(filters)
    ranking = _text_ranked(text, parsed, sort_by, ukrainian=in_ukrainian)
    key = ("fulltext_total", ranking.mode, ranking.words, parsed.key())
    with _database():
        rows, total, exact = _page_and_total(ranking, key=key, offset=offset, limit=limit)
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
        mode=ranking.mode,
        query=text,
        filters=parsed.active(),
        sort_by=sort_by,
        fts_config=None if text is None else _fts_config(),
        prices_left_out=_prices_left_out(parsed, sort_by),
        warnings=mixed_deals(parsed, sort_by),
        listings=cards,
    )
