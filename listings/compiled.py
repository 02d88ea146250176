"""Statements the ORM compiles once per shape, sent again with each call's values.

Building a queryset and compiling it to SQL costs more than the database spends on many of
our statements (bench_compile on a loaded machine: get_listing_by_id's 0.6 ms against 0.6 ms
of SQL; a semantic page 1.7 ms, a ranked full-text page 3.5 ms). A statement is compiled
once per *shape* — everything that decides its SQL text: which filters with which values,
the page size, the metric, the vocabulary and rates it was built with, the database — with
placeholders standing in for what changes from call to call (the query vector, the words of
a text query, an id), and each call sends that SQL with its own values through Django's
cursor (so the SQL comment, the statement count and the timings still see it). Rows come
back named as the ORM names them (`property_type__name` for a column of a related model,
an annotation by its name) and converted as Django's compiler would.

Only a statement that the ORM writes the same with two different stand-ins for each
placeholder, its parameters differing exactly where the stand-ins are (each at least once),
is compiled this way; any other is left to the ORM (`rows` returns None and the caller runs
its queryset; `objects` and `sql` run it themselves).

A statement may be sent with a `Settings` prefix (`set_config(…, true)` calls that must
hold while PostgreSQL plans it): both go as one query string, which PostgreSQL runs as one
implicit transaction, planning the statement after the prefix has run. That spares the
BEGIN and COMMIT round trips a transaction block costs (0.43 ms of a 2.9 ms vector page at
100 000 listings). A statement left to the ORM gets the same settings in a transaction.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import cachetools
from django.core.exceptions import EmptyResultSet
from django.db import connections, transaction
from django.db.models import QuerySet

from .runtime import database_identity

SENTINEL = -7_310_000_123
UNCOMPILABLE = object()
# Shapes kept per process (LRU): filter combinations an agent repeats, and the ones the
# admin and the benchmarks send. A statement is a few kilobytes of SQL.
MAX_SHAPES = 512


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Placeholder:
    """What a statement is built with in place of a value that changes: two stand-ins
    (`stand_ins`, the statement is built with each), how each shows among the compiled
    parameters (`params`), and how a call's value becomes its parameter (`to_param`: a
    query vector is sent as its text)."""

    stand_ins: tuple[Any, Any]
    params: tuple[Any, Any]
    to_param: Callable[[Any], Any] = _same


ID = Placeholder((SENTINEL, SENTINEL - 1), (SENTINEL, SENTINEL - 1))
# ids sent as one array (`id__any_of`)
IDS = Placeholder(([SENTINEL], [SENTINEL - 1]), ([SENTINEL], [SENTINEL - 1]))
# a second array of ids in the same statement
OTHER_IDS = Placeholder(([SENTINEL - 2], [SENTINEL - 3]), ([SENTINEL - 2], [SENTINEL - 3]))
_TEXTS = ("\x1fvmk-placeholder-text\x1f", "\x1fvmk-placeholder-words\x1f")
TEXT = Placeholder(_TEXTS, _TEXTS)


def typed_placeholder(kind: type, number: int) -> Placeholder:
    """Placeholder `number` for values of `kind` (its stand-ins differ from any other's)."""
    if kind is str:
        texts = (f"\x1fvmk-placeholder-{number}-a\x1f", f"\x1fvmk-placeholder-{number}-b\x1f")
        return Placeholder(texts, texts)
    if kind is int:
        # within smallint's range: the ORM writes no statement for a value its column cannot
        # hold (EmptyResultSet)
        ints = (-30_001 - 2 * number, -30_002 - 2 * number)
        return Placeholder(ints, ints)
    if kind is float:
        floats = (SENTINEL - 0.25 - 2 * number, SENTINEL - 1.25 - 2 * number)
        return Placeholder(floats, floats)
    decimals = (Decimal(f"-7310{number}.25"), Decimal(f"-7310{number}.75"))
    return Placeholder(decimals, decimals)


def text_placeholder(number: int) -> Placeholder:
    """Text placeholder `number`, for a statement with several texts (TEXT is the first's)."""
    return typed_placeholder(str, number)


def _kind(value: Any) -> type | None:
    if value is None:
        return None
    for kind in (str, int, float, Decimal):
        if isinstance(value, kind) and not isinstance(value, bool):
            return kind
    raise TypeError(f"no placeholder for a {type(value).__name__}")


def values_shape(
    key: Hashable,
    build: Callable[[dict[str, Any]], QuerySet[Any]],
    values: dict[str, Any],
    keep: tuple[Any, ...] = (),
) -> tuple[Shape, list[tuple[Placeholder, Any]]]:
    """A statement built from named values (`build(values)`), each a placeholder of its type
    (str, int, float or Decimal) but None, which is part of the shape (the ORM writes
    `= NULL` as `IS NULL`); `key` names the rest (see Shape, and `keep`). Unless the builder
    uses every value that is not None, the statement is left to the ORM."""
    names = tuple(values)
    kinds = tuple(_kind(value) for value in values.values())
    slots = [
        (typed_placeholder(kind, number), values[name])
        for number, (name, kind) in enumerate(zip(names, kinds, strict=True))
        if kind is not None
    ]
    given = [name for name, kind in zip(names, kinds, strict=True) if kind is not None]

    def built(*stand_ins: Any) -> QuerySet[Any]:
        return build({**dict.fromkeys(names), **dict(zip(given, stand_ins, strict=True))})

    return Shape((key, names, kinds), built, keep), slots


@dataclass(frozen=True)
class _Statement:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, int], ...]  # (parameter index, placeholder index)
    names: tuple[str, ...]
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]
    related_pks: tuple[tuple[str, str], ...]  # (select_related relation, its pk's column)
    keep: tuple[Any, ...]  # objects the key names by id(): alive as long as the statement


