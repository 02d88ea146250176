"""Read-only staff admin over listings.search: browse, filter, search, see neighbours.

Nothing here writes, and nothing builds a search query of its own: the search box, the
neighbours on the detail page and the "Пошук за змістом" page all go through search.py.
The changelist stays cheap at a million rows: no full COUNT(*), filter choices from the
model enums or a cached query, and only the listed columns are fetched.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from functools import cached_property, wraps
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ORDER_VAR, ChangeList
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, F, QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.db.models.expressions import OrderBy
from django.http import HttpRequest, HttpResponse, QueryDict
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString

from . import admin_market, search, vocabulary
from .errors import NotFound, SearchError
from .models import (
    SERVICE_FIELDS,
    DealType,
    PropertyListing,
    PropertyType,
)
from .querysets import PropertyListingQuerySet
from .results import SearchPage

CHOICES_TTL_SEC = 600
CITY_CHOICES_LIMIT = 200
NEIGHBOURS_LIMIT = 10
SEMANTIC_LIMITS = (10, 20, 50)
DEFAULT_SEMANTIC_LIMIT = 20
CITIES_CACHE_KEY = "listings-admin:cities"
PROPERTY_TYPES_CACHE_KEY = "listings-admin:property-types"
NBSP = "\u00a0"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

SEARCH_FAILED = "Пошук не виконано: {message}"
MANY_MATCHES_NOTE = (
    "Збігів дуже багато, тому їх показано від найновіших, а не за релевантністю; уточніть "
    "пошук або скористайтеся фільтрами."
)
ILIKE_FALLBACK_NOTE = (
    "Повнотекстовий пошук нічого не знайшов, тому показано оголошення, де ці слова "
    "трапляються як частина тексту (заголовок, опис, адреса)."
)
NO_EMBEDDING_NOTE = (
    "Це оголошення ще не має векторного представлення (ембедингу), тому схожі "
    "оголошення підібрати не можна."
)
EMPTY_EMBEDDING_NOTE = (
    "Векторне представлення (ембединг) цього оголошення порожнє (усі нулі), тому схожі "
    "оголошення підібрати не можна."
)
NEIGHBOURS_FAILED = "Не вдалося підібрати схожі оголошення: {message}"
SEMANTIC_TITLE = "Пошук за змістом"
SEMANTIC_TEMPLATE = "admin/listings/propertylisting/semantic_search.html"

# The columns a changelist row needs; never the embedding or the search vector.
LIST_FIELDS = (
    "id",
    "title",
    "property_type__name",
    "city",
    "district",
    "deal_type",
    "price",
    "currency",
    "rooms_count",
    "total_area",
    "listing_status",
    "publish_date",
)

admin.site.site_header = "VMK: оголошення"
admin.site.site_title = "VMK адміністрування"
admin.site.index_title = "Перегляд даних"
admin.site.site_url = None  # there is no public site: "/" is not a page
admin.site.enable_nav_sidebar = False  # the changelist needs the width for its columns


# --- formatting ----------------------------------------------------------------------------


def _decimal(value: Decimal | float | int | None) -> Decimal | None:
    """A finite Decimal from any numeric column type (numeric, double precision, real,
    integer), or None: float and Decimal mix safely through it."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _number(value: Decimal | float | int, places: int) -> str:
    """'65 000', '71,6': Ukrainian separators, no trailing zero decimals."""
    text = f"{_decimal(value) or Decimal(0):,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(",", NBSP).replace(".", ",")


def format_price(price: Decimal | float | None, currency: str | None) -> str | None:
    number = _decimal(price)
    if number is None:
        return None
    return f"{_number(number, 2)}{NBSP}{currency}" if currency else _number(number, 2)


def format_area(area: Decimal | float | None) -> str | None:
    number = _decimal(area)
    return None if number is None else f"{_number(number, 2)}{NBSP}м²"


def price_per_m2(price: Decimal | float | None, area: Decimal | float | None) -> Decimal | None:
    """Price over total area, whatever numeric types the two columns have; None without
    both (or with a zero, negative or non-finite area)."""
    price_number, area_number = _decimal(price), _decimal(area)
    if price_number is None or area_number is None or area_number <= 0:
        return None
    per_m2 = price_number / area_number
    # Cents matter for a monthly rent per m², not for a sale price per m².
    return per_m2.quantize(Decimal(1 if abs(per_m2) >= 100 else "0.01"))


