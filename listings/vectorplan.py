"""Keeping the HNSW branch of vector search on its index, and knowing that it is.

PostgreSQL's cost model for an HNSW index scan grows with `hnsw.ef_search`; at the wide
searches that give high recall it prices the scan above reading the table and sorting it
(70-80 ms at 100 000 listings instead of 3-5 ms). For the HNSW branch's statements sorting is
therefore switched off (`enable_sort`, set in the same query string as each of them): the
only plan without a Sort node is the index's ordered scan, so the planner takes it whatever
the filter; where no index can serve the query it still sorts (the setting is a penalty, not
a ban) and index_used says so.

Which plan that is depends on the shape of the query (which filters, metric, threshold),
not on the values in it: it is EXPLAINed once per shape and settings and remembered for
PLAN_TTL_SEC, so a call does not pay a second planning of its own statement. The planner's
row estimate for a filter (which path to take, and the total) is remembered as long.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any

from .runtime import Remembered, database_identity

PLAN_TTL_SEC = 60.0
MAX_PLANS = 512

# On the project's one TTL cache: plans by query shape, row estimates by filter.
_plans = Remembered(PLAN_TTL_SEC, MAX_PLANS)
_estimates = Remembered(PLAN_TTL_SEC, MAX_PLANS)


def index_scanned(plan: Mapping[str, Any], indexes: Collection[str]) -> str | None:
    """Which of `indexes` an EXPLAIN (FORMAT JSON) plan node, or one under it, scans."""
    if plan.get("Index Name") in indexes:
        return str(plan["Index Name"])
    for child in plan.get("Plans", ()):
        found = index_scanned(child, indexes)
        if found is not None:
            return found
    return None


def plan_index(
    plan: Callable[[], Mapping[str, Any]], indexes: tuple[str, ...], shape: Hashable
) -> str | None:
    """Which of `indexes` the `plan()` (EXPLAIN's top node) scans, remembered for
    PLAN_TTL_SEC per query `shape` (its filter values included: a partial index serves some
    values of a filter, not others)."""
    return _plans.get((database_identity(), indexes, shape), lambda: index_scanned(plan(), indexes))


def remembered_estimate(key: Hashable, estimate: Callable[[], int]) -> int:
    """`estimate()` (the planner's row estimate for a filter), remembered for PLAN_TTL_SEC
    per `key`: the statistics behind it change with ANALYZE, not from call to call."""
    return _estimates.get((database_identity(), key), estimate)


def forget_plans() -> None:
    """Drop the remembered plans and estimates (tests; after an index is created or dropped)."""
    _plans.clear()
    _estimates.clear()
