"""The one hook every interface's text search runs through: `understood` reads the query
into filters (listings.interpretation), lets the caller's filters win, searches the
remaining text and shows both back on the page."""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

from django.utils import timezone

from .. import understanding
from ..errors import InvalidArgument, QueryTimeout
from ..filters import Filters
from ..interpretation import Interpretation, interpret
from ..results import DroppedFilters, Interpreted, InterpretedChip, SearchPage
from ..runtime import LISTINGS
from ..types import query_text
from .filtering import _resolved, budgeted_count, live_vocabulary, one_dropped, within

# An empty page's if_dropped counts share this time; what is not counted by then is left
# out (at 1 000 000 listings a count that finds nothing may scan most of the table).
IF_DROPPED_BUDGET_MS = 1000


def read_query(text: str) -> Interpretation:
    """`text` read with the live place names, property types and currency spellings, and
    an order asked for ("найдешевші")."""
    return interpret(
        text,
        gazetteer=understanding.live_gazetteer(),
        property_types=understanding.live_property_types(),
        currencies=live_vocabulary().aliases,
        orders=True,
        today=timezone.localdate(),
    )


def _sorts(search_function: Callable[..., SearchPage]) -> bool:
    """Whether the search takes a sort_by (full text and filters do; semantic and hybrid rank
    by relevance alone: an order asked for is named in `refused`, not applied)."""
    return "sort_by" in inspect.signature(search_function).parameters


def understood(*, empty_text: str = "query") -> Callable[[Callable[..., SearchPage]], Any]:
    """Decorate a text search so that it can read its query (`interpret`).

    The interfaces (MCP tools, the admin page, search_listings) pass interpret=true by
    default; a direct call of the search function searches the query as it is unless asked.

    The filters read join the caller's (which win); the remaining text is what is searched
    for, or, when nothing is left, the whole query (empty_text="query") or no text at all
    (empty_text="none": a pure filter). interpret=false is the search exactly as before.
    Place names in the filters are resolved either way, and the page says so. An empty
    first page says what dropping each filter would let in (_if_dropped).
    """

    def decorate(search_function: Callable[..., SearchPage]) -> Callable[..., SearchPage]:
        sorts = _sorts(search_function)  # once, not a signature read per call

        @functools.wraps(search_function)
        def run(
            *, query: Any = None, filters: Any = None, interpret: Any = False, **kwargs: Any
        ) -> SearchPage:
            if not isinstance(interpret, bool):
                raise InvalidArgument(understanding.INTERPRET_NOT_BOOL)
            with understanding.collecting_notes() as notes:
                started = time.monotonic()
                if not interpret or not isinstance(query, str) or not query.strip():
                    page = search_function(query=query, filters=filters, **kwargs)
                    update: dict[str, Any] = {}
                    searched = query
                else:
                    page, update = _interpreted(search_function, query, filters, kwargs)
                    searched, filters = update.pop("searched"), update.pop("merged")
                if page.total == 0 and page.offset == 0:
                    took_ms = (time.monotonic() - started) * 1000
                    update["if_dropped"] = _if_dropped(
                        search_function, page, searched, _resolved(filters), kwargs, took_ms
                    )
            if notes:
                update["names_resolved"] = dict(notes)
            return page.model_copy(update=update) if update else page

        def _interpreted(
            search_function: Callable[..., SearchPage],
            query: str,
            filters: Any,
            kwargs: dict[str, Any],
        ) -> tuple[SearchPage, dict[str, Any]]:
            text = query_text(query)
            explicit = _resolved(filters)
            reading, refused = understanding.refuse(read_query(text))
            if not sorts:
                reading, unsorted = understanding.unsorted(reading)
                refused = {**refused, **unsorted}
            merged, overridden = understanding.merge(explicit, reading.filters)
            searched: str | None = reading.text or (text if empty_text == "query" else None)
            if reading.order is not None:
                # an order asked for sorts the page unless the caller chose one
                if kwargs.get("sort_by") in {None, "relevance"}:
                    kwargs = {**kwargs, "sort_by": reading.order}
                else:
                    overridden = [*overridden, "sort_by"]
            page = search_function(query=searched, filters=merged, **kwargs)
            interpreted = Interpreted(
                filters=reading.filters,
                text=reading.text,
                summary=understanding.summary(reading, overridden),
                chips=[InterpretedChip(**vars(chip)) for chip in reading.chips],
                overridden=overridden,
                corrected=reading.corrected,
                refused=refused,
            )
            return page, {
                "interpreted": interpreted,
                "query": text,
                "searched": searched,
                "merged": merged,
            }

        return run

    return decorate


def _if_dropped(
    search_function: Callable[..., SearchPage],
    page: SearchPage,
    searched: Any,
    filters: Filters,
    kwargs: dict[str, Any],
    took_ms: float = 0.0,
) -> list[DroppedFilters]:
    """For an empty first page: how many listings match with each filter dropped alone and,
    where the words narrowed the page (full text), with the words dropped.

    Semantic and hybrid pages are emptied by filters alone: a count each. A full-text page
    runs its search again without the filter, words and all, each statement within the time
    left. Only for empty pages, and within IF_DROPPED_BUDGET_MS: what is not counted by then
    is left out, and a search again is not tried when the page itself took (`took_ms`) more
    than the time left: without one of its filters it reads at least the rows the page read
    (a word in no listing at 1 000 000 listings: a 2 s substring scan, tried for 1 s).
    """
    deadline = time.monotonic() + IF_DROPPED_BUDGET_MS / 1000
    words_narrow = page.mode in {"fulltext", "ilike_fallback"}
    runs = [(names, lifted, words_narrow) for names, lifted in one_dropped(filters)]
    if words_narrow:
        runs.insert(0, (["query"], filters, False))
    found = []
    for names, narrowed, with_words in runs:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            break
        counted: tuple[int, bool] | None = None
        if with_words and took_ms > left:
            continue
        if with_words:
            # each of its statements within the time left (a word that matches nothing
            # falls back to a substring scan of every listing the filters let in)
            with contextlib.suppress(QueryTimeout), within(left).held(LISTINGS):
                again = {**kwargs, "limit": 1, "offset": 0}
                other = search_function(query=searched, filters=narrowed, **again)
                counted = (other.total, other.total_exact)
        else:
            counted = budgeted_count(narrowed, left)
        if counted is None:
            break
        found.append(DroppedFilters(dropped=names, total=counted[0], total_exact=counted[1]))
    return found
