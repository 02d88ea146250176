"""Run a synchronous search call for an MCP request, the way Django runs a view.

Each call runs on a thread of a persistent bounded pool (mcpserver.callpool, so concurrent
agents do not queue on one thread nor start a thread per call) with Django's per-request
connection handling (so the pooled connection goes back to the pool when the call ends).
One log line per call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from django.db import close_old_connections

from listings import contacts, statements
from listings.errors import DatabaseUnavailable, SearchError
from listings.search import Timings, collect_timings
from vmkproject import metrics, replicas, sqlcomment

from . import callpool, quotas
from .callers import Caller, anonymous, current_caller

logger = logging.getLogger("vmk.mcp")

T = TypeVar("T")

# Called on the event loop with a finished call's record; the audit log plugs in here. An
# observer may return an awaitable (the audit row being written): the answer leaves once it
# is done.
call_observers: list[Callable[[dict[str, Any]], Awaitable[None] | None]] = []
# Called on the call's pool thread with its record as the search ends, before the answer
# goes back to the event loop (the audit log writes the row there when answers wait for it).
# The record the event loop's observers get then has RECORDED_BY "thread".
thread_observers: list[Callable[[dict[str, Any]], None]] = []
# Which side filled the record in: the pool thread, or the event loop (no thread observers, or
# a call cancelled while its thread ran: the first side to claim it).
RECORDED_BY = "recorded_by"

# The name of the token or agent key the current /mcp request came with (set by
# mcpserver.http.AuthenticatedMCP; None without authentication).
current_agent: ContextVar[str | None] = ContextVar("current_agent", default=None)


def _run(
    fn: Callable[..., T],
    kwargs: dict[str, Any],
    timings: Timings,
    caller: Caller | None,
    record: dict[str, Any],
) -> T:
    close_old_connections()
    count = statements.StatementCount()
    try:
        # In-process calls (the warm-up) have no caller and count against no quota.
        if caller is not None:
            quotas.consume(caller)
        with collect_timings(timings), statements.counting(count):
            result = replicas.call_with_failover(fn, kwargs, unavailable=DatabaseUnavailable)
        # The one place on the MCP output path where contacts are masked.
        return contacts.redact(result, show_contacts=(caller or anonymous()).sees_contacts)
    except SearchError as exc:
        record["error_code"] = exc.code
        raise
    except Exception:
        record["error_code"] = "internal_error"
        raise
    finally:
        timings.extra.update(statements=count.statements, sql_ms=count.sql_ms)
        close_old_connections()
        if thread_observers:
            _observe_in_thread(record, timings)


def _observe_in_thread(record: dict[str, Any], timings: Timings) -> None:
    if record.setdefault(RECORDED_BY, "thread") != "thread":
        return
    record.update(latency_ms=(time.perf_counter() - record["started"]) * 1000, rows=timings.rows)
    started = time.perf_counter()
    for observer in thread_observers:
        try:
            observer(record)
        except Exception:
            logger.exception("call observer failed")
    # The log line's audit_ms: the audit row written before the answer leaves.
    timings.extra["audit_ms"] = (time.perf_counter() - started) * 1000


async def run_search(tool: str, fn: Callable[..., T], /, **kwargs: Any) -> T:
    started = time.perf_counter()
    code = ""
    timings = Timings()
    agent = current_agent.get()
    caller = current_caller.get()
    # What the observers get; filled in on the pool thread for thread_observers.
    record: dict[str, Any] = {
        "tool": tool,
        "arguments": kwargs,
        "agent": agent,
        "started": started,
        "error_code": "",
    }
    try:
        # Statements of this call name the tool and the agent in a SQL comment.
        with sqlcomment.tagged(tool=tool, agent=agent):
            return await callpool.run(_run, fn, kwargs, timings, caller, record)
    except SearchError as exc:
        code = exc.code
        raise
    except Exception:
        code = "internal_error"
        raise
    finally:
        elapsed = (time.perf_counter() - started) * 1000
        sent = int(timings.extra.get("statements", 0))
        sql_ms = float(timings.extra.get("sql_ms", 0.0))
        audit_ms = float(timings.extra.get("audit_ms", 0.0))
        fields = {
            "tool": tool,
            "ms": round(elapsed, 1),
            "embedding_ms": round(timings.embedding_ms, 1),
            "db_ms": round(timings.db_ms, 1),
            "sql_ms": round(sql_ms, 2),
            "statements": sent,
            "rows": timings.rows,
            "audit_ms": round(audit_ms, 2),
            "code": code or "ok",
        }
        # The same fields as separate keys for LOG_FORMAT=json. sql_ms is the time inside
        # the driver's execute of `statements` statements; ms above it is this server's own,
        # audit_ms of it the audit row written on the call's thread (AUDIT_WAIT_SEC).
        logger.info(
            "tool=%s ms=%.1f embedding_ms=%.1f db_ms=%.1f sql_ms=%.2f statements=%d rows=%d "
            "audit_ms=%.2f code=%s",
            tool,
            elapsed,
            timings.embedding_ms,
            timings.db_ms,
            sql_ms,
            sent,
            timings.rows,
            audit_ms,
            code or "ok",
            extra=fields,
        )
        _count(tool, timings)
        if record.setdefault(RECORDED_BY, "loop") == "loop":
            record.update(latency_ms=elapsed, rows=timings.rows, error_code=code)
        waiting = []
        for observer in call_observers:
            try:
                outcome = observer(record)
            except Exception:
                logger.exception("call observer failed")
                continue
            if outcome is not None:
                waiting.append(outcome)
        for outcome in waiting:
            await outcome


def _count(tool: str, timings: Timings) -> None:
    metrics.DB_DURATION.labels(tool).observe(timings.db_ms / 1000)
    metrics.ROWS_RETURNED.labels(tool).inc(timings.rows)
    if timings.embedding_cache_hit is not None:
        cache = "hit" if timings.embedding_cache_hit else "miss"
        metrics.EMBEDDING_CACHE.labels(cache).inc()
        metrics.EMBEDDING_DURATION.labels(cache).observe(timings.embedding_ms / 1000)
    metrics.update_pool_gauges(now=False)