def _related_pks(compiler: Any) -> tuple[tuple[str, str], ...]:
    """Each select_related relation (one level) and the attname of its model's primary key."""
    info = compiler.klass_info or {}
    return tuple(
        (related["field"].name, related["model"]._meta.pk.attname)
        for related in info.get("related_klass_infos", [])
    )


def _column_names(compiler: Any) -> tuple[str, ...]:
    """The ORM's name of each selected column: the model's attname, `relation__attname` for
    a select_related model, the annotation's alias; a values() query's columns by the names
    its rows have (as Django's ValuesIterable names them)."""
    if compiler.klass_info is None:
        query = compiler.query
        found = tuple(query.selected or ())
        if not found:
            found = (*query.extra_select, *query.values_select, *query.annotation_select)
        return found if len(found) == len(compiler.select) else ("",)
    names: list[str] = [""] * len(compiler.select)

    def walk(info: dict[str, Any], prefix: str) -> None:
        for index in info["select_fields"]:
            names[index] = prefix + compiler.select[index][0].target.attname
        for related in info.get("related_klass_infos", []):
            walk(related, prefix + related["field"].name + "__")

    if compiler.klass_info:
        walk(compiler.klass_info, "")
    for alias, index in compiler.annotation_col_map.items():
        names[index] = alias
    return tuple(names)


def _is_stand_in(param: Any, stand_in: Any) -> bool:
    """Whether a compiled parameter is a stand-in itself: of its type (the backend may wrap
    an int, as psycopg's Int8) and equal to it. A float or an array that compares equal is
    not."""
    return isinstance(param, type(stand_in)) and bool(param == stand_in)