def local_date(value: dt.datetime | dt.date | None) -> dt.date | None:
    """The calendar date of a `timestamp with time zone`, `timestamp without time zone` or
    `date` column in TIME_ZONE. A naive timestamp is taken as UTC, as PostgreSQL takes it in
    our sessions (Django sets their time zone to UTC), so the date shown agrees with what
    the `published_after` filter compares."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if timezone.is_naive(value):
            value = value.replace(tzinfo=dt.UTC)
        return timezone.localtime(value).date()
    return value


def format_moment(value: dt.datetime | dt.date | None) -> str | None:
    """'05.03.2025 14:30' in TIME_ZONE (a naive timestamp taken as UTC), or '05.03.2025' for
    a `date` column."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if timezone.is_naive(value):
            value = value.replace(tzinfo=dt.UTC)
        return date_format(timezone.localtime(value), "d.m.Y H:i")
    return date_format(value, "d.m.Y")


_UK_ALPHABET = {letter: i for i, letter in enumerate("абвгґдеєжзиіїйклмнопрстуфхцчшщьюя")}


def _ukrainian_order(text: str) -> list[int]:
    # Code points put 'І' and 'Є' before 'А'; staff expect the alphabet.
    return [_UK_ALPHABET.get(ch, 100 + ord(ch)) for ch in text.lower()]


# --- cached filter choices (one small query per 10 minutes, not per page view) -------------


def _load_cities() -> list[str]:
    busiest = (
        PropertyListing.objects.exclude(city__isnull=True)
        .exclude(city="")
        .values("city")
        .annotate(listings=Count("id"))
        .order_by("-listings", "city")[:CITY_CHOICES_LIMIT]
    )
    return sorted((row["city"] for row in busiest), key=_ukrainian_order)


def cached_cities() -> list[str]:
    """The cities with the most listings (up to 200), alphabetical; cached for 10 minutes."""
    return cast(list[str], cache.get_or_set(CITIES_CACHE_KEY, _load_cities, CHOICES_TTL_SEC))


def _load_property_types() -> list[tuple[int, str]]:
    return list(PropertyType.objects.order_by("id").values_list("id", "name"))


def cached_property_types() -> list[tuple[int, str]]:
    return cast(
        list[tuple[int, str]],
        cache.get_or_set(PROPERTY_TYPES_CACHE_KEY, _load_property_types, CHOICES_TTL_SEC),
    )


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


# --- enum columns as data_collector writes them ---------------------------------------------

NULL_CHOICE = "unknown"
NULL_LABEL = "не вказано"
EMPTY = "—"


