"""Completions of prompt arguments and resource-template parameters from the live values:
city, district (of the city given), metro station, property type, deal type."""

from __future__ import annotations

from typing import Any

from mcp_types import Completion, CompletionArgument, CompletionContext

from listings import suggestions
from listings.models import DealType

from .runner import run_search

FIELDS: dict[str, suggestions.Field] = {
    "city": "city",
    "district": "district",
    "metro_station": "metro_station",
    "property_type": "property_type",
}
MAX_PREFIX = 100


async def complete(
    ref: Any, argument: CompletionArgument, context: CompletionContext | None
) -> Completion | None:
    """The same for every prompt and template: an argument is completed by its name."""
    prefix = argument.value[:MAX_PREFIX]
    if argument.name == "deal_type":
        values = [v for v in DealType.values if v.startswith(prefix.casefold())]
        return Completion(values=values, total=len(values), has_more=False)
    field = FIELDS.get(argument.name)
    if field is None:
        return None
    city = (context.arguments or {}).get("city") if context else None
    values, total = await run_search(
        "completion",
        suggestions.suggest,
        field=field,
        prefix=prefix,
        city=city if field == "district" else None,
    )
    return Completion(values=values, total=total, has_more=total > len(values))


def register(server: Any) -> None:
    server.completion()(complete)