def compile_statement(
    build: Callable[..., QuerySet[Any]],
    placeholders: Sequence[Placeholder],
    using: str,
    keep: tuple[Any, ...] = (),
) -> Any:
    """`build`'s statement, compiled with each placeholder's first stand-in, as a reusable
    statement; or UNCOMPILABLE unless building it with the second stand-ins gives the same
    SQL whose parameters differ exactly where the stand-ins are. So a builder that writes a
    value into the SQL text, into a pattern, or through arithmetic is left to the ORM."""
    built = [build(*(p.stand_ins[n] for p in placeholders)) for n in (0, 1)]
    compilers = [qs.query.get_compiler(using=using) for qs in built]
    try:
        (sql, params), (other_sql, other_params) = (c.as_sql() for c in compilers)
    except EmptyResultSet:  # a condition nothing meets (`IN ()`): the ORM sends nothing
        return UNCOMPILABLE
    if sql != other_sql or len(params) != len(other_params):
        return UNCOMPILABLE
    slots: list[tuple[int, int]] = []
    for index, (first, second) in enumerate(zip(params, other_params, strict=True)):
        number = next(
            (
                number
                for number, p in enumerate(placeholders)
                if _is_stand_in(first, p.params[0]) and _is_stand_in(second, p.params[1])
            ),
            None,
        )
        if number is not None:
            slots.append((index, number))
        elif repr(first) != repr(second):
            return UNCOMPILABLE  # a value made from a stand-in, not the stand-in itself
    if {number for _, number in slots} != set(range(len(placeholders))):
        return UNCOMPILABLE
    compiler = compilers[0]
    names = _column_names(compiler)
    if "" in names or any(name.count("__") > 1 for name in names):
        return UNCOMPILABLE
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return _Statement(
        sql=sql,
        params=tuple(params),
        slots=tuple(slots),
        names=names,
        converters=tuple(
            (index, tuple(functions), expression)
            for index, (functions, expression) in converters.items()
        ),
        related_pks=_related_pks(compiler),
        keep=keep,
    )


def bound(statement: _Statement, slots: Sequence[tuple[Placeholder, Any]]) -> list[Any]:
    """The statement's parameters with each placeholder's value of this call."""
    values = [placeholder.to_param(value) for placeholder, value in slots]
    params = list(statement.params)
    for index, number in statement.slots:
        params[index] = values[number]
    return params


@dataclass(frozen=True)
class Settings:
    """Settings a statement is planned and run under, for its implicit transaction alone:
    `sql` is one SELECT of `set_config(name, value, true)` calls, `params` their values."""

    sql: str
    params: tuple[Any, ...] = ()

    def before(self, sql: str, params: Sequence[Any]) -> tuple[str, list[Any]]:
        """`sql` sent after these settings in one query string (read its rows after
        nextset())."""
        return f"{self.sql}; {sql}", [*self.params, *params]

    def joined(self, other: Settings) -> Settings:
        """These settings and `other`'s, in one SELECT."""
        calls = other.sql.removeprefix("SELECT ")
        return Settings(f"{self.sql}, {calls}", (*self.params, *other.params))

    @contextlib.contextmanager
    def held(self, using: str) -> Iterator[None]:
        """A transaction with these settings, for statements sent on their own in it (the
        ORM's queries, which cannot carry them in their query string)."""
        with transaction.atomic(using=using):
            with connections[using].cursor() as cursor:
                cursor.execute(self.sql, list(self.params))
            yield


def execute_fetch(
    sql: str, params: Sequence[Any], using: str, settings: Settings | None = None
) -> list[tuple[Any, ...]]:
    """The rows of `sql`, run after `settings` in the same query string when given."""
    with connections[using].cursor() as cursor:
        if settings is None:
            cursor.execute(sql, list(params))
        else:
            cursor.execute(*settings.before(sql, params))
            cursor.nextset()  # past the settings' own row
        return list(cursor.fetchall())


