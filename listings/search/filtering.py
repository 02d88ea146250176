"""The vocabulary the table really holds, and the filters resolved against it."""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.models import BooleanField, ExpressionWrapper, Q, Value

from .. import understanding, vocabulary
from ..compiled import Placeholder, Settings, Shape, Statements, execute_fetch
from ..errors import MIXED_DEALS_SORT_WARNING, QueryTimeout
from ..filters import Filters, parse_filters, resolve_filters
from ..filterslots import FilterValues, filter_values
from ..models import PropertyListing
from ..querysets import PropertyListingQuerySet, listing_condition
from ..runtime import LISTINGS, _database, _rates, capped, capped_count, remembered, up_to_cap

logger = logging.getLogger("vmk.search")

VOCABULARY_COLUMNS = (*vocabulary.ENUM_CHOICES, "currency")
PRICE_SORTS = frozenset({"price_asc", "price_desc"})


def _vocabulary_sql() -> str:
    """Every enum column's values with counts (NULL too), and the currencies of priced rows,
    in one scan: one grouping set per column."""
    columns = ", ".join(f"{name}::text AS {name}" for name in VOCABULARY_COLUMNS)
    flags = ", ".join(f"GROUPING({name})" for name in VOCABULARY_COLUMNS)
    sets = ", ".join(
        f"({name})" if name != "currency" else "(currency, priced)" for name in VOCABULARY_COLUMNS
    )
    values = ", ".join(VOCABULARY_COLUMNS)
    return (
        f"SELECT {flags}, {values}, priced, count(*) FROM ("  # noqa: S608 - fixed names
        f"SELECT {columns}, price IS NOT NULL AS priced FROM property_listings) AS t "
        f"GROUP BY GROUPING SETS ({sets})"
    )


def _read_vocabulary() -> vocabulary.Vocabulary:
    present: dict[str, dict[str, int]] = {name: {} for name in VOCABULARY_COLUMNS}
    nulls: dict[str, int] = dict.fromkeys(VOCABULARY_COLUMNS, 0)
    priced: dict[str | None, int] = {}
    width = len(VOCABULARY_COLUMNS)
    try:
        with _database(), connections[LISTINGS].cursor() as cursor:
            cursor.execute(_vocabulary_sql())
            rows = cursor.fetchall()
    except DatabaseError:
        # A table without one of these columns: the documented values still work.
        logger.warning("the values present in property_listings could not be read")
        rows = []
    for row in rows:
        flags, values, is_priced, count = row[:width], row[width : 2 * width], row[-2], row[-1]
        name = VOCABULARY_COLUMNS[flags.index(0)]
        value = values[flags.index(0)]
        if name == "currency" and is_priced:
            priced[value] = priced.get(value, 0) + int(count)
        if value is None:
            nulls[name] += int(count)
        else:
            present[name][str(value)] = present[name].get(str(value), 0) + int(count)
    ordered = {
        name: dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))
        for name, found in present.items()
    }
    return vocabulary.Vocabulary(
        present=ordered,
        nulls=nulls,
        priced_currencies=priced,
        aliases=vocabulary.currency_aliases(settings.CURRENCY_ALIASES, list(_rates())),
        null_currency=settings.DEFAULT_CURRENCY or None,
        property_types=understanding.live_property_type_ids(),
    )


def live_vocabulary() -> vocabulary.Vocabulary:
    """The enum values and currency spellings present in the table (re-read once a minute)."""
    found: vocabulary.Vocabulary = remembered("vocabulary", _read_vocabulary)
    return found


def _resolved(raw: Filters | Mapping[str, Any] | None) -> Filters:
    """Untrusted filters validated, their enum values checked against the live vocabulary."""
    resolved = resolve_filters(parse_filters(raw), live_vocabulary())
    return understanding.resolve_property_type(understanding.resolve_places(resolved))


def _filtered(filters: Filters) -> PropertyListingQuerySet:
    return PropertyListing.objects.filtered(filters, _rates(), live_vocabulary())


def narrowed(queryset: PropertyListingQuerySet, raw: Mapping[str, Any]) -> PropertyListingQuerySet:
    """`queryset` narrowed by `raw` filters as the tools take them (the admin's sidebar): the
    same Filters, resolution against the vocabulary and conditions, but listing_status not
    given is lifted ('any'), not 'active'. Raises InvalidArgument for a bad value."""
    filters = parse_filters({"listing_status": vocabulary.STATUS_ANY, **raw})
    resolved = understanding.resolve_property_type(resolve_filters(filters, live_vocabulary()))
    return queryset.filtered(resolved, _rates(), live_vocabulary())


