"""The arguments every interface takes, typed once: the MCP tools' signatures, the search
functions (through `checked`), the admin forms and the commands' choices all use these.

A bad value is refused with the argument's own message (listings.errors) as a pydantic
error of type `invalid_argument`; `explain` turns the first error of a ValidationError
into that sentence. The allowed values are the Literals below and the models' TextChoices.
Values read from the database are never validated here: foreign data may hold anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, get_args

from django.conf import settings
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    TypeAdapter,
    ValidationError,
    WrapValidator,
    validate_call,
)
from pydantic_core import PydanticCustomError

from .errors import BINS_RANGE as _BINS_RANGE
from .errors import (
    CURRENCY_UNKNOWN,
    LIMIT_RANGE,
    LISTING_ID_INVALID,
    MIN_SIMILARITY_RANGE,
    OFFSET_RANGE,
    ONE_OF,
    QUERY_CONTROL_CHARS,
    QUERY_REQUIRED,
    QUERY_TOO_LONG,
    InvalidArgument,
)
from .filters import FILTER_NAMES, Filters, configured_currency, explain_filter_error
from .meant import close_names, quoted
from .models import Currency

_F = TypeVar("_F", bound=Callable[..., Any])

MAX_OFFSET = 10_000


def paging(
    *, offset: int, limit: int, total: int, total_exact: bool, rows: int
) -> tuple[bool, int | None]:
    """Whether a page of `rows` listings has more after it, and the offset that continues it
    (None at the end, or past MAX_OFFSET): the tools' has_more and next_offset, the admin's
    "next" link. With an estimated total, a full page is taken to have more."""
    has_more = offset + rows < total if total_exact else rows >= limit or offset + rows < total
    next_offset = offset + rows if has_more else None
    if next_offset is not None and next_offset > MAX_OFFSET:
        next_offset = None
    return has_more, next_offset


MAX_LISTING_ID = 2**63 - 1
MIN_BINS, MAX_BINS = 2, 100
INVALID = "invalid_argument"  # the pydantic error type of a refused argument

DistanceMetric = Literal["cosine", "l2", "inner_product"]
SortOrder = Literal["relevance", "price_asc", "price_desc", "date_desc", "area_desc"]
GroupByColumn = Literal[
    "city",
    "district",
    "metro_station",
    "rooms_count",
    "deal_type",
    "property_type",
    "building_type",
    "renovation_status",
]
Period = Literal["month", "quarter"]
Detail = Literal["brief", "card", "full"]
SearchMode = Literal["semantic", "text", "hybrid"]
if TYPE_CHECKING:
    CurrencyCode = str
else:
    # The documented currencies (the model's TextChoices) as a Literal: the schema's enum.
    CurrencyCode = Literal[tuple(Currency.values)]

DISTANCE_METRICS: tuple[str, ...] = get_args(DistanceMetric)
SORT_ORDERS: tuple[str, ...] = get_args(SortOrder)
GROUP_BY: tuple[str, ...] = get_args(GroupByColumn)
PERIODS: tuple[str, ...] = get_args(Period)
DETAILS: tuple[str, ...] = get_args(Detail)
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
CURRENCIES: tuple[str, ...] = tuple(Currency.values)


def one_of(name: str, allowed: tuple[str, ...]) -> str:
    return ONE_OF.format(name=name, allowed=", ".join(allowed))


METRIC_UNKNOWN = one_of("distance_metric", DISTANCE_METRICS)
SORT_UNKNOWN = one_of("sort_by", SORT_ORDERS)
GROUP_BY_UNKNOWN = one_of("group_by", GROUP_BY)
PERIOD_UNKNOWN = one_of("period", PERIODS)
BINS_RANGE = _BINS_RANGE.format(low=MIN_BINS, high=MAX_BINS)

MISSING_ARGUMENT = "Missing required argument '{name}'."
BAD_ARGUMENT = "Argument '{name}' is not valid: {problem}."
FILTERS_MESSAGE = "'filters' must be an object with these keys: {allowed}."


def refused(message: str | Callable[[], str], choices: tuple[str, ...] = ()) -> WrapValidator:
    """Whatever pydantic finds wrong with the value, the agent reads `message`; for a word
    close to one of `choices`, which it probably meant ("price": price_asc or price_desc)."""

    def validate(value: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            return handler(value)
        except ValidationError:
            text = message() if callable(message) else message
            meant = close_names(value, choices) if isinstance(value, str) else []
            if meant:
                text = f"{text.removesuffix('.')}; did you mean {quoted(meant)}?"
            raise PydanticCustomError(INVALID, text) from None

    return WrapValidator(validate)


def clean_query(query: str) -> str:
    """A query's whitespace folded; refused when empty, too long or with control characters."""
    if not query.strip():
        raise PydanticCustomError(INVALID, QUERY_REQUIRED)
    if len(query) > settings.MAX_QUERY_LENGTH:
        message = QUERY_TOO_LONG.format(length=len(query), limit=settings.MAX_QUERY_LENGTH)
        raise PydanticCustomError(INVALID, message)
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in query):
        raise PydanticCustomError(INVALID, QUERY_CONTROL_CHARS)
    return " ".join(query.split())