def fetch(
    statement: _Statement,
    slots: Sequence[tuple[Placeholder, Any]],
    using: str,
    settings: Settings | None = None,
) -> list[dict[str, Any]]:
    """The statement's rows with the slots' values, as dicts of the ORM's column names."""
    connection = connections[using]
    fetched = execute_fetch(statement.sql, bound(statement, slots), using, settings)
    names = statement.names
    if not statement.converters:  # ids and distances (hybrid reads 200 a call): as they came
        return [dict(zip(names, row, strict=True)) for row in fetched]
    found = []
    for row in fetched:
        row_values = list(row)
        for index, functions, expression in statement.converters:
            for convert in functions:
                row_values[index] = convert(row_values[index], expression, connection)
        found.append(dict(zip(names, row_values, strict=True)))
    return found


@dataclass(frozen=True)
class Shape:
    """A statement's shape: `key` names everything that decides its SQL text but the
    placeholders' values, `build(*stand_ins)` is its queryset, and `keep` holds objects the
    key names by id() (alive as long as the statement, so no other object takes that id)."""

    key: Hashable
    build: Callable[..., QuerySet[Any]]
    keep: tuple[Any, ...] = ()

    def built(self, slots: Sequence[tuple[Placeholder, Any]]) -> QuerySet[Any]:
        """The ORM's queryset for the slots' values (a statement left to the ORM)."""
        return self.build(*(value for _, value in slots))


class Statements:
    """Compiled statements by shape key (LRU, per process)."""

    def __init__(self, maxsize: int = MAX_SHAPES) -> None:
        self._cache: cachetools.LRUCache[Hashable, Any] = cachetools.LRUCache(maxsize)
        self._lock = threading.Lock()

    def statement(self, shape: Shape, placeholders: Sequence[Placeholder], using: str) -> Any:
        """The statement of `shape`, compiled the first time, or UNCOMPILABLE."""
        full_key = (database_identity(using), using, shape.key)
        with self._lock:
            found = self._cache.get(full_key)
        if found is None:
            found = compile_statement(shape.build, placeholders, using, shape.keep)
            with self._lock:
                self._cache[full_key] = found
        return found

    def _compiled(self, shape: Shape, slots: Sequence[tuple[Placeholder, Any]], using: str) -> Any:
        return self.statement(shape, [placeholder for placeholder, _ in slots], using)

    def rows(
        self, shape: Shape, slots: Sequence[tuple[Placeholder, Any]], using: str
    ) -> list[dict[str, Any]] | None:
        """The rows of `shape` with each slot's value, as dicts of the ORM's column names,
        or None when the statement is left to the ORM (the caller runs its queryset)."""
        statement = self._compiled(shape, slots, using)
        return None if statement is UNCOMPILABLE else fetch(statement, slots, using)

    def _built_under(
        self,
        shape: Shape,
        slots: Sequence[tuple[Placeholder, Any]],
        using: str,
        settings: Settings | None,
    ) -> list[Any]:
        """The ORM's rows of `shape`, under `settings` (in a transaction) when given."""
        if settings is None:
            return list(shape.built(slots))
        with settings.held(using):
            return list(shape.built(slots))

    def dicts(
        self, shape: Shape, slots: Sequence[tuple[Placeholder, Any]], using: str
    ) -> list[dict[str, Any]]:
        """The rows of a values() statement as dicts of its names: compiled once, or where it
        is left to the ORM, the dicts the ORM's queryset gives."""
        found = self.rows(shape, slots, using)
        return found if found is not None else list(shape.built(slots))

    def objects(
        self,
        shape: Shape,
        slots: Sequence[tuple[Placeholder, Any]],
        using: str,
        settings: Settings | None = None,
    ) -> list[Any]:
        """The rows of `shape` read as the ORM's instances would be (Row); where the
        statement is left to the ORM, its instances. With `settings`, run under them."""
        statement = self._compiled(shape, slots, using)
        if statement is UNCOMPILABLE:  # a values() queryset's dicts read as Rows too
            built = self._built_under(shape, slots, using, settings)
            return [Row(row) if isinstance(row, dict) else row for row in built]
        return read_rows(fetch(statement, slots, using, settings), dict(statement.related_pks))

    def sql(
        self, shape: Shape, slots: Sequence[tuple[Placeholder, Any]], using: str
    ) -> tuple[str, list[Any]]:
        """The SQL and parameters of `shape` with the slots' values, for a caller that wraps
        the statement in its own (compiled once, or by the ORM when left to it)."""
        statement = self._compiled(shape, slots, using)
        if statement is UNCOMPILABLE:
            sql, params = shape.built(slots).query.get_compiler(using=using).as_sql()
            return sql, list(params)
        return statement.sql, bound(statement, slots)

    def plan(
        self,
        shape: Shape,
        slots: Sequence[tuple[Placeholder, Any]],
        using: str,
        settings: Settings | None = None,
    ) -> dict[str, Any]:
        """PostgreSQL's plan (EXPLAIN, FORMAT JSON: its top node) for `shape` with the
        slots' values, under `settings` when given: planned, not run."""
        sql, params = self.sql(shape, slots, using)
        found = execute_fetch("EXPLAIN (FORMAT JSON) " + sql, params, using, settings)[0][0]
        return dict((json.loads(found) if isinstance(found, str) else found)[0]["Plan"])

    def estimated_rows(
        self, shape: Shape, slots: Sequence[tuple[Placeholder, Any]], using: str
    ) -> int:
        """PostgreSQL's estimate of the rows of `shape`'s queryset (runtime.estimated_count's
        EXPLAIN, of its primary keys), its statement compiled once per shape: estimated_count
        had the ORM build and compile it each call."""

        def keys(*stand_ins: Any) -> QuerySet[Any]:
            return shape.build(*stand_ins).order_by().values("pk")

        counted = Shape(("estimated_rows", shape.key), keys, shape.keep)
        return int(self.plan(counted, slots, using)["Plan Rows"])

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