def _prices_left_out(filters: Filters, sort_by: str | None = None) -> int | None:
    """With a price bound or a price sort: how many listings matching the other filters have
    a price that could not be used (currency NULL or unrecognised); None otherwise."""
    priced_filter = filters.min_price is not None or filters.max_price is not None
    if not priced_filter and sort_by not in PRICE_SORTS:
        return None
    vocab = live_vocabulary()
    if not vocab.prices_without_currency():
        return 0
    unusable = vocab.unusable_currencies()
    condition = Q(currency__in=[raw for raw in unusable if raw is not None])
    if None in unusable:
        condition |= Q(currency__isnull=True)
    unbounded = filters.model_copy(update={"min_price": None, "max_price": None})
    with _database():
        count, _ = capped_count(_filtered(unbounded).filter(condition, price__isnull=False))
    return count


def mixed_deals(filters: Filters, sort_by: str | None) -> list[str] | None:
    """A price sort with no deal_type, where the table holds more than one deal type: the
    warning that sales and rents are sorted together (900 UAH a day before a flat for sale);
    None otherwise. The deal types present are the vocabulary's, read once, not per call."""
    if sort_by not in PRICE_SORTS or filters.deal_type is not None:
        return None
    mixed = len(live_vocabulary().kinds("deal_type")) > 1
    return [MIXED_DEALS_SORT_WARNING] if mixed else None


def one_dropped(filters: Filters) -> list[tuple[list[str], Filters]]:
    """`filters` with each group of the filters set lifted alone (understanding.GROUPS: a
    price's bounds go together; the currency alone narrows nothing, the default status does)."""
    given = set(filters.model_dump(exclude_defaults=True)) - {"currency"}
    if filters.listing_status != vocabulary.STATUS_ANY:
        given.add("listing_status")
    groups = sorted({understanding.group_of(name) & given for name in given}, key=sorted)
    return [(sorted(group), lifted(filters, group)) for group in groups]


def lifted(filters: Filters, names: Iterable[str]) -> Filters:
    """`filters` without the filters `names` (listing_status: 'any')."""
    defaults = {name: Filters.model_fields[name].default for name in names}
    if "listing_status" in defaults:
        defaults["listing_status"] = vocabulary.STATUS_ANY
    return filters.model_copy(update=defaults)


# For one statement alone (its implicit transaction): a count with a time of its own.
STATEMENT_TIMEOUT_SQL = "SELECT set_config('statement_timeout', %s, true)"


def within(milliseconds: int) -> Settings:
    """`milliseconds` for each statement (statement_timeout): for one statement sent after
    these settings (Settings.before), or for every statement of a transaction (.held)."""
    return Settings(STATEMENT_TIMEOUT_SQL, (f"{max(milliseconds, 1)}ms",))


# The counts of empty pages' if_dropped (understood, text._without_each), by shape: each
# built and compiled by the ORM every call took 4 of the 7 ms a full-text page that found
# nothing spent above its SQL at 100 000 listings.
_COUNTS = Statements()


# The vocabulary and the exchange rates a statement is built with.
Built = tuple[vocabulary.Vocabulary, Mapping[str, float]]


