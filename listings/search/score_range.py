"""The current model's typical similarity_score range, measured on the live data, for
describe_schema (and quoted when a min_similarity cut empties a page: cut.py).

Each model spreads its cosine similarities differently (the offline stand-in sits between
about 0.3 and 0.6, other models higher), so a fixed threshold empties one model's results
and keeps everything of another's.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from typing import Any

from ..errors import SearchError
from .cut import measured_ranges
from .vector import semantic_search

logger = logging.getLogger("vmk.search")

RANGE_TTL_SEC = 600.0
FAILED_RANGE_TTL_SEC = 30.0
# Requests the range is measured with: short, long, with and without constraints.
RANGE_PROBES = (
    "квартира",
    "двокімнатна квартира біля метро з балконом",
    "будинок з ділянкою та гаражем",
    "затишна світла квартира для сім'ї з дітьми біля парку",
    "оренда офісу в центрі",
    "земельна ділянка під забудову",
    "3-кімнатна квартира Київ продаж",
    "подобово студія біля моря",
)
_lock = threading.Lock()


def _measure() -> dict[str, Any] | None:
    top1: list[float] = []
    top10: list[float] = []
    for probe in RANGE_PROBES:
        page = semantic_search(query=probe, limit=10)
        scores = [c.similarity_score for c in page.listings if c.similarity_score is not None]
        if scores:
            top1.append(scores[0])
            top10.append(scores[-1])
    if not top1:
        return None
    return {
        "low": round(min(top10), 3),
        "high": round(max(top1), 3),
        "median_best": round(statistics.median(top1), 3),
        "median_tenth": round(statistics.median(top10), 3),
        "meaning": "similarity_score of the best and the tenth result for a few typical "
        "requests, measured on this database with this model: pick min_similarity from "
        "this range, not a fixed number",
        "probes": len(RANGE_PROBES),
    }


def score_range() -> dict[str, Any] | None:
    """The current model's typical similarity_score range (re-measured every 10 minutes);
    None when it cannot be measured (no embedder, no vectors)."""
    from ..embedders import get_embedder

    name = get_embedder().name
    now = time.monotonic()
    with _lock:
        cached = measured_ranges.get(name)
        if cached is not None and cached[0] > now:
            return dict(cached[1]) if cached[1] else None
    try:
        measured = _measure()
    except SearchError as exc:
        logger.warning("score range not measured: %s", exc.code)
        measured = None
    with _lock:
        # A failed measurement (database down, no vectors yet) is retried soon, not in 10 min.
        ttl = RANGE_TTL_SEC if measured else FAILED_RANGE_TTL_SEC
        measured_ranges[name] = (now + ttl, measured)
    return dict(measured) if measured else None
