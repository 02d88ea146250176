"""What a `min_similarity` cut removed from a semantic search's page: how many matching
listings it dropped and the best score seen, with the model's usual range when known."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..results import SearchPage, SimilarityCut

CUT_NOTE = (
    "min_similarity {threshold:g} removed {dropped} of {total} matching listings; the best "
    "score seen was {best:.3f}. This model's scores usually lie between {low:.2f} and "
    "{high:.2f} (describe_schema: embedding.score_range)."
)
CUT_NOTE_NO_RANGE = (
    "min_similarity {threshold:g} removed {dropped} of {total} matching listings; the best "
    "score seen was {best:.3f}."
)

# Embedder name -> (expires, measured range or None), filled by search.score_range.
measured_ranges: dict[str, tuple[float, dict[str, Any] | None]] = {}


def reporting_cut(search_function: Callable[..., SearchPage]) -> Callable[..., SearchPage]:
    """A semantic search whose page says what `min_similarity` removed: how many matching
    listings it dropped and the best score seen, so an agent can lower it."""

    @functools.wraps(search_function)
    def run(*, min_similarity: Any = None, **kwargs: Any) -> SearchPage:
        page = search_function(min_similarity=min_similarity, **kwargs)
        if min_similarity is None or len(page.listings) >= page.limit:
            return page
        uncut = search_function(**(kwargs | {"limit": 1, "offset": 0}))
        if not uncut.listings or uncut.listings[0].similarity_score is None:
            return page
        dropped = max(0, uncut.total - page.total)
        if not dropped:
            return page
        best = uncut.listings[0].similarity_score
        known = measured_ranges.get(_embedder_name())
        span = known[1] if known else None
        values = {
            "threshold": float(min_similarity),
            "dropped": dropped,
            "total": uncut.total,
            "best": best,
        }
        note = (
            CUT_NOTE.format(**values, low=span["low"], high=span["high"])
            if span
            else CUT_NOTE_NO_RANGE.format(**values)
        )
        cut = SimilarityCut(
            min_similarity=float(min_similarity),
            dropped=dropped,
            dropped_exact=uncut.total_exact,
            best_score=best,
            note=note,
        )
        return page.model_copy(update={"similarity_cut": cut})

    return run


def _embedder_name() -> str:
    from ..embedders import get_embedder

    return get_embedder().name
