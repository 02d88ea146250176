"""The changelist: counting without COUNT(*), the listed columns, empty values sorted last."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal, cast

from django.conf import settings
from django.contrib.admin.views.main import ORDER_VAR, ChangeList
from django.core.paginator import Page, Paginator
from django.db.models import F, QuerySet
from django.db.models.expressions import OrderBy
from django.http import HttpRequest

from .. import search
from .formatting import NBSP, _number

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
        # As the search tools count their totals (search.total_of).
        total, exact = search.total_of(queryset, self.count_cap, estimate=_planner_rows)
        self.count_kind = "exact" if exact else "capped" if total <= self.count_cap else "estimate"
        return total

    def page(self, number: Any) -> Any:
        """A page of relevance-ordered search results is read without sorting every match
        (search.relevance_slice); any other page as Django reads it."""
        queryset = cast(QuerySet[Any], self.object_list)
        if not search.is_by_relevance(queryset):
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        rows = search.relevance_slice(cast(Any, queryset), bottom, top)
        return Page(rows, number, self)


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


class NullsLast(F):
    """A sortable column whose empty values come last in both directions."""

    def asc(self, **kwargs: Any) -> OrderBy:
        return super().asc(nulls_last=True)

    def desc(self, **kwargs: Any) -> OrderBy:
        return super().desc(nulls_last=True)
