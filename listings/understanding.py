"""Requests understood: the live place names, property types and currency spellings the
parser needs, place names in filters resolved against the values present, and what was read
merged with the caller's filters. The hook itself is listings.search.understood.

The parser itself (listings.interpretation) is pure; this module gives it the live place
names, property types and currency spellings, merges what it read with the caller's
filters (the caller's always win) and shows both back on the page.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import DatabaseError, connections
from pydantic import ValidationError

from .errors import InvalidArgument
from .filters import BAD_FILTER_VALUE, PRICE_FILTERS, Filters, explain_filter_error
from .interpretation import PLACE_COLUMNS, Gazetteer, Interpretation, property_type_named
from .models import PropertyType
from .runtime import LISTINGS, _database, remembered
from .types import SORT_ORDERS

logger = logging.getLogger("vmk.search")

PLACE_UNKNOWN = "no listing has '{value}' (did you mean {suggestions}?)"
PLACE_UNKNOWN_NO_SUGGESTION = "no listing has '{value}'; describe_schema lists the values present"
PROPERTY_TYPE_UNKNOWN = "no property type '{value}'; allowed: {allowed}"
INTERPRET_NOT_BOOL = "'interpret' must be true or false."
ORDER_NOT_APPLIED = (
    "Order '{order}': this search ranks by relevance; full-text search sorts by it "
    "(search_by_metadata, search_listings --mode text)."
)
ORDER_UNAVAILABLE = (
    "Order '{order}': no sort_by gives it; sort_by takes " + ", ".join(SORT_ORDERS) + "."
)
SUMMARY_PREFIX = "Зрозуміли: "
SUMMARY_NOTHING = "Зрозуміли: лише текст (фільтрів у запиті не знайдено)"
SUMMARY_ALL_OVERRIDDEN = "Зрозуміли: лише текст (прочитане із запиту замінили ваші фільтри)"

# Filters read from a query that the caller's filters override as a group: a price the caller
# gave replaces the whole price read (bounds and currency), and so on.
GROUPS: tuple[frozenset[str], ...] = (
    PRICE_FILTERS | {"currency"},
    frozenset({"rooms_count", "min_rooms", "max_rooms"}),
    frozenset({"min_area", "max_area"}),
    frozenset({"min_kitchen_area", "max_kitchen_area"}),
    frozenset({"min_living_area", "max_living_area"}),
    frozenset({"min_building_year", "max_building_year"}),
    frozenset({"floor", "min_floor", "max_floor", "not_top_floor", "top_floor"}),
    frozenset({"min_floors_count", "max_floors_count"}),
    frozenset({"property_type", "property_type_id"}),
    frozenset({"parking_type", "has_parking"}),
)

PLACES_SQL = (
    "SELECT city::text, district::text, metro_station::text, GROUPING(district), "
    "GROUPING(metro_station), count(*) FROM property_listings "
    "GROUP BY GROUPING SETS ((city), (city, district), (city, metro_station))"
)

_notes: ContextVar[dict[str, dict[str, str]] | None] = ContextVar("vmk_names", default=None)
_built: dict[str, Any] = {}


# --- the live values -----------------------------------------------------------------------


def _read_places() -> tuple[tuple[Any, ...], ...]:
    try:
        with connections[LISTINGS].cursor() as cursor:
            cursor.execute(PLACES_SQL)
            return tuple(tuple(row) for row in cursor.fetchall())
    except DatabaseError:
        logger.warning("the place names present in property_listings could not be read")
        return ()


def _build(rows: tuple[tuple[Any, ...], ...]) -> Gazetteer:
    values: dict[str, dict[str, int]] = {column: {} for column in PLACE_COLUMNS}
    located: list[tuple[str, str, str]] = []
    for city, district, station, no_district, no_station, count in rows:
        if no_district and no_station:
            column, value = "city", city
        elif not no_district:
            column, value = "district", district
        else:
            column, value = "metro_station", station
        if value is None:
            continue
        present = values[column]
        present[value] = present.get(value, 0) + int(count)
        if column != "city" and city is not None:
            located.append((column, value, city))
    return Gazetteer.build(values, located)


def _read_gazetteer() -> Gazetteer:
    """The place names present, built again only when they changed."""
    rows = _read_places()
    cached = _built.get("gazetteer")
    if cached is None or cached[0] != rows:
        cached = _built["gazetteer"] = (rows, _build(rows))
    gazetteer: Gazetteer = cached[1]
    return gazetteer


def live_gazetteer() -> Gazetteer:
    """The place names present (read once a minute, by the server's refresher: the read and
    the build are no call's)."""
    gazetteer: Gazetteer = remembered("gazetteer", _read_gazetteer)
    return gazetteer


def _read_property_types() -> list[tuple[Any, str | None, str]]:
    try:
        with _database():
            return [(t.id, t.slug, t.name) for t in PropertyType.objects.order_by("id")]
    except DatabaseError:
        logger.warning("the property types could not be read")
        return []


def property_type_rows() -> list[tuple[Any, str | None, str]]:
    """(id, slug, name) of every property type, by id (read once a minute): the one read of
    the table for filters, requests, describe_schema and the admin's choices; empty when it
    cannot be read."""
    found: list[tuple[Any, str | None, str]] = remembered("property_types", _read_property_types)
    return found


def _slugged() -> list[tuple[Any, str, str]]:
    return [(type_id, slug, name) for type_id, slug, name in property_type_rows() if slug]


def live_property_types() -> dict[str, str]:
    return {slug: name for _, slug, name in _slugged()}


def live_property_type_ids() -> dict[str, tuple[int, ...]]:
    """Slug -> the ids of the property types carrying it: a filter by slug is sent as ids,
    whose share the planner knows from the table's statistics (through the join it guessed:
    11 210 houses for 6 709 at 100 000 listings, which sent vector search to the index
    instead of the exact scan, recall@10 0.73). Empty when an id is not an integer: every
    filter by slug then goes through the join."""
    rows = _slugged()
    if not all(isinstance(type_id, int) for type_id, _, _ in rows):
        return {}
    ids: dict[str, tuple[int, ...]] = {}
    for type_id, slug, _ in rows:
        ids[slug] = (*ids.get(slug, ()), type_id)
    return ids


# --- place names in filters ----------------------------------------------------------------


# A district or station as listing_stats and price_trends name their groups without a city
# filter, "Шевченківський (Київ)": taken back as the place and its city.
CITY_PLACES = frozenset({"district", "metro_station"})
PLACE_WITH_CITY = re.compile(r"^(?P<place>[^()]+?)\s*\((?P<city>[^()]+)\)\s*$")


def _with_its_city(
    column: str, wanted: Mapping[str, str | None], gazetteer: Gazetteer
) -> tuple[str, str] | None:
    """The place and city a "Place (City)" value names, when it is not itself a value the
    table holds and both parts are (and the city filter, if any, is that city)."""
    given = wanted[column]
    if given is None or not gazetteer.values.get(column) or gazetteer.resolve(column, given):
        return None
    found = PLACE_WITH_CITY.match(given)
    if found is None:
        return None
    place = gazetteer.resolve(column, found["place"])
    city = gazetteer.resolve("city", found["city"])
    if place is None or city is None:
        return None
    if wanted["city"] is not None and gazetteer.resolve("city", wanted["city"]) != city:
        return None
    return place, city


def resolve_places(filters: Filters, gazetteer: Gazetteer | None = None) -> Filters:
    """City, district and station in the form present in the database ('Kyiv', 'Києві' ->
    'Київ'); raises InvalidArgument naming the nearest values when a name matches none."""
    wanted = {column: getattr(filters, column) for column in PLACE_COLUMNS}
    if not any(wanted.values()):
        return filters
    gazetteer = gazetteer or live_gazetteer()
    update: dict[str, str] = {}
    for column in CITY_PLACES:
        split = _with_its_city(column, wanted, gazetteer)
        if split is not None:
            notes = _notes.get()
            if notes is not None:  # names_resolved says how the value was read
                notes[column] = {"given": str(wanted[column]), "value": split[0]}
            update[column], wanted[column] = split[0], split[0]
            if wanted["city"] is None:
                update["city"] = wanted["city"] = split[1]
    city = None
    spellings: dict[str, tuple[str, ...]] = {}
    for column, given in wanted.items():  # the city first: a station or district in it
        if given is None or not gazetteer.values.get(column):
            continue  # nothing read (a table without the column): the value as given
        value = gazetteer.resolve(column, given, city)
        city = value if column == "city" else city
        if value is None:
            nearest = gazetteer.nearest(column, given)
            problem = (
                PLACE_UNKNOWN.format(value=given, suggestions=" or ".join(nearest))
                if nearest
                else PLACE_UNKNOWN_NO_SUGGESTION.format(value=given)
            )
            raise InvalidArgument(BAD_FILTER_VALUE.format(key=column, problem=problem))
        if value != given:
            update[column] = value
            notes = _notes.get()
            if notes is not None:
                notes[column] = {"given": given, "value": value}
        # a place the table spells several ways is each spelling (with a city filter too,
        # which keeps a district's or station's rows to that city's)
        same = gazetteer.spellings(column, value)
        if len(same) > 1:
            spellings[column] = same
    resolved = filters.model_copy(update=update) if update else filters
    return resolved.with_spellings(spellings) if spellings else resolved


def resolve_property_type(filters: Filters) -> Filters:
    """The property type filter as the slug of a type present ('Квартира', 'квартири',
    'flats' -> 'apartment'); raises InvalidArgument listing the slugs when it names none.
    Taken as given when no type with a slug could be read (a table without property types:
    the filter then matches what it matches)."""
    given = filters.property_type
    if given is None:
        return filters  # most searches: no read of the types' rows
    types = live_property_types()
    if not types:
        return filters
    slug = property_type_named(given, types)
    if slug is None:
        problem = PROPERTY_TYPE_UNKNOWN.format(value=given, allowed=", ".join(sorted(types)))
        raise InvalidArgument(BAD_FILTER_VALUE.format(key="property_type", problem=problem))
    if slug == given:
        return filters
    notes = _notes.get()
    if notes is not None:
        notes["property_type"] = {"given": given, "value": slug}
    return filters.model_copy(update={"property_type": slug})


# --- merging what was read with the caller's filters ---------------------------------


@contextmanager
def collecting_notes() -> Iterator[dict[str, dict[str, str]]]:
    notes: dict[str, dict[str, str]] = {}
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def group_of(name: str) -> frozenset[str]:
    """The filters overridden together with `name` (GROUPS), or `name` alone."""
    return next((group for group in GROUPS if name in group), frozenset({name}))


def _read_groups(read: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What was read, by the groups of filters that the caller's override together."""
    groups: dict[frozenset[str], dict[str, Any]] = {}
    for name, value in read.items():
        groups.setdefault(group_of(name), {})[name] = value
    return list(groups.values())


def refuse(reading: Interpretation) -> tuple[Interpretation, dict[str, str]]:
    """The reading less the values no filter accepts ("на 300 поверсі": floors go up to 200;
    "10¹⁵ м²"), and those names with the reason. A chip said in the same words as a refused
    one goes too (a purchase read from a refused price). Every check of Filters looks within
    one group (a field, or a range's two ends), so what is left is accepted whole."""
    try:
        Filters.model_validate(reading.filters)
        return reading, {}
    except ValidationError:
        pass
    refused: dict[str, str] = {}
    for values in _read_groups(reading.filters):
        try:
            Filters.model_validate(values)
        except ValidationError as error:
            errors = error.errors()
            for name in values:
                own = next((e for e in errors if e["loc"][:1] == (name,)), errors[0])
                refused[name] = explain_filter_error(own)
    spans = {(c.start, c.end) for c in reading.chips if set(c.filters) & set(refused)}
    dropped = set(refused).union(*(c.filters for c in reading.chips if (c.start, c.end) in spans))
    left = dataclasses.replace(
        reading,
        filters={k: v for k, v in reading.filters.items() if k not in dropped},
        chips=tuple(c for c in reading.chips if (c.start, c.end) not in spans),
    )
    return left, refused


def unsorted(reading: Interpretation) -> tuple[Interpretation, dict[str, str]]:
    """For a search that cannot sort (semantic, hybrid): the reading less the order asked for
    ("найдешевші") and its chip, and the order named as not applied, with the reason."""
    if reading.order is None:
        return reading, {}
    left = dataclasses.replace(
        reading, order=None, chips=tuple(c for c in reading.chips if c.filters != ("sort_by",))
    )
    return left, {"sort_by": ORDER_NOT_APPLIED.format(order=reading.order)}


def unavailable(reading: Interpretation) -> dict[str, str]:
    """An order asked for that no sort_by gives ("sort by date ascending"), named as not
    applied with the orders there are; its words are already out of the searched text."""
    if reading.order_unavailable is None:
        return {}
    return {"sort_by": ORDER_UNAVAILABLE.format(order=reading.order_unavailable)}


def merge(explicit: Filters, read: Mapping[str, Any]) -> tuple[Filters, list[str]]:
    """The caller's filters with what was read added where the caller said nothing about it;
    returns the merged filters and the names read but overridden."""
    given = set(explicit.model_fields_set)
    kept: dict[str, Any] = {}
    overridden: list[str] = []
    for name, value in read.items():
        if group_of(name) & given:
            overridden.append(name)
        else:
            kept[name] = value
    if not kept:
        return explicit, overridden
    try:
        merged = Filters.model_validate(explicit.model_dump(exclude_unset=True) | kept)
    except ValidationError:
        return explicit, overridden + list(kept)
    return merged, overridden


def summary(reading: Interpretation, overridden: list[str]) -> str:
    labels = [chip.label for chip in reading.chips if not set(chip.filters) <= set(overridden)]
    if labels:
        return SUMMARY_PREFIX + " · ".join(labels)
    return SUMMARY_ALL_OVERRIDDEN if reading.chips else SUMMARY_NOTHING
