"""Aggregate statistics over filtered listings (listing_stats) and the percentile aggregates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Case, CharField, Count, F, FloatField, Max, Min, Q, Value, When
from django.db.models.aggregates import Aggregate, Avg
from django.db.models.functions import Concat
from django_cte import CTE, with_cte

from .. import vocabulary
from ..compiled import Shape, Statements
from ..errors import (
    CURRENCY_UNKNOWN,
    MIXED_DEALS_WARNING,
    PRICES_LEFT_OUT_WARNING,
    InvalidArgument,
)
from ..filters import Filters
from ..filterslots import filter_values
from ..querysets import in_currency, price_in
from ..results import StatsResult, StatsRow
from ..runtime import LISTINGS, MAX_STATS_GROUPS, _database, _rates, _timing
from ..types import CURRENCIES, GroupBy, RawFilters, StatsCurrency, checked
from ..understanding import CITY_PLACES
from .filtering import _resolved, live_vocabulary

# The figures' currency when neither the caller nor the listings name one the rates know.
DEFAULT_FIGURES_CURRENCY = "USD"

# Places whose names repeat from city to city (understanding.CITY_PLACES): Шевченківський is a
# district of Київ, Львів, Харків, Запоріжжя and Чернівці; without one city filtered, each is
# grouped with its city, in the form a filter takes back (understanding.PLACE_WITH_CITY).


def _group_value(group_by: str, vocab: vocabulary.Vocabulary, *, one_city: bool = True) -> Any:
    """The column to group by; an enum column in its documented form, so that 'daily' and
    'rent_short' are one group (spelled as in `vocab`); the property type by its slug; a
    district or station with its city ("Шевченківський (Київ)") unless `one_city`."""
    if group_by == "property_type":
        return F("property_type__slug")
    if group_by in CITY_PLACES and not one_city:
        with_city = Concat(
            F(group_by), Value(" ("), F("city"), Value(")"), output_field=CharField()
        )
        return Case(
            When(**{f"{group_by}__isnull": True}, then=Value(None)),
            When(city__isnull=True, then=F(group_by)),
            default=with_city,
            output_field=CharField(),
        )
    if group_by not in vocabulary.ENUM_CHOICES:
        return F(group_by)
    whens = []
    for value in vocabulary.documented(group_by):
        spellings = [raw for raw in vocab.spellings(group_by, value) if raw != value]
        if spellings:
            whens.append(When(**{f"{group_by}__in": spellings}, then=Value(value)))
    if not whens:
        return F(group_by)
    return Case(*whens, default=F(group_by), output_field=CharField())


class Percentile(Aggregate):
    """The continuous percentile `fraction` (0 to 1) of the expression."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: Any, *, fraction: float, **extra: Any) -> None:
        super().__init__(expression, fraction=float(fraction), **extra)


class Median(Percentile):
    def __init__(self, expression: Any, **extra: Any) -> None:
        super().__init__(expression, fraction=0.5, **extra)


def median_price_per_m2() -> Median:
    """The median of the converted price `p` over the total area, of the rows with both (an
    area of zero or less has no price per m²): stats, trends and market context alike."""
    return Median(F("p") / F("total_area"), filter=Q(total_area__gt=0, p__isnull=False))


def once_per_row(priced: Any, *keys: str) -> Any:
    """The rows of `priced` (filtered, with the converted price `p`) as a CTE that the
    figures read `p` from, so that each row's price is converted once, not once per figure
    (nine times; at 1 000 000 listings 0.97 s of stats by city, 0.49 s this way).

    PostgreSQL folds a plain CTE back into the query: grouped, its ORDER BY on the `keys`
    stops that (a subquery with a sort is never pulled up) and hands the rows over in the
    groups' order; a single group is MATERIALIZED instead (0.64 s against 0.73 s sorted).
    """
    columns = priced.values(*keys, "price", "currency", "total_area", "p").order_by(*keys)
    cte = CTE(columns, name="priced", materialized=not keys)
    return with_cte(cte, select=cte.queryset())


_STATS = Statements()


# The figures of listing_stats in a currency (Money.scaled).
MONEY_FIGURES = ("min_price", "median_price", "max_price", "avg_price", "median_price_per_m2")


# Groupings whose groups are priced in currencies of their own: sales in USD, long rents in
# UAH. Each such group's figures come in its own currency when none is asked; the groups of
# any other grouping (districts, rooms) are compared, so they share one.
OWN_CURRENCY_GROUPINGS = frozenset({"deal_type"})


@dataclass(frozen=True)
class InCurrency:
    """Figures read in the base currency, given in `code`: times `factor`, to the cent."""

    code: str
    factor: float = 1.0

    def scaled(self, value: Any) -> float | None:
        return None if value is None else round(float(value) * self.factor, 2)


