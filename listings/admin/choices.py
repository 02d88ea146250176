"""The sidebar filters and their choices (cities and types from describe's cached facts, enums
from the vocabulary). Each builds the tools' filters and narrows through search.narrowed: the
same Filters, the same resolution, the same conditions as the tools."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import QuerySet
from django.http import HttpRequest

from .. import describe, search, vocabulary
from ..errors import SearchError
from ..models import PropertyListing
from ..querysets import PropertyListingQuerySet
from .formatting import NULL_CHOICE, NULL_LABEL, _ukrainian_order


def cached_cities() -> list[str]:
    """The cities with the most listings (describe.top_cities: up to 200), alphabetical."""
    return sorted(describe.top_cities(), key=_ukrainian_order)


def cached_property_types() -> list[tuple[int, str]]:
    return [(kind["id"], kind["name"]) for kind in describe.property_types()]


class SearchFilter(admin.SimpleListFilter):
    """A sidebar filter whose choice is a set of the tools' filters (`filters`)."""

    def filters(self, value: str) -> dict[str, Any] | None:
        """The tools' filters the chosen value means; None: not a value of this filter."""
        raise NotImplementedError

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        chosen = self.filters(value) if value else None
        if chosen is None:
            return queryset
        try:
            return search.narrowed(cast(PropertyListingQuerySet, queryset), chosen)
        except SearchError as exc:
            raise IncorrectLookupParameters(exc.message) from None


class CityFilter(SearchFilter):
    title = "місто"
    parameter_name = "city"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(city, city) for city in cached_cities()]

    def filters(self, value: str) -> dict[str, Any] | None:
        return {"city": value}


class PropertyTypeFilter(SearchFilter):
    title = "тип нерухомості"
    parameter_name = "property_type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(type_id), name) for type_id, name in cached_property_types()]

    def filters(self, value: str) -> dict[str, Any] | None:
        return {"property_type_id": int(value)} if value.isdigit() else None


class VocabularyFilter(SearchFilter):
    """A sidebar filter over the values the column really holds: the documented ones (each
    also matching its synonyms present), the groups of them ("з ремонтом"), the others as
    they are, and NULL."""

    column = ""

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        vocab = search.live_vocabulary()
        present = vocab.present.get(self.column, {})
        documented = [
            (str(value), str(label))
            for value, label in vocabulary.ENUM_CHOICES[self.column].choices
        ]
        groups = [
            (name, vocabulary.GROUP_LABELS.get(name, name))
            for name in vocabulary.VALUE_GROUPS.get(self.column, {})
        ]
        others = [
            (value, value) for value in present if vocabulary.canonical(self.column, value) is None
        ]
        null = [(NULL_CHOICE, NULL_LABEL)] if vocab.nulls.get(self.column) else []
        return documented + groups + others + null

    def filters(self, value: str) -> dict[str, Any] | None:
        if value == NULL_CHOICE and self.column == "listing_status":
            return {"listing_status": vocabulary.STATUS_UNKNOWN}
        return {self.column: value}

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == NULL_CHOICE and self.column != "listing_status":
            # The tools' filters have no "not recorded" for this column.
            return queryset.filter(**{f"{self.column}__isnull": True})
        return super().queryset(request, queryset)


def _vocabulary_filter(column: str) -> type[VocabularyFilter]:
    field = cast(Any, PropertyListing._meta.get_field(column))
    attributes = {"title": str(field.verbose_name), "parameter_name": column, "column": column}
    return type(f"{column.title().replace('_', '')}Filter", (VocabularyFilter,), attributes)


class RoomsFilter(SearchFilter):
    title = "кількість кімнат"
    parameter_name = "rooms_count"
    MANY = "5+"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("1", "1"), ("2", "2"), ("3", "3"), ("4", "4"), (self.MANY, "5 і більше")]

    def filters(self, value: str) -> dict[str, Any] | None:
        if value == self.MANY:
            return {"min_rooms": 5}
        return {"rooms_count": int(value)} if value.isdigit() else None