@dataclass(frozen=True)
class Matches:
    """The listings that match filters, narrowed by a search's words (`narrow(queryset,
    *words)`, the words' slots first; `key` names what it writes), counted by statements
    compiled once per shape, the filters' values sent as placeholders (filterslots)."""

    key: Hashable = "filters"
    narrow: Callable[..., PropertyListingQuerySet] | None = None
    words: tuple[tuple[Placeholder, Any], ...] = ()

    def _narrowed(self, queryset: PropertyListingQuerySet, args: Sequence[Any]) -> Any:
        if self.narrow is None:
            return queryset
        return self.narrow(queryset, *args[: len(self.words)])

    def _sql(
        self,
        key: Hashable,
        filters: Filters,
        build: Callable[[FilterValues, Built, tuple[Any, ...]], Any],
    ) -> tuple[str, list[Any]]:
        """The SQL and parameters of `build(values, (vocabulary, rates), args)`'s queryset for
        `filters`: the vocabulary read once, for the key and the SQL alike (the server's
        refresher may put another in place between two reads)."""
        rates, vocab = _rates(), live_vocabulary()
        given = filter_values(filters, rates)

        def built(*args: Any) -> Any:
            return build(given, (vocab, rates), args)

        shape = Shape(
            (self.key, key, given.key, vocab.statement_key, id(rates)), built, (vocab, rates)
        )
        return _COUNTS.sql(shape, [*self.words, *given.slots], LISTINGS)

    def counts(self, each: Sequence[Filters], milliseconds: int) -> list[tuple[int, bool]] | None:
        """How many listings match each of `each`, counting at most TOTAL_COUNT_CAP as
        capped_count does: (count, exact) each, in one statement (a capped count per filters,
        each planned on its own); None when it takes more than `milliseconds`."""
        if not each:
            return []
        if milliseconds <= 0:
            return None
        cap = settings.TOTAL_COUNT_CAP

        def build(given: FilterValues, read: Built, args: tuple[Any, ...]) -> Any:
            vocab, rates = read
            found = given.queryset(args[len(self.words) :], rates, vocab)
            return up_to_cap(self._narrowed(found, args), cap)

        counts, params = [], []
        for filters in each:
            sql, values = self._sql(("capped", cap), filters, build)
            counts.append(f"(SELECT count(*) FROM ({sql}) AS kept)")  # noqa: S608 - the ORM's
            params.extend(values)
        rows = _timed(f"SELECT {', '.join(counts)}", params, within(milliseconds))
        return None if rows is None else [capped(int(counted), cap) for counted in rows[0]]

    def sampled(
        self,
        filters: Filters,
        groups: Sequence[Sequence[str]],
        milliseconds: int,
        plan: Settings | None = None,
    ) -> list[tuple[int, bool] | None] | None:
        """How many listings match `filters` with each of `groups` lifted (`lifted`), from one
        read of the listings that match any of them, at most TOTAL_COUNT_CAP + 1 (a count
        each would read a substring match's table once per group): (count, exact) as
        `counts` gives it where that read settles it, None where it does not (it stopped at
        the cap, fewer of them meeting these filters). Planned under `plan`'s settings; None
        when it takes more than `milliseconds`."""
        if milliseconds <= 0:
            return None
        cap = settings.TOTAL_COUNT_CAP

        def build(given: FilterValues, read: Built, args: tuple[Any, ...]) -> Any:
            vocab, rates = read
            stood_in, windows = given.given(args[len(self.words) :])
            conditions = []
            for names in groups:
                kept = lifted(stood_in, names)
                priced = kept.min_price is not None or kept.max_price is not None
                window = windows if priced else None
                conditions.append(listing_condition(kept, rates, vocab, windows=window))
            flags = {
                f"kept_{n}": ExpressionWrapper(condition or Value(True), BooleanField())
                for n, condition in enumerate(conditions)
            }
            found = self._narrowed(PropertyListing.objects.all(), args)
            if all(conditions):  # (an empty condition lets every listing in)
                found = found.filter(functools.reduce(operator.or_, conditions))
            return found.annotate(**flags).order_by().values(*flags)[: cap + 1]

        key = ("sampled", cap, tuple(tuple(names) for names in groups))
        sql, params = self._sql(key, filters, build)
        counts = ", ".join(f"count(*) FILTER (WHERE kept_{n})" for n in range(len(groups)))
        timed = within(milliseconds) if plan is None else plan.joined(within(milliseconds))
        counting = f"SELECT count(*), {counts} FROM ({sql}) AS read"  # noqa: S608
        rows = _timed(counting, params, timed)
        if rows is None:
            return None
        read, *kept = (int(value) for value in rows[0])
        return [capped(count, cap) if read <= cap or count > cap else None for count in kept]


def _timed(sql: str, params: Sequence[Any], settings: Settings) -> list[tuple[Any, ...]] | None:
    """The rows of `sql` under `settings` (a statement_timeout), or None past that time."""
    try:
        with _database():
            return execute_fetch(sql, params, LISTINGS, settings)
    except QueryTimeout:
        return None


def budgeted_counts(filters: Sequence[Filters], milliseconds: int) -> list[tuple[int, bool]] | None:
    """How many listings match each of `filters` (Matches.counts)."""
    return Matches().counts(filters, milliseconds)
