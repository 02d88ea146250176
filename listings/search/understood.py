"""The one hook every interface's text search runs through: `understood` reads the query
into filters (listings.interpretation), lets the caller's filters win, searches the
remaining text and shows both back on the page."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

from django.utils import timezone

from .. import understanding
from ..errors import NEIGHBOURHOOD_UNNAMED_WARNING, InvalidArgument
from ..filters import Filters
from ..interpretation import Interpretation, interpret
from ..results import DroppedFilters, Interpreted, InterpretedChip, SearchPage
from ..types import query_text
from .filtering import _resolved, budgeted_counts, live_vocabulary, one_dropped

# The argument of a search with a full-text side that takes the searched words in Ukrainian
# as well (foreign.in_ukrainian): "дом с участком" finds listings saying "з ділянкою".
UK = "in_ukrainian"

# An empty page's if_dropped counts share this time; what is not counted by then is left
# out (at 1 000 000 listings a count that finds nothing may scan most of the table).
IF_DROPPED_BUDGET_MS = 1000


# Counts, each (names dropped, (total, exact)), of what an empty full-text page's words find
# with each filter group dropped (text._without_each): (words, filters, groups, deadline,
# the page's time in ms, the words in Ukrainian or None).
WordsDropped = Callable[
    [str, Filters, list[tuple[list[str], Filters]], float, float, str | None],
    list[tuple[list[str], tuple[int, bool]]],
]


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


def _takes(search_function: Callable[..., SearchPage], name: str) -> bool:
    """Whether the search takes argument `name`: a sort_by (full text and filters do;
    semantic and hybrid rank by relevance alone: an order asked for is named in `refused`,
    not applied), the words in Ukrainian (those with a full-text side)."""
    return name in inspect.signature(search_function).parameters


def understood(
    *, empty_text: str = "query", words_dropped: WordsDropped | None = None
) -> Callable[[Callable[..., SearchPage]], Any]:
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
        # once, not a signature read per call
        sorts, translates = _takes(search_function, "sort_by"), _takes(search_function, UK)

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
                    searched, ukrainian = query, kwargs.get(UK)
                else:
                    page, update = _interpreted(search_function, query, filters, kwargs)
                    searched, filters = update.pop("searched"), update.pop("merged")
                    ukrainian = update.pop(UK)
                if page.total == 0 and page.offset == 0:
                    took_ms = (time.monotonic() - started) * 1000
                    update["if_dropped"] = _if_dropped(
                        page, searched, _resolved(filters), took_ms, words_dropped, ukrainian
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
            refused = {**refused, **understanding.unavailable(reading)}
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
            ukrainian = reading.ukrainian if translates else None
            if ukrainian is not None:
                kwargs = {**kwargs, UK: ukrainian}
            page = search_function(query=searched, filters=merged, **kwargs)
            if page.total == 0 and page.offset == 0 and empty_text == "none":
                page, searched, ukrainian = _without_neighbourhoods(
                    search_function, page, reading, merged, kwargs
                )
            interpreted = Interpreted(
                filters=reading.filters,
                text=reading.text if empty_text != "none" else searched or "",
                summary=understanding.summary(reading, overridden),
                chips=[InterpretedChip(**vars(chip)) for chip in reading.chips],
                overridden=overridden,
                corrected=reading.corrected,
                translated=reading.translated if ukrainian is not None else {},
                refused=refused,
            )
            return page, {
                "interpreted": interpreted,
                "query": text,
                "searched": searched,
                "merged": merged,
                UK: ukrainian,
            }

        def _without_neighbourhoods(
            search_function: Callable[..., SearchPage],
            page: SearchPage,
            reading: Interpretation,
            merged: Filters,
            kwargs: dict[str, Any],
        ) -> tuple[SearchPage, str | None, str | None]:
            """An empty page of a neighbourhood read with its district ("на Позняках"), its
            name searched for too: the search again without the name where that finds
            listings of the district (a listing may name only its street), with a warning;
            else the page as it was. Returns the page, its text and its Ukrainian."""
            ukrainian = kwargs.get(UK)
            district = merged.district
            if not reading.neighbourhoods or district is None:
                return page, reading.text or None, ukrainian
            names = set(reading.neighbourhoods)
            rest = " ".join(word for word in reading.text.split() if word not in names)
            said = {
                word
                for given, value in reading.translated.items()
                if set(given.split()) <= names
                for word in value.split()
            }
            kept = None
            if ukrainian is not None:
                kept = " ".join(word for word in ukrainian.split() if word not in said) or None
                kwargs = {**kwargs, UK: kept}
            again = search_function(query=rest or None, filters=merged, **kwargs)
            if again.total == 0:
                return page, reading.text or None, ukrainian
            words = ", ".join(f"'{word}'" for word in reading.neighbourhoods)
            warning = NEIGHBOURHOOD_UNNAMED_WARNING.format(district=district, words=words)
            again = again.model_copy(update={"warnings": [*(again.warnings or []), warning]})
            return again, rest or None, kept

        return run

    return decorate


def time_left(deadline: float) -> int:
    """Milliseconds left before `deadline` (time.monotonic()'s)."""
    return int((deadline - time.monotonic()) * 1000)


def _if_dropped(
    page: SearchPage,
    searched: Any,
    filters: Filters,
    took_ms: float = 0.0,
    words_dropped: WordsDropped | None = None,
    ukrainian: str | None = None,
) -> list[DroppedFilters]:
    """For an empty first page: how many listings match with each filter dropped alone and,
    where the words narrowed the page (full text, `words_dropped`), with the words dropped.

    Semantic and hybrid pages are emptied by filters alone: their counts are one statement.
    Only for empty pages, and within IF_DROPPED_BUDGET_MS: what is not counted by then is
    left out.
    """
    deadline = time.monotonic() + IF_DROPPED_BUDGET_MS / 1000
    groups = one_dropped(filters)
    if words_dropped is not None and page.mode in {"fulltext", "ilike_fallback"}:
        found = words_dropped(searched, filters, groups, deadline, took_ms, ukrainian)
    else:
        counts = budgeted_counts([lifted for _, lifted in groups], time_left(deadline))
        found = list(zip([names for names, _ in groups], counts or [], strict=False))
    return [
        DroppedFilters(dropped=names, total=total, total_exact=exact)
        for names, (total, exact) in found
    ]
