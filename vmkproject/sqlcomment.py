"""SQL that names the call that sent it (the sqlcommenter format), and a span per statement.

Every statement on a listings connection starts with a comment such as
`/*agent='claude-desktop',tool='hybrid_search',traceparent='00-…-01'*/`: a slow query in
pg_stat_activity or the PostgreSQL log leads back to the tool (or admin view, or command)
and the agent key that sent it. Keys are sorted and values percent-encoded as sqlcommenter
specifies, so no name (agent keys are named by staff) can close the comment or inject SQL.

The comment goes first, not last as sqlcommenter's reference code puts it: pg_stat_activity
keeps only the first track_activity_query_size bytes (1 kB by default) of a statement, and a
vector search statement is longer than that. It holds only the caller's names unless tracing
is on, so a statement's text repeats across calls and psycopg's prepared statements still
apply; with tracing the traceparent makes each call's text unique.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote

from django.conf import settings

from vmkproject import telemetry

# The sorted `key='value'` pairs of the current call, already encoded.
_tags: ContextVar[tuple[str, ...]] = ContextVar("vmk_sql_tags", default=())


def _pair(key: str, value: str) -> str:
    return f"{quote(key, safe='')}='{quote(value, safe='')}'"


def encode(tags: dict[str, str | None]) -> tuple[str, ...]:
    return tuple(_pair(key, value) for key, value in sorted(tags.items()) if value)


@contextlib.contextmanager
def tagged(**tags: str | None) -> Iterator[None]:
    """Name the caller (tool=, agent=, view=, command=) in the statements sent inside."""
    token = _tags.set(encode(tags))
    try:
        yield
    finally:
        _tags.reset(token)


def set_tags(**tags: str | None) -> None:
    """Name the caller for the rest of this context (a management command's process)."""
    _tags.set(encode(tags))


def comment() -> str:
    """The comment for a statement sent now ('' when there is nothing to say)."""
    pairs = _tags.get()
    parent = telemetry.traceparent()
    if parent:
        pairs = tuple(sorted((*pairs, _pair("traceparent", parent))))
    return f"/*{','.join(pairs)}*/ " if pairs else ""


def _operation(sql: str) -> str:
    head = sql.lstrip().split(None, 1)
    return head[0].upper() if head else "SQL"


def execute_wrapper(dbname: str) -> Callable[..., Any]:
    """A Django execute wrapper that comments each statement and, with tracing, spans it."""

    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        if not telemetry.enabled:
            if settings.SQL_COMMENTS:
                sql = _commented(sql, params)
            return execute(sql, params, many, context)
        operation = _operation(sql)
        attributes = {
            "db.system.name": "postgresql",
            "db.namespace": dbname,
            "db.operation.name": operation,
            # The statement as Django wrote it: parameters are %s placeholders, not values.
            "db.query.text": sql[:4000],
        }
        with telemetry.span(f"{operation} {dbname}", attributes):
            if settings.SQL_COMMENTS:
                sql = _commented(sql, params)
            return execute(sql, params, many, context)

    return wrapper


def _commented(sql: str, params: Any) -> str:
    text = comment()
    if not text:
        return sql
    # With parameters the driver reads % as a placeholder: the encoded values carry %XX.
    return (text if params is None else text.replace("%", "%%")) + sql


class ViewTagMiddleware:
    """Names the admin view (its URL name) in the statements its request sends."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        token = _tags.set(())
        try:
            return self.get_response(request)
        finally:
            _tags.reset(token)

    def process_view(self, request: Any, view_func: Any, view_args: Any, view_kwargs: Any) -> None:
        match = getattr(request, "resolver_match", None)
        name = (match.view_name if match else "") or getattr(view_func, "__name__", "")
        _tags.set(encode({"view": name}))


# Management commands other than the servers are traced as one span each (manage.py).
SERVER_COMMANDS = {"serve", "runserver"}


@contextlib.contextmanager
def command(argv: list[str]) -> Iterator[None]:
    """Trace a management command as one span and name it in its SQL comments."""
    name = argv[1] if len(argv) > 1 else ""
    if not name or name.startswith("-") or name in SERVER_COMMANDS:
        yield
        return
    set_tags(command=name)
    telemetry.setup()
    try:
        with telemetry.span(f"manage.py {name}", {"vmk.command": name}):
            yield
    finally:
        telemetry.shutdown()