def _optional_query(query: str | None) -> str | None:
    return None if query is None or not query.strip() else clean_query(query)


def _currency_unknown() -> str:
    return CURRENCY_UNKNOWN.format(allowed=", ".join(settings.EXCHANGE_RATES))


def _with_rate(code: str) -> str:
    """A documented currency the deployment has an exchange rate for (EXCHANGE_RATES)."""
    if code not in settings.EXCHANGE_RATES:
        raise PydanticCustomError(INVALID, _currency_unknown())
    return code


Query = Annotated[
    str,
    Field(
        description="Ukrainian search text (translate first), e.g. "
        "'двокімнатна квартира біля метро з балконом'."
    ),
    refused(QUERY_REQUIRED),
    AfterValidator(clean_query),
]
OptionalQuery = Annotated[
    str | None,
    Field(description="Optional Ukrainian words to find (full text, any word form)."),
    refused(QUERY_REQUIRED),
    AfterValidator(_optional_query),
]
Limit = Annotated[
    int,
    Field(ge=1, le=settings.MAX_LIMIT, description="Results per page."),
    refused(LIMIT_RANGE.format(max_limit=settings.MAX_LIMIT)),
]
Offset = Annotated[
    int,
    Field(ge=0, le=MAX_OFFSET, description="Results to skip."),
    refused(OFFSET_RANGE.format(max_offset=MAX_OFFSET)),
]


def _bigint(listing_id: int) -> int:
    # Checked here, not published in the schema: every tool would carry a 19-digit maximum.
    if listing_id > MAX_LISTING_ID:
        raise PydanticCustomError(INVALID, LISTING_ID_INVALID)
    return listing_id


ListingId = Annotated[
    int,
    Field(ge=1, description="A listing's id from a search."),
    refused(LISTING_ID_INVALID),
    AfterValidator(_bigint),
]
MinSimilarity = Annotated[
    Annotated[float, Field(ge=-1.0, le=1.0), refused(MIN_SIMILARITY_RANGE)] | None,
    Field(description="Drop results with a lower similarity_score (1 − cosine distance)."),
]
Metric = Annotated[
    DistanceMetric,
    Field(description="Distance reported in `distance`; ranking is identical for all three."),
    refused(METRIC_UNKNOWN, DISTANCE_METRICS),
]
SortBy = Annotated[
    SortOrder,
    Field(description="Order: relevance (default with a query), price, newest, largest."),
    refused(SORT_UNKNOWN, SORT_ORDERS),
]
GroupBy = Annotated[
    Annotated[GroupByColumn, refused(GROUP_BY_UNKNOWN, GROUP_BY)] | None,
    Field(description="Group the figures by this column (none: one row)."),
]
TrendPeriod = Annotated[
    Period, Field(description="Bucket of publish_date."), refused(PERIOD_UNKNOWN, PERIODS)
]


