"""Checks of the arguments every interface passes on (the MCP tools' types check most of
them first; commands and the admin come here directly)."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings

from ..errors import (
    LIMIT_RANGE,
    LISTING_ID_INVALID,
    METRIC_UNKNOWN,
    MIN_SIMILARITY_RANGE,
    OFFSET_RANGE,
    QUERY_CONTROL_CHARS,
    QUERY_REQUIRED,
    QUERY_TOO_LONG,
    InvalidArgument,
)
from ..runtime import DISTANCE_METRICS, MAX_OFFSET


def _clean_query(query: Any, *, required: bool) -> str | None:
    if query is None or (isinstance(query, str) and not query.strip()):
        if required:
            raise InvalidArgument(QUERY_REQUIRED)
        return None
    if not isinstance(query, str):
        raise InvalidArgument(QUERY_REQUIRED)
    if len(query) > settings.MAX_QUERY_LENGTH:
        raise InvalidArgument(
            QUERY_TOO_LONG.format(length=len(query), limit=settings.MAX_QUERY_LENGTH)
        )
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in query) or "\x00" in query:
        raise InvalidArgument(QUERY_CONTROL_CHARS)
    return " ".join(query.split())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _page(limit: Any, offset: Any) -> tuple[int, int]:
    if not _is_int(limit) or not 1 <= limit <= settings.MAX_LIMIT:
        raise InvalidArgument(LIMIT_RANGE.format(max_limit=settings.MAX_LIMIT))
    if not _is_int(offset) or not 0 <= offset <= MAX_OFFSET:
        raise InvalidArgument(OFFSET_RANGE.format(max_offset=MAX_OFFSET))
    return limit, offset


def _listing_id(listing_id: Any) -> int:
    if not _is_int(listing_id) or not 1 <= listing_id <= 2**63 - 1:
        raise InvalidArgument(LISTING_ID_INVALID)
    return int(listing_id)


def _check_metric(distance_metric: Any) -> str:
    if distance_metric not in DISTANCE_METRICS:
        raise InvalidArgument(METRIC_UNKNOWN)
    return str(distance_metric)


def _check_min_similarity(min_similarity: Any) -> float | None:
    if min_similarity is None:
        return None
    if (
        isinstance(min_similarity, bool)
        or not isinstance(min_similarity, int | float)
        or math.isnan(min_similarity)
        or not -1.0 <= float(min_similarity) <= 1.0
    ):
        raise InvalidArgument(MIN_SIMILARITY_RANGE)
    return float(min_similarity)
