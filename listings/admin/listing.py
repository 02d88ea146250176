"""The read-only listing and property-type admins: changelist, search box, detail page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.main import ORDER_VAR, ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString

from .. import contacts, market, search, vocabulary
from ..embedders_progress import embedding_progress
from ..errors import EmptyEmbedding, NoEmbedding, NotFound, SearchError
from ..models import SERVICE_FIELDS, PropertyListing, PropertyType
from ..querysets import PropertyListingQuerySet
from ..results import SearchPage
from ..search.hybrid import TEXT_SKIPPED
from . import market as admin_market
from .changelist import EstimatedCountPaginator, ListingChangeList, NullsLast
from .choices import CityFilter, PropertyTypeFilter, RoomsFilter, _vocabulary_filter, cached_cities
from .formatting import (
    EMPTY,
    enum_label,
    format_area,
    format_moment,
    format_price,
    local_date,
    price_per_m2,
    shown_or_dash,
)
from .semantic import (
    SEMANTIC_TEMPLATE,
    SEMANTIC_TITLE,
    SemanticSearchForm,
    _result_rows,
    _with_defaults,
    not_applied,
    page_links,
    requested_offset,
    understood_chips,
)

NEIGHBOURS_LIMIT = 10


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


SEARCH_FAILED = "Пошук не виконано: {message}"
# While the demo's embeddings are being filled in (search results carry embedding_note).
EMBEDDING_IN_PROGRESS = (
    "Вектори оголошень ще обчислюються ({done} з {total}): пошук за змістом поки що бачить "
    "лише оголошення з векторами; пошук за словами й фільтри бачать усі."
)
# The same, for a hybrid search whose words were not matched as text (a request in English
# or Russian): its answer is the semantic ranking alone.
EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY = (
    "Вектори оголошень ще обчислюються ({done} з {total}), а слова цього запиту не шукалися "
    "як текст (вони не українською): показано лише оголошення з векторами; усі, що "
    "відповідають фільтрам, — у списку оголошень."
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


# Above neighbours found for a listing without a usable stored vector (its text embedded now).
EMBEDDED_NOW_ADMIN_NOTE = (
    "Оголошення ще не має збереженого векторного представлення (ембедингу): для порівняння "
    "його заголовок, опис і місце векторизовано зараз."
)


NEIGHBOURS_FAILED = "Не вдалося підібрати схожі оголошення: {message}"
# Above the neighbours when the listing's own re-posts were left out of them (as agents get
# them from find_similar_to_listing); the duplicates block below lists them.
REPOSTS_LEFT_OUT_NOTE = (
    "Повторні публікації цього об'єкта ({ids}) не показано серед схожих: вони в блоці "
    "«Ймовірні дублікати» нижче."
)


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
        _vocabulary_filter("heating_type"),
        _vocabulary_filter("bathroom_type"),
        _vocabulary_filter("parking_type"),
        _vocabulary_filter("window_view"),
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
        "contact_name_masked",
        "contact_phone_masked",
        "price_display",
        "price_per_m2",
        "source_link",
        "publish_date_display",
        "archived_at_display",
        *(f"{column}_label" for column in vocabulary.ENUM_CHOICES),
    )

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        """Contacts in clear only for staff with listings.view_contacts; masked otherwise."""
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.has_perm(contacts.VIEW_CONTACTS_PERMISSION):
            return fieldsets
        masked = {"contact_name": "contact_name_masked", "contact_phone": "contact_phone_masked"}
        return [
            (title, {**options, "fields": [masked.get(str(f), f) for f in options["fields"]]})
            for title, options in fieldsets
        ]

    @admin.display(description="контактна особа")
    def contact_name_masked(self, obj: PropertyListing) -> str:
        return contacts.mask_name(obj.contact_name) or "—"

    @admin.display(description="телефон")
    def contact_phone_masked(self, obj: PropertyListing) -> str:
        return contacts.mask_phone(obj.contact_phone) or "—"

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
            found = search.by_relevance(found, query=search_term)
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
            # as agents get them: the listing's own re-posts left out, duplicates folded
            page = market.collapsing(search.similar_to_listing)(
                listing_id=listing_id,
                filters={"listing_status": "any"},
                limit=NEIGHBOURS_LIMIT,
                with_total=False,
            )
        except NoEmbedding:
            return {"neighbours": None, "neighbours_note": NO_EMBEDDING_NOTE}
        except EmptyEmbedding:
            return {"neighbours": None, "neighbours_note": EMPTY_EMBEDDING_NOTE}
        except NotFound as exc:
            return {"neighbours": None, "neighbours_note": exc.message}
        except SearchError as exc:
            return {
                "neighbours": None,
                "neighbours_note": NEIGHBOURS_FAILED.format(message=exc.message),
            }
        notes = [EMBEDDED_NOW_ADMIN_NOTE] if page.embedding_note else []
        if page._reposts:
            ids = ", ".join(f"#{i}" for i in page._reposts)
            notes.append(REPOSTS_LEFT_OUT_NOTE.format(ids=ids))
        return {"neighbours": _result_rows(page), "neighbours_note": " ".join(notes) or None}

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
            # duplicates folded into one row, as agents get them (the row names them)
            run: Callable[..., SearchPage] = market.collapsing(
                search.hybrid_search if cleaned["mode"] == "hybrid" else search.semantic_search
            )
            try:
                page = run(
                    query=cleaned["query"],
                    filters=filters,
                    limit=cleaned["limit"],
                    offset=requested_offset(request.GET),
                    interpret=cleaned["interpret"],
                )
            except SearchError as exc:
                messages.error(request, SEARCH_FAILED.format(message=exc.message))
            progress = embedding_progress() if page is not None and page.embedding_note else None
            if progress is not None and page is not None:
                semantic_only = page.filters.get("fulltext_mode") == TEXT_SKIPPED
                note = (
                    EMBEDDING_IN_PROGRESS_SEMANTIC_ONLY if semantic_only else EMBEDDING_IN_PROGRESS
                )
                messages.warning(request, note.format(done=progress.done, total=progress.total))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": SEMANTIC_TITLE,
            "form": form,
            "page": page,
            "results": _result_rows(page) if page is not None else None,
            "hybrid": page is not None and page.mode == "hybrid",
            "chips": understood_chips(request.GET, page),
            "not_applied": not_applied(page),
            "links": page_links(request.GET, page),
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


@admin.register(PropertyType)
class PropertyTypeAdmin(ReadOnlyAdmin):
    list_display = ("id", "slug", "name")
    list_display_links = ("id", "name")
    fields = ("id", "slug", "name", "description")