class Money:
    """Price figures in the currency asked, or by default in the one most of the rows are
    priced in (a long rent in Львів in UAH, a flat for sale in Київ in USD).

    The statement reads them once, in a base currency, with how many rows each currency
    prices (`counts`); the figures are linear in the rate (a median in UAH is the median in
    USD times the UAH rate), so `chosen` gives them in the right currency from the counts,
    without a second statement to find it first (15-55 ms at 100 000 listings).
    """

    def __init__(
        self,
        asked: str | None,
        parsed: Filters,
        vocab: vocabulary.Vocabulary,
        rates: Mapping[str, float],
    ) -> None:
        # the caller's currency, else the one the price filter was given in
        self.asked = asked or (parsed.currency if "currency" in parsed.model_fields_set else None)
        self.vocab, self.rates = vocab, rates
        self.base = (
            DEFAULT_FIGURES_CURRENCY if DEFAULT_FIGURES_CURRENCY in rates else next(iter(rates))
        )

    def price(self) -> Any:
        """The rows' price in the base currency: the figures' `p`."""
        return price_in(self.base, self.rates, self.vocab)

    def counts(self) -> dict[str, Any]:
        """Per currency the rates know, how many rows have a price `p` in it."""
        if self.asked:
            return {}
        return {
            f"priced_in_{i}": Count(Case(When(in_currency(code, self.vocab), then=F("p"))))
            for i, code in enumerate(self.rates)
        }

    def chosen(self, rows: list[dict[str, Any]], default: InCurrency | None = None) -> InCurrency:
        """The currency asked, or the one most `rows` (with their `counts`) are priced in; a
        tie goes to the documented order (USD, EUR, UAH); with no priced row, `default`, else
        the base currency."""
        if self.asked:
            return self._in(self.asked)
        counts = {
            code: sum(row[f"priced_in_{i}"] for row in rows) for i, code in enumerate(self.rates)
        }
        known = {code: i for i, code in enumerate(CURRENCIES)}
        most = min(counts, key=lambda c: (-counts[c], known.get(c, len(known)), c), default=None)
        if most is not None and counts[most]:
            return self._in(most)
        return default or self._in(self.base)

    def of_group(
        self, group_by: str | None, group_rows: list[dict[str, Any]], whole: InCurrency
    ) -> InCurrency:
        """A group's currency: the whole's (`whole`), or with `group_by` in
        OWN_CURRENCY_GROUPINGS and none asked, the one the group's rows are priced in."""
        if self.asked or group_by not in OWN_CURRENCY_GROUPINGS:
            return whole
        return self.chosen(group_rows, whole)

    def _in(self, code: str) -> InCurrency:
        return InCurrency(code, self.rates[code] / self.rates[self.base])


@checked
def listing_stats(
    *,
    filters: RawFilters = None,
    group_by: GroupBy = None,
    currency: StatsCurrency | None = None,
) -> StatsResult:
    """Counts and price figures (min, median, max, average, median per m²) in `currency`,
    by default the one most of the matching listings are priced in (Money)."""
    parsed = _resolved(filters)
    vocab, rates = live_vocabulary(), _rates()
    named = vocabulary.currency_code(currency, vocab.aliases) if currency is not None else None
    if currency is not None and not named:
        raise InvalidArgument(CURRENCY_UNKNOWN.format(allowed=", ".join(rates)))
    money = Money(named, parsed, vocab, rates)
    given = filter_values(parsed, rates)  # the filters' values: placeholders (filterslots)

    def priced(values: tuple[Any, ...] = given.values) -> Any:
        return given.queryset(values, rates, vocab).annotate(p=money.price())

    def figures(*values: Any) -> Any:
        # Counted as COUNT(*) (or a column the filter makes non-NULL), never COUNT(id): the
        # market index holds no id, and with one the figures could not be read from it alone.
        aggregates = {
            "count": Count("*"),
            "priced_count": Count("p"),
            "prices_left_out": Count("price", filter=Q(price__isnull=False, p__isnull=True)),
            "min_price": Min("p"),
            "median_price": Median("p"),
            "max_price": Max("p"),
            "avg_price": Avg("p"),
            "median_price_per_m2": median_price_per_m2(),
            **money.counts(),
        }
        if group_by is None:
            return once_per_row(priced(values)).summary(**aggregates)
        one_city = parsed.city is not None
        grouped = priced(values).annotate(
            group_value=_group_value(group_by, vocab, one_city=one_city)
        )
        return (
            once_per_row(grouped, "group_value")
            .values("group_value")
            .annotate(**aggregates)
            .order_by("-count", "group_value")[: MAX_STATS_GROUPS + 1]
        )

    # Compiled once per shape: the filters, the grouping, whether a currency was asked
    # (else the counts per currency), and the vocabulary and rates it is built with (kept
    # alive with the statement, which names them by id()).
    shape = Shape(
        ("stats", given.key, group_by, bool(money.asked), vocab.statement_key, id(rates)),
        figures,
        (vocab, rates),
    )
    truncated = False
    with _database():
        rows = _STATS.dicts(shape, given.slots, LISTINGS)
        whole = money.chosen(rows)
        if group_by is None:
            total = rows[0]["count"]
        else:
            truncated = len(rows) > MAX_STATS_GROUPS
            rows = rows[:MAX_STATS_GROUPS]
            total = priced().count() if truncated else sum(row["count"] for row in rows)
    groups = [
        StatsRow(
            group=row.get("group_value") if group_by else None,
            count=row["count"],
            priced_count=row["priced_count"],
            prices_left_out=row["prices_left_out"],
            currency=(money_in := money.of_group(group_by, [row], whole)).code,
            **{key: money_in.scaled(row[key]) for key in MONEY_FIGURES},
        )
        for row in rows
    ]
    warnings = []
    if parsed.deal_type is None and group_by != "deal_type":
        warnings.append(MIXED_DEALS_WARNING)
    left_out = sum(row.prices_left_out for row in groups)
    if left_out:
        warnings.append(PRICES_LEFT_OUT_WARNING.format(count=left_out))
    _timing().rows = len(groups)
    return StatsResult(
        currency=whole.code,
        group_by=group_by,
        filters=parsed.active(),
        total=total,
        groups=groups,
        groups_truncated=truncated,
        warnings=warnings,
    )
