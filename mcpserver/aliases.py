"""The request shapes of the project's first API reference, accepted as aliases.

Agents written against it send `pagination: {"limit", "offset"}`, `query_text` and
`min_total_area`/`max_total_area`; they are rewritten to the SPEC's names before the
arguments are validated, and the SPEC's names stay canonical. A top-level argument that is
neither a name nor an alias is refused (the SDK would drop it silently: a `pagination`
the server did not know gave 10 results for a `limit` of 20).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from listings.errors import InvalidArgument
from listings.meant import bracketed, close_names

# alias -> canonical name, at the top level of a tool's arguments.
ARGUMENT_ALIASES = {"query_text": "query"}
# alias -> canonical filter name, inside `filters`.
FILTER_ALIASES = {"min_total_area": "min_area", "max_total_area": "max_area"}
PAGINATION = "pagination"
PAGINATION_KEYS = ("limit", "offset")

UNKNOWN_ARGUMENT = "Unknown argument '{name}'{meant}. Allowed arguments: {allowed}."
# Names other APIs give these arguments, which ours do not share a word with.
ARGUMENT_WORDS = {
    "page_size": ("limit",),
    "per_page": ("limit",),
    "size": ("limit",),
    "top_k": ("limit",),
    "skip": ("offset",),
    "q": ("query",),
    "text": ("query",),
    "search": ("query",),
    "order_by": ("sort_by",),
    "order": ("sort_by",),
}
PAGINATION_NOT_OBJECT = "'pagination' must be an object with 'limit' and/or 'offset'."
ALIAS_CONFLICT = "'{alias}' and '{name}' are the same argument with different values."


def described() -> dict[str, str]:
    """The mapping as describe_schema shows it: alias -> canonical name."""
    return {
        **ARGUMENT_ALIASES,
        **{f"{PAGINATION}.{key}": key for key in PAGINATION_KEYS},
        **{f"filters.{alias}": f"filters.{name}" for alias, name in FILTER_ALIASES.items()},
    }


def _put(result: dict[str, Any], alias: str, name: str, value: Any) -> None:
    if name in result and result[name] != value:
        raise InvalidArgument(ALIAS_CONFLICT.format(alias=alias, name=name))
    result[name] = value


def _filters(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value  # the tool's own validation explains what filters must be
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key not in FILTER_ALIASES:
            result[key] = item
    for key, item in value.items():
        if key in FILTER_ALIASES:
            _put(result, f"filters.{key}", FILTER_ALIASES[key], item)
    return result


def canonical(arguments: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """`arguments` with aliases replaced by the names in `names` (a tool's parameters).

    Raises InvalidArgument for an argument that is neither, naming the allowed ones.
    """
    allowed = list(names)
    result: dict[str, Any] = {}
    # Canonical names first, so a conflicting alias is the one named.
    for key, value in sorted(arguments.items(), key=lambda item: item[0] not in allowed):
        if key in allowed:
            result[key] = _filters(value) if key == "filters" else value
        elif ARGUMENT_ALIASES.get(key) in allowed:
            _put(result, key, ARGUMENT_ALIASES[key], value)
        elif key == PAGINATION and "limit" in allowed:
            if not isinstance(value, Mapping) or not set(value) <= set(PAGINATION_KEYS):
                raise InvalidArgument(PAGINATION_NOT_OBJECT)
            for name in PAGINATION_KEYS:
                if name in value:
                    _put(result, f"{PAGINATION}.{name}", name, value[name])
        else:
            meant = bracketed(close_names(key, allowed, ARGUMENT_WORDS))
            raise InvalidArgument(
                UNKNOWN_ARGUMENT.format(name=key, meant=meant, allowed=", ".join(allowed))
            )
    return result
