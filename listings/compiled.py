"""Statements the ORM compiles once: a fixed-shape query whose one parameter changes.

Building a queryset and compiling it to SQL costs more than the database spends on a
lookup by id (bench_compile: 1.2 ms for get_listing_by_id's statement on a loaded machine,
its SQL 0.6 ms). A CompiledQuery has the ORM write the statement once per database alias,
with a sentinel in place of the parameter, and then sends that SQL with each call's value
through Django's cursor (so the SQL comment, the statement count and the timings still see
it), converting the values as Django's compiler would and naming each column as the ORM
does (`property_type__name` for a column of a related model, an annotation by its name).

Only a statement whose parameter shows up exactly once in the compiled parameters, and
nowhere in the SQL text, is compiled this way; any other falls back to the ORM (`rows`
returns None and the caller runs its queryset).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.models import QuerySet

SENTINEL = -7_310_000_123
UNCOMPILABLE = object()


@dataclass(frozen=True)
class _Statement:
    sql: str
    params: tuple[Any, ...]
    slot: int
    names: tuple[str, ...]
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]


def _column_names(compiler: Any) -> tuple[str, ...]:
    """The ORM's name of each selected column: the model's attname, `relation__attname` for
    a select_related model, the annotation's alias."""
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


class CompiledQuery:
    """`build(value)` is the queryset; `rows(value, using)` its rows as dicts of the ORM's
    column names, from SQL compiled once per alias."""

    def __init__(self, build: Callable[[Any], QuerySet[Any]]) -> None:
        self.build = build
        self._statements: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _compile(self, using: str) -> Any:
        compiler = self.build(SENTINEL).query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        slots = [index for index, param in enumerate(params) if param == SENTINEL]
        names = _column_names(compiler)
        if len(slots) != 1 or str(SENTINEL) in sql or "" in names:
            return UNCOMPILABLE
        converters = compiler.get_converters([column for column, _, _ in compiler.select])
        return _Statement(
            sql=sql,
            params=tuple(params),
            slot=slots[0],
            names=names,
            converters=tuple(
                (index, tuple(functions), expression)
                for index, (functions, expression) in converters.items()
            ),
        )

    def statement(self, using: str) -> Any:
        found = self._statements.get(using)
        if found is None:
            with self._lock:
                found = self._statements.get(using)
                if found is None:
                    found = self._statements[using] = self._compile(using)
        return found

    def rows(self, value: Any, using: str) -> list[dict[str, Any]] | None:
        """The rows for `value`, or None when this query falls back to the ORM."""
        statement = self.statement(using)
        if statement is UNCOMPILABLE:
            return None
        params = list(statement.params)
        params[statement.slot] = value
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, params)
            fetched = cursor.fetchall()
        found = []
        for row in fetched:
            values = list(row)
            for index, functions, expression in statement.converters:
                for convert in functions:
                    values[index] = convert(values[index], expression, connection)
            found.append(dict(zip(statement.names, values, strict=True)))
        return found