class CompiledQuery:
    """One fixed-shape query whose one parameter changes: `build(value)` is the queryset;
    `rows(value, using)` its rows from SQL compiled once per alias."""

    def __init__(self, build: Callable[[Any], QuerySet[Any]]) -> None:
        self.build = build
        self._shape = Shape(None, build)
        self._statements = Statements(maxsize=8)

    def statement(self, using: str) -> Any:
        return self._statements.statement(self._shape, [ID], using)

    def rows(self, value: Any, using: str) -> list[dict[str, Any]] | None:
        """The rows for `value`, or None when this query falls back to the ORM."""
        return self._statements.rows(self._shape, [(ID, value)], using)


class Row:
    """A row of a compiled statement read as the ORM's instance would be (read_rows): its
    columns as attributes."""

    def __init__(self, attributes: dict[str, Any]) -> None:
        self.__dict__.update(attributes)

    def __getattr__(self, name: str) -> Any:
        # Only for names no column gave (getattr's default, type checkers): no such column.
        raise AttributeError(name)


def read_rows(rows: list[dict[str, Any]], related_pks: dict[str, str]) -> list[Row]:
    """Rows named as the ORM names columns, read as its instances: a select_related model's
    columns (`property_type__name`) become a nested Row, None where the join found no row
    (its primary key is NULL)."""
    if not rows:
        return []
    top: list[str] = []
    relations: dict[str, list[tuple[str, str]]] = {}
    for name in rows[0]:
        relation, _, column = name.partition("__")
        if column:
            relations.setdefault(relation, []).append((name, column))
        else:
            top.append(name)
    if not relations:  # each row's dict is its own (fetch made it): taken as it is
        return [Row(values) for values in rows]
    found = []
    for values in rows:
        attributes = {name: values[name] for name in top}
        for relation, columns in relations.items():
            nested = {column: values[name] for name, column in columns}
            present = nested.get(related_pks[relation]) is not None
            attributes[relation] = Row(nested) if present else None
        found.append(Row(attributes))
    return found
