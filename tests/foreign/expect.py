"""What the foreign-database suite expects, in one place: names of fields the fixes add, byte
budgets, and the text that must never reach an agent or a user.

The fixes of issue #11 are written in other branches; where they name a field differently,
adjust it here, not in the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# --- item 1: the text search configuration actually used ------------------------------------
FTS_CONFIG_KEY = "fts_config"
FALLBACK_CONFIG = "simple"
# --- item 2 ----------------------------------------------------------------------------------
MORPHOLOGY_KEY = "morphology"
# --- item 4 ----------------------------------------------------------------------------------
LEFT_OUT_KEYS = ("left_out", "excluded", "without_currency", "unknown_currency", "no_currency")
# --- item 6: NULL listing_status: either the default keeps them or this value selects them ---
NULL_STATUS_VALUE = "unknown"
NULL_COUNT_KEYS = ("null", "nulls", "null_count", "missing")
# --- item 8 ----------------------------------------------------------------------------------
# A 50-card page of rows with 5 KB titles, 3 KB URLs, 1 KB districts and metro stations.
PAGE_TEXT_BUDGET = 150_000  # bytes of the tool's text content (compact JSON)
PAGE_HTTP_BUDGET = 400_000  # bytes of the whole HTTP response body
TRUNCATED_KEYS = ("truncated", "cut", "clipped")
# --- item 9 ----------------------------------------------------------------------------------
INDEX_KEYS = ("vector_hnsw", "vector_index", "hnsw_index", "hnsw")
# --- item 12 ---------------------------------------------------------------------------------
SUPERUSER_WORD = "superuser"
SEARCH_VECTOR_WORD = "search_vector"

# --- what must never show --------------------------------------------------------------------
LEAKS = (
    "Traceback (most recent call last)",
    'File "/',
    "psycopg",
    "django.db",
    "ProgrammingError",
    "OperationalError",
    "DataError",
    "InternalError",
    "postgres://",
    "postgresql://",
    "LINE 1:",
    'FROM "property_listings"',
    "SELECT ",
    "internal_error",
)
SERVER_ERROR_PAGE = re.compile(r"Server Error \(500\)|<title>[^<]*500", re.IGNORECASE)


def leaks(text: str, *secrets: str) -> list[str]:
    """The forbidden fragments (and given secrets, e.g. the socket directory) found in text."""
    return [fragment for fragment in (*LEAKS, *secrets) if fragment and fragment in text]


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, key, value) for every key of every dict nested in value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}[{index}]")


def found(value: Any, key: str) -> list[Any]:
    """Every value stored under `key` anywhere in value."""
    return [item for _, name, item in walk(value) if name == key]


def fts_config_of(value: Any) -> list[Any]:
    return found(value, FTS_CONFIG_KEY)


def morphology_of(value: Any) -> list[Any]:
    return found(value, MORPHOLOGY_KEY)


def maps(value: Any, synonym: str, target: str) -> bool:
    """Some dict in value maps `synonym` onto `target` (the synonym table)."""
    return any(
        name == synonym and (item == target or (isinstance(item, list) and target in item))
        for _, name, item in walk(value)
    ) or any(
        isinstance(item, list) and synonym in item and name == target
        for _, name, item in walk(value)
    )


def null_counts_for(value: Any, column: str) -> list[Any]:
    """Counts stored under a NULL-count key inside anything keyed by `column`."""
    counts = []
    for path, name, item in walk(value):
        if (column in path or name == column) and str(name).lower() in NULL_COUNT_KEYS:
            counts.append(item)
        if name == column and isinstance(item, dict):
            counts += [item[key] for key in NULL_COUNT_KEYS if key in item]
    return counts


def left_out_counts(value: Any) -> list[Any]:
    return [
        item
        for _, name, item in walk(value)
        if any(word in str(name).lower() for word in LEFT_OUT_KEYS) and isinstance(item, int)
    ]


def truncation_flags(card: dict[str, Any]) -> list[Any]:
    return [
        item
        for _, name, item in walk(card)
        if any(word in str(name).lower() for word in TRUNCATED_KEYS)
    ]


def index_facts(value: Any) -> list[Any]:
    return [item for _, name, item in walk(value) if str(name).lower() in INDEX_KEYS]


def says_missing(item: Any) -> bool:
    return item in (None, False, "") or any(
        word in str(item).lower() for word in ("missing", "none", "absent", "no ")
    )
