"""Values present in the listings for a prefix an agent or a user typed: city, district (of
a city), metro station, property type. For MCP completions.

Matching is case-insensitive on the start of the value ("льв" → Львів). An inflected form
("Львова", "Києві", "Харкові") rarely shares its start with the nominative once vowels
alternate (і/о, ї/є), so when nothing starts with the prefix the consonants are compared
instead: "Києві" and "Київ" are both к-в.
"""

from __future__ import annotations

from typing import Any, Literal

from django.core.cache import cache
from django.db.models import Count

from .apostrophes import APOSTROPHES
from .models import PropertyListing, PropertyType

Field = Literal["city", "district", "metro_station", "property_type"]
FIELDS: tuple[Field, ...] = ("city", "district", "metro_station", "property_type")
MAX_VALUES = 100  # the protocol's cap on one completion answer
CACHE_SEC = 600
VOWELS = set("аеєиіїоуюяыэёaeiouy- " + APOSTROPHES)


def _normal(text: str) -> str:
    return text.casefold().replace("ґ", "г").replace("ё", "е")


def _consonants(text: str) -> str:
    return "".join(ch for ch in _normal(text) if ch not in VOWELS)


def _load(field: Field, city: str | None) -> list[tuple[str, int]]:
    if field == "property_type":
        rows = PropertyType.objects.annotate(n=Count("listings")).values_list("slug", "n")
        return sorted(((str(s), int(n)) for s, n in rows), key=lambda r: (-r[1], r[0]))
    empty: dict[str, Any] = {field: ""}
    listings = PropertyListing.objects.exclude(**{f"{field}__isnull": True}).exclude(**empty)
    if city:
        listings = listings.filter(city__iexact=city)
    rows = listings.values(field).annotate(n=Count("*")).order_by("-n", field)
    return [(str(row[field]), int(row["n"])) for row in rows[:5000]]


def present(field: Field, city: str | None = None) -> list[tuple[str, int]]:
    """(value, listings) pairs, the most frequent first; cached ten minutes."""
    key = f"vmk:suggest:{field}:{_normal(city or '')}"
    cached = cache.get(key)
    if cached is None:
        cached = _load(field, city)
        cache.set(key, cached, CACHE_SEC)
    return list(cached)


def suggest(*, field: Field, prefix: str, city: str | None = None) -> tuple[list[str], int]:
    """Values of `field` matching `prefix` (most listings first), at most MAX_VALUES, and how
    many matched in all."""
    values = [value for value, _ in present(field, city)]
    wanted = _normal(prefix.strip())
    matched = [v for v in values if _normal(v).startswith(wanted)]
    if not matched and len(_consonants(wanted)) >= 2:
        skeleton = _consonants(wanted)
        matched = [
            v
            for v in values
            if _consonants(v).startswith(skeleton) or skeleton.startswith(_consonants(v) or "-")
        ]
    return matched[:MAX_VALUES], len(matched)
