"""The one hook every interface's text search runs through: `understood` reads the query
into filters (listings.interpretation), lets the caller's filters win, searches the
remaining text and shows both back on the page."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import understanding
from ..errors import InvalidArgument
from ..filters import Filters
from ..interpretation import Interpretation, interpret
from ..results import DroppedFilters, Interpreted, InterpretedChip, SearchPage
from ..types import query_text
from .filtering import _resolved, filtered_count, live_vocabulary, one_dropped


def read_query(text: str) -> Interpretation:
    """`text` read with the live place names, property types and currency spellings."""
    return interpret(
        text,
        gazetteer=understanding.live_gazetteer(),
        property_types=understanding.live_property_types(),
        currencies=live_vocabulary().aliases,
    )


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
        @functools.wraps(search_function)
        def run(
            *, query: Any = None, filters: Any = None, interpret: Any = False, **kwargs: Any
        ) -> SearchPage:
            if not isinstance(interpret, bool):
                raise InvalidArgument(understanding.INTERPRET_NOT_BOOL)
            with understanding.collecting_notes() as notes:
                if not interpret or not isinstance(query, str) or not query.strip():
                    page = search_function(query=query, filters=filters, **kwargs)
                    update: dict[str, Any] = {}
                    searched = query
                else:
                    page, update = _interpreted(search_function, query, filters, kwargs)
                    searched, filters = update.pop("searched"), update.pop("merged")
                if page.total == 0 and page.offset == 0:
                    update["if_dropped"] = _if_dropped(
                        search_function, page, searched, _resolved(filters), kwargs
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
            merged, overridden = understanding.merge(explicit, reading.filters)
            searched: str | None = reading.text or (text if empty_text == "query" else None)
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
) -> list[DroppedFilters]:
    """For an empty first page: how many listings match with each filter dropped alone and,
    where the words narrowed the page (full text), with the words dropped.

    Semantic and hybrid pages are emptied by filters alone: a count each. A full-text page
    runs its search again without the filter, words and all. Only for empty pages.
    """
    words_narrow = page.mode in {"fulltext", "ilike_fallback"}
    found = []
    if words_narrow:
        total, exact = filtered_count(filters)
        found.append(DroppedFilters(dropped=["query"], total=total, total_exact=exact))
    for names, narrowed in one_dropped(filters):
        if words_narrow:
            again = {**kwargs, "limit": 1, "offset": 0}
            other = search_function(query=searched, filters=narrowed, **again)
            total, exact = other.total, other.total_exact
        else:
            total, exact = filtered_count(narrowed)
        found.append(DroppedFilters(dropped=names, total=total, total_exact=exact))
    return found