def _spelled(value: Any) -> Any:
    """A currency as agents spell it ("usd", "грн", "$") as its code; anything else as it
    came, for the code's own check to refuse."""
    if not isinstance(value, str):
        return value
    return configured_currency(value) or value


# A currency code of the market tools (the schema lists the documented codes; their spellings
# are taken too, as listing_stats takes them: StatsCurrency).
_FigureCode = Annotated[
    CurrencyCode,
    refused(_currency_unknown),
    AfterValidator(_with_rate),
    BeforeValidator(_spelled),
]
# market_context's: a listing's price is best read in its own currency (900 UAH a day, not
# 21.69 USD), so that is the default.
ListingCurrency = Annotated[
    _FigureCode | None,
    Field(description="Currency of the figures; default: the listing's own."),
]
Bins = Annotated[
    int,
    Field(ge=MIN_BINS, le=MAX_BINS, description="Price bands of the distribution."),
    refused(BINS_RANGE),
]
# The figures of many listings: by default in the currency most of them are priced in (a
# long rent in UAH, a flat for sale in USD), as search.Money chooses it.
OWN_CURRENCY = "; default: the one most matches are priced in."
StatsCurrency = Annotated[
    str,
    Field(
        description="Currency of the figures: "
        + ", ".join(CURRENCIES[:-1])
        + f" or {CURRENCIES[-1]} (грн, $, € too)"
        + OWN_CURRENCY,
    ),
    refused(_currency_unknown),
]
ListingsCurrency = Annotated[
    _FigureCode | None, Field(description="Currency of the figures" + OWN_CURRENCY)
]
Interpret = Annotated[
    bool,
    Field(description="Read rooms, price, place... into filters (yours win; see `interpreted`)."),
]
CollapseDuplicates = Annotated[
    bool,
    Field(description="One card per property (duplicate_ids); false: all."),
]
FiltersArg = Annotated[
    Filters | None,
    Field(description="Optional filters, AND-ed; see describe_schema for allowed values."),
]
# What the search functions take as filters: parsed by listings.filters.parse_filters, whose
# messages name the filter (a dict from a command or the admin, or Filters from a tool).
RawFilters = Annotated[Filters | Mapping[str, Any] | None, SkipValidation]


def explain(exc: ValidationError) -> str:
    """One actionable sentence for the first problem in a call's arguments."""
    error = exc.errors()[0]
    location = [part for part in error.get("loc", ()) if not isinstance(part, int)]
    name = str(location[0]) if location else ""
    kind = error.get("type", "")
    if kind == INVALID:
        return str(error["msg"])
    if kind in {"missing", "missing_argument", "missing_keyword_only_argument"}:
        return MISSING_ARGUMENT.format(name=name)
    if name == "filters":
        # Pydantic names the union member ("Filters") before the field: drop it.
        inner = [str(part) for part in location[1:] if part != "Filters"]
        if kind in {"model_type", "dict_type", "model_attributes_type"} and not inner:
            return FILTERS_MESSAGE.format(allowed=", ".join(FILTER_NAMES))
        return explain_filter_error({**error, "loc": tuple(inner)})
    problem = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return BAD_ARGUMENT.format(name=name or "arguments", problem=problem[:1].lower() + problem[1:])


_QUERY: TypeAdapter[str] = TypeAdapter(Query)


def query_text(query: Any) -> str:
    """`query` as Query takes it (folded), for a caller outside a typed signature; raises
    InvalidArgument."""
    try:
        return _QUERY.validate_python(query, strict=True)
    except ValidationError as exc:
        raise InvalidArgument(explain(exc)) from None


# Strict: a command or the admin passing "5" or True for a number is a mistake, not a number.
_STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)


def checked(function: _F) -> _F:
    """`function` with its arguments validated by their types (strictly), a bad one raising
    InvalidArgument with that argument's message."""
    validated = validate_call(config=_STRICT)(function)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return validated(*args, **kwargs)
        except ValidationError as exc:
            if exc.title != function.__qualname__:
                raise  # a result model's, from inside the function: not the caller's mistake
            raise InvalidArgument(explain(exc)) from None

    return call  # type: ignore[return-value]
