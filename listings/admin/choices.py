"""The sidebar filters and their choices (cities and types cached, enums from the vocabulary)."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import QuerySet
from django.http import HttpRequest

from .. import describe, search, vocabulary
from ..errors import SearchError
from ..models import PropertyListing
from .formatting import NULL_CHOICE, NULL_LABEL, _ukrainian_order


def cached_cities() -> list[str]:
    """The cities with the most listings (describe.top_cities: up to 200), alphabetical."""
    return sorted(describe.top_cities(), key=_ukrainian_order)


def cached_property_types() -> list[tuple[int, str]]:
    return [(kind["id"], kind["name"]) for kind in describe.property_types()]


class CityFilter(admin.SimpleListFilter):
    title = "місто"
    parameter_name = "city"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(city, city) for city in cached_cities()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(city=value) if value else queryset


class PropertyTypeFilter(admin.SimpleListFilter):
    title = "тип нерухомості"
    parameter_name = "property_type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(type_id), name) for type_id, name in cached_property_types()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(property_type_id=int(value))
        return queryset


class VocabularyFilter(admin.SimpleListFilter):
    """A sidebar filter over the values the column really holds: the documented ones (each
    also matching its synonyms present), the others as they are, and NULL."""

    column = ""

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        vocab = search.live_vocabulary()
        present = vocab.present.get(self.column, {})
        documented = [
            (str(value), str(label))
            for value, label in vocabulary.ENUM_CHOICES[self.column].choices
        ]
        others = [
            (value, value) for value in present if vocabulary.canonical(self.column, value) is None
        ]
        null = [(NULL_CHOICE, NULL_LABEL)] if vocab.nulls.get(self.column) else []
        return documented + others + null

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value:
            return queryset
        if value == NULL_CHOICE:
            return queryset.filter(**{f"{self.column}__isnull": True})
        try:
            return queryset.filter(search.filter_condition(self.column, value))
        except SearchError as exc:
            raise IncorrectLookupParameters(exc.message) from None


def _vocabulary_filter(column: str) -> type[VocabularyFilter]:
    field = cast(Any, PropertyListing._meta.get_field(column))
    attributes = {"title": str(field.verbose_name), "parameter_name": column, "column": column}
    return type(f"{column.title().replace('_', '')}Filter", (VocabularyFilter,), attributes)


class RoomsFilter(admin.SimpleListFilter):
    title = "кількість кімнат"
    parameter_name = "rooms_count"
    MANY = "5+"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("1", "1"), ("2", "2"), ("3", "3"), ("4", "4"), (self.MANY, "5 і більше")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value == self.MANY:
            return queryset.filter(rooms_count__gte=5)
        if value and value.isdigit():
            return queryset.filter(rooms_count=int(value))
        return queryset
