"""The one hook every interface's text search runs through: `understood` reads the query
into filters (listings.interpretation), lets the caller's filters win, searches the
remaining text and shows both back on the page."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import understanding
from ..errors import InvalidArgument
from ..interpretation import Interpretation, interpret
from ..results import Interpreted, InterpretedChip, SearchPage
from ..types import query_text
from .filtering import _resolved, live_vocabulary


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
    Place names in the filters are resolved either way, and the page says so.
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
                else:
                    page, update = _interpreted(search_function, query, filters, kwargs)
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
            return page, {"interpreted": interpreted, "query": text}

        return run

    return decorate