def shown_or_dash(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """admin.display whose missing value shows as EMPTY: the detail page prints a None that a
    read-only callable returns as the text "None"."""

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(method)
        def shown(self: Any, obj: Any) -> Any:
            value = method(self, obj)
            return EMPTY if value is None else value

        return admin.display(**options)(shown)

    return decorate


def enum_label(column: str, value: str | None) -> str:
    """A documented value by its Ukrainian label, a synonym by the label of what it means
    (with the raw value), anything else as itself, NULL as "—" (a method's None would show
    as the text "None" on the detail page)."""
    if value is None:
        return EMPTY
    choices = dict(vocabulary.ENUM_CHOICES[column].choices)
    if value in choices:
        return str(choices[value])
    target = vocabulary.canonical(column, value)
    if target is None:
        return value
    return f"{choices[target]} ({value})"


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


# --- counting without COUNT(*) -------------------------------------------------------------


class EstimatedCountPaginator(Paginator):
    """Counts that stay cheap at a million rows.

    The planner's row estimate (EXPLAIN) when it is above the cap, filtered or not: counting
    the rows of a filter no index serves reads the whole table. Otherwise an exact count of
    at most `count_cap` + 1 rows (a LIMITed subquery), reported as "more than `count_cap`"
    beyond that. `count_kind` says which.
    """

    count_cap = settings.TOTAL_COUNT_CAP  # as the search tools count
    count_kind = "exact"

    @cached_property
    def count(self) -> int:
        queryset = cast(QuerySet[Any], self.object_list)
        estimate = _planner_rows(queryset)
        if estimate is not None and estimate > self.count_cap:
            self.count_kind = "estimate"
            return estimate
        counted, exact = search.capped_count(queryset, self.count_cap)
        self.count_kind = "exact" if exact else "capped"
        return counted


def _planner_rows(queryset: QuerySet[Any]) -> int | None:
    """The planner's estimate, or None where there is none: an empty queryset (no SQL) or
    the default database's pages (history) when it cannot EXPLAIN in JSON."""
    try:
        return search.estimated_count(queryset)
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _plural(count: int, one: str, few: str, many: str) -> str:
    if count % 10 == 1 and count % 100 != 11:
        return one
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return few
    return many


class ListingChangeList(ChangeList):
    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> QuerySet[Any]:
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset.only(*LIST_FIELDS)

    def get_ordering_field_columns(self) -> dict[int, Literal["desc", "asc"]]:
        # Search results are ranked by relevance: no column header is the sort key then.
        if ORDER_VAR not in self.params and "rank" in self.queryset.query.annotations:
            return {}
        return super().get_ordering_field_columns()

    @property
    def count_label(self) -> str:
        """'≈ 1 000 000 оголошень', 'понад 10 000 оголошень' or the exact count."""
        count = self.result_count
        noun = _plural(count, "оголошення", "оголошення", "оголошень")
        number = _number(count, 0)
        kind = getattr(self.paginator, "count_kind", "exact")
        if kind == "estimate":
            return f"≈{NBSP}{number} {noun} (оцінка)"
        if kind == "capped":
            return f"понад {number} оголошень"
        return f"{number} {noun}"


# --- full-text search for the changelist ---------------------------------------------------


# --- admin ---------------------------------------------------------------------------------


class NullsLast(F):
    """A sortable column whose empty values come last in both directions."""

    def asc(self, **kwargs: Any) -> OrderBy:
        return super().asc(nulls_last=True)

    def desc(self, **kwargs: Any) -> OrderBy:
        return super().desc(nulls_last=True)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View permission only, for everyone including superusers: the data is never written."""

    actions = ()
    show_facets = admin.ShowFacets.NEVER

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return cast(dict[str, Any], actions)

    # Refused before Django opens a write transaction: the router has no database to give.
    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            raise PermissionDenied
        return cast(HttpResponse, super().changelist_view(request, extra_context))

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            raise PermissionDenied
        return super().changeform_view(request, object_id, form_url, extra_context)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        raise PermissionDenied


@admin.register(PropertyListing)
class PropertyListingAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "title",
        "property_type",
        "city",
        "district",
        "deal_type_label",
        "price_display",
        "rooms_count",
        "area_display",
        "listing_status_label",
        "published",
    )
    empty_value_display = EMPTY
    list_display_links = ("id", "title")
    sortable_by = ("id", "price_display", "area_display", "published")
    ordering = ("-id",)
    list_filter = (
        _vocabulary_filter("deal_type"),
        _vocabulary_filter("listing_status"),
        CityFilter,
        PropertyTypeFilter,
        _vocabulary_filter("building_type"),
        _vocabulary_filter("renovation_status"),
        RoomsFilter,
    )
    list_select_related = ("property_type",)
    list_per_page = 50
    list_max_show_all = 200
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    # Enables the search box; get_search_results replaces Django's icontains search.
    search_fields = ("title",)
    search_help_text = (
        "Повнотекстовий пошук з українською морфологією: «квартири» знайде «квартира». "
        "Якщо точних збігів немає, шукаємо частину слова в заголовку, описі та адресі."
    )
    fieldsets = (
        (
            "Основне",
            {
                "fields": (
                    "id",
                    "title",
                    "property_type",
                    "deal_type_label",
                    "listing_status_label",
                    "publish_date_display",
                    "archived_at_display",
                    "description",
                    "generated_description",
                )
            },
        ),
        ("Ціна", {"fields": ("price_display", "price_per_m2")}),
        (
            "Розташування",
            {
                "fields": (
                    "city",
                    "district",
                    "address_raw",
                    "metro_station",
                    "metro_distance_type_label",
                    "metro_distance_meters",
                )
            },
        ),
        (
            "Будинок і квартира",
            {
                "fields": (
                    "rooms_count",
                    "total_area",
                    "living_area",
                    "kitchen_area",
                    "floor",
                    "floors_count",
                    "layout_type_label",
                    "building_type_label",
                    "building_year",
                    "renovation_status_label",
                    "bathroom_type_label",
                )
            },
        ),
        (
            "Зручності",
            {
                "fields": (
                    "balcony_count",
                    "parking_type_label",
                    "heating_type_label",
                    "window_view_label",
                )
            },
        ),
        (
            "Джерело і контакти",
            {"fields": ("source_link", "images_count", "contact_name", "contact_phone")},
        ),
    )
    readonly_fields = (
        "price_display",
        "price_per_m2",
        "source_link",
        "publish_date_display",
        "archived_at_display",
        *(f"{column}_label" for column in vocabulary.ENUM_CHOICES),
    )

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        # Only the sidebar's filters: no URL-crafted filter on a service column, and no
        # unindexed free-text scan (the search box goes through search.py instead).
        allowed = {
            item if isinstance(item, str) else getattr(item, "parameter_name", "")
            for item in self.list_filter
        }
        return lookup.split(LOOKUP_SEP)[0] in allowed

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = cast(PropertyListingQuerySet, super().get_queryset(request))
        # normalised_price sorts the price column across currencies, as search.py does.
        return queryset.defer(*SERVICE_FIELDS).with_price_in(
            "USD", settings.EXCHANGE_RATES, search.live_vocabulary()
        )

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return ListingChangeList

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        if not search_term.strip():
            return queryset, False
        try:
            found, mode = search.fulltext_queryset(
                query=search_term, base=cast(PropertyListingQuerySet, queryset)
            )
        except SearchError as exc:
            messages.error(request, SEARCH_FAILED.format(message=exc.message))
            return queryset.none(), False
        if mode == "fulltext" and ORDER_VAR not in request.GET:
            if search.estimated_count(found) <= settings.FTS_RANK_CANDIDATES:
                found = found.sorted_by("relevance")
            else:
                # Ranking every match of a word found in most listings would read each one.
                messages.info(request, MANY_MATCHES_NOTE)
        elif mode == "ilike_fallback":
            messages.info(request, ILIKE_FALLBACK_NOTE)
        return found, False

    # --- columns and read-only fields ------------------------------------------------------

    @shown_or_dash(description="ціна", ordering=NullsLast("normalised_price"))
    def price_display(self, obj: PropertyListing) -> str | None:
        return format_price(obj.price, obj.currency)

    @shown_or_dash(description="площа", ordering=NullsLast("total_area"))
    def area_display(self, obj: PropertyListing) -> str | None:
        return format_area(obj.total_area)

    @shown_or_dash(description="опубліковано", ordering=NullsLast("publish_date"))
    def published(self, obj: PropertyListing) -> str | None:
        day = local_date(obj.publish_date)
        return None if day is None else date_format(day, "d.m.Y")

    @shown_or_dash(description="опубліковано")
    def publish_date_display(self, obj: PropertyListing) -> str | None:
        return format_moment(obj.publish_date)

    @shown_or_dash(description="в архіві з")
    def archived_at_display(self, obj: PropertyListing) -> str | None:
        return format_moment(obj.archived_at)

    @shown_or_dash(description="ціна за м²")
    def price_per_m2(self, obj: PropertyListing) -> str | None:
        return format_price(price_per_m2(obj.price, obj.total_area), obj.currency)

    @shown_or_dash(description="джерело")
    def source_link(self, obj: PropertyListing) -> str | SafeString | None:
        url = obj.url_source
        if not url:
            return None
        if urlsplit(url).scheme not in {"http", "https"}:
            return url  # shown, never linked: a javascript: URL must not become a link
        return format_html(
            '<a href="{}" target="_blank" rel="noopener noreferrer nofollow">{}</a>', url, url
        )

    # --- detail page: nearest neighbours ---------------------------------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        if object_id.isdigit() and self.has_view_permission(request):
            context.update(self._neighbours(int(object_id)))
            context.update(admin_market.listing_market(int(object_id)))
        return super().change_view(request, object_id, form_url, context)

    def _neighbours(self, listing_id: int) -> dict[str, Any]:
        try:
            page = search.similar_to_listing(
                listing_id=listing_id,
                filters={"listing_status": "any"},
                limit=NEIGHBOURS_LIMIT,
                with_total=False,
            )
        except NotFound as exc:
            notes = {
                search.LISTING_HAS_NO_EMBEDDING.format(listing_id=listing_id): NO_EMBEDDING_NOTE,
                search.LISTING_EMBEDDING_EMPTY.format(listing_id=listing_id): EMPTY_EMBEDDING_NOTE,
            }
            note = notes.get(exc.message, exc.message)
            return {"neighbours": None, "neighbours_note": note}
        except SearchError as exc:
            return {
                "neighbours": None,
                "neighbours_note": NEIGHBOURS_FAILED.format(message=exc.message),
            }
        return {"neighbours": _result_rows(page), "neighbours_note": None}

    # --- semantic search page --------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        info = self.opts.app_label, self.opts.model_name
        own = [
            path(
                "semantic/",
                self.admin_site.admin_view(self.semantic_view),
                name="{}_{}_semantic".format(*info),
            ),
            path(
                "market/",
                self.admin_site.admin_view(lambda request: admin_market.market_view(self, request)),
                name="{}_{}_market".format(*info),
            ),
        ]
        return own + cast(list[URLPattern], super().get_urls())

    def semantic_view(self, request: HttpRequest) -> TemplateResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        data = _with_defaults(request.GET) if "query" in request.GET else None
        form = SemanticSearchForm(data, cities=cached_cities())
        page = None
        if form.is_bound and form.is_valid():
            cleaned = form.cleaned_data
            filters = {name: cleaned[name] for name in ("city", "deal_type") if cleaned[name]}
            run: Callable[..., SearchPage] = (
                search.hybrid_search if cleaned["mode"] == "hybrid" else search.semantic_search
            )
            try:
                page = run(query=cleaned["query"], filters=filters, limit=cleaned["limit"])
            except SearchError as exc:
                messages.error(request, SEARCH_FAILED.format(message=exc.message))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": SEMANTIC_TITLE,
            "form": form,
            "page": page,
            "results": _result_rows(page) if page is not None else None,
            "hybrid": page is not None and page.mode == "hybrid",
        }
        return TemplateResponse(request, SEMANTIC_TEMPLATE, context)


def _enum_display(column: str) -> Callable[[Any, PropertyListing], str]:
    field = cast(Any, PropertyListing._meta.get_field(column))

    def show(model_admin: Any, obj: PropertyListing) -> str:
        return enum_label(column, getattr(obj, column))

    show.__name__ = f"{column}_label"
    return admin.display(description=str(field.verbose_name), ordering=column)(show)


# Enum columns show what they hold: a value outside the documented ones as itself, not "—".
for _column in vocabulary.ENUM_CHOICES:
    setattr(PropertyListingAdmin, f"{_column}_label", _enum_display(_column))


def _with_defaults(query: QueryDict) -> QueryDict:
    data = query.copy()
    if not data.get("mode"):
        data["mode"] = "semantic"
    if not data.get("limit"):
        data["limit"] = str(DEFAULT_SEMANTIC_LIMIT)
    return data


def _result_rows(page: SearchPage) -> list[dict[str, Any]]:
    return [
        {
            "card": card,
            "url": reverse("admin:listings_propertylisting_change", args=[card.id]),
            "price": format_price(card.price, card.currency),
            "area": format_area(card.total_area),
            "deal": enum_label("deal_type", card.deal_type),
            "status": enum_label("listing_status", card.listing_status),
        }
        for card in page.listings
    ]


class SemanticSearchForm(forms.Form):
    query = forms.CharField(
        label="Запит",
        max_length=settings.MAX_QUERY_LENGTH,
        widget=forms.TextInput(
            attrs={"size": 70, "placeholder": "простора квартира біля парку з ремонтом"}
        ),
    )
    mode = forms.ChoiceField(
        label="Режим",
        choices=[
            ("semantic", "за змістом (семантичний)"),
            ("hybrid", "гібридний (зміст + слова)"),
        ],
    )
    city = forms.ChoiceField(label="Місто", required=False)
    deal_type = forms.ChoiceField(
        label="Тип угоди", required=False, choices=[("", "будь-який"), *DealType.choices]
    )
    limit = forms.TypedChoiceField(
        label="Показати",
        coerce=int,
        choices=[(n, str(n)) for n in SEMANTIC_LIMITS],
        initial=DEFAULT_SEMANTIC_LIMIT,
    )

    def __init__(self, *args: Any, cities: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        city = cast(forms.ChoiceField, self.fields["city"])
        city.choices = [("", "усі міста"), *((name, name) for name in cities)]
        limit = cast(forms.TypedChoiceField, self.fields["limit"])
        limit.choices = [(n, str(n)) for n in SEMANTIC_LIMITS if n <= settings.MAX_LIMIT]


@admin.register(PropertyType)
class PropertyTypeAdmin(ReadOnlyAdmin):
    list_display = ("id", "slug", "name")
    list_display_links = ("id", "name")
    fields = ("id", "slug", "name", "description")
