"""Read-only staff admin over listings.search: browse, filter, search, see neighbours.

Nothing here writes, and nothing builds a search query of its own: the search box, the
neighbours on the detail page and the "Пошук за змістом" page all go through search.py.
The changelist stays cheap at a million rows: no full COUNT(*), filter choices from the
model enums or a cached query, and only the listed columns are fetched.
"""

from __future__ import annotations

from django.contrib import admin

from .changelist import (
    LIST_FIELDS,
    EstimatedCountPaginator,
    ListingChangeList,
    NullsLast,
    _planner_rows,
    _plural,
)
from .choices import (
    CityFilter,
    PropertyTypeFilter,
    RoomsFilter,
    VocabularyFilter,
    _vocabulary_filter,
    cached_cities,
    cached_property_types,
)
from .formatting import (
    _UK_ALPHABET,
    EMPTY,
    NBSP,
    NULL_CHOICE,
    NULL_LABEL,
    _decimal,
    _number,
    _ukrainian_order,
    enum_label,
    format_area,
    format_moment,
    format_price,
    local_date,
    price_per_m2,
    shown_or_dash,
)
from .listing import (
    EMBEDDED_NOW_ADMIN_NOTE,
    EMPTY_EMBEDDING_NOTE,
    ILIKE_FALLBACK_NOTE,
    NEIGHBOURS_FAILED,
    NEIGHBOURS_LIMIT,
    NO_EMBEDDING_NOTE,
    REPOSTS_LEFT_OUT_NOTE,
    SAFE_METHODS,
    SEARCH_FAILED,
    PropertyListingAdmin,
    PropertyTypeAdmin,
    ReadOnlyAdmin,
    _enum_display,
)
from .semantic import (
    DEFAULT_SEMANTIC_LIMIT,
    SEMANTIC_LIMITS,
    SEMANTIC_TEMPLATE,
    SEMANTIC_TITLE,
    SemanticSearchForm,
    _result_rows,
    _with_defaults,
)

admin.site.site_header = "VMK: оголошення"
admin.site.site_title = "VMK адміністрування"
admin.site.index_title = "Перегляд даних"
admin.site.site_url = None  # there is no public site: "/" is not a page
admin.site.enable_nav_sidebar = False  # the changelist needs the width for its columns

__all__ = [
    "DEFAULT_SEMANTIC_LIMIT",
    "EMBEDDED_NOW_ADMIN_NOTE",
    "EMPTY",
    "EMPTY_EMBEDDING_NOTE",
    "ILIKE_FALLBACK_NOTE",
    "LIST_FIELDS",
    "NBSP",
    "NEIGHBOURS_FAILED",
    "NEIGHBOURS_LIMIT",
    "NO_EMBEDDING_NOTE",
    "NULL_CHOICE",
    "NULL_LABEL",
    "REPOSTS_LEFT_OUT_NOTE",
    "SAFE_METHODS",
    "SEARCH_FAILED",
    "SEMANTIC_LIMITS",
    "SEMANTIC_TEMPLATE",
    "SEMANTIC_TITLE",
    "_UK_ALPHABET",
    "CityFilter",
    "EstimatedCountPaginator",
    "ListingChangeList",
    "NullsLast",
    "PropertyListingAdmin",
    "PropertyTypeAdmin",
    "PropertyTypeFilter",
    "ReadOnlyAdmin",
    "RoomsFilter",
    "SemanticSearchForm",
    "VocabularyFilter",
    "_decimal",
    "_enum_display",
    "_number",
    "_planner_rows",
    "_plural",
    "_result_rows",
    "_ukrainian_order",
    "_vocabulary_filter",
    "_with_defaults",
    "admin",
    "cached_cities",
    "cached_property_types",
    "enum_label",
    "format_area",
    "format_moment",
    "format_price",
    "local_date",
    "price_per_m2",
    "shown_or_dash",
]
