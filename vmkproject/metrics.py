"""Prometheus metrics (prometheus-client), served at /metrics in the text format.

Labels are low-cardinality only: MCP method, tool name, error code, cache outcome. With
several uvicorn workers `manage.py serve` points PROMETHEUS_MULTIPROC_DIR (prometheus-client's
own variable) at an emptied directory before they start; each worker then writes its samples
there and a scrape of any worker adds them all up.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# The OpenTelemetry MCP conventions' buckets for mcp.server.operation.duration.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
PART_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

OPERATION_DURATION = Histogram(
    "mcp_server_operation_duration_seconds",
    "Time to handle one MCP request, by method, tool and error type ('' when it succeeded).",
    ["mcp_method_name", "gen_ai_tool_name", "error_type"],
    buckets=DURATION_BUCKETS,
)
EMBEDDING_DURATION = Histogram(
    "vmk_embedding_duration_seconds",
    "Time spent embedding the query of one call, by cache outcome.",
    ["cache"],
    buckets=PART_BUCKETS,
)
EMBEDDING_CACHE = Counter(
    "vmk_embedding_cache_requests_total", "Query embeddings asked for, by cache outcome.", ["cache"]
)
DB_DURATION = Histogram(
    "vmk_db_duration_seconds",
    "Time spent in the listings database during one call, by tool.",
    ["tool"],
    buckets=PART_BUCKETS,
)
ROWS_RETURNED = Counter("vmk_rows_returned_total", "Listings or rows returned, by tool.", ["tool"])
RESPONSE_BYTES = Counter(
    "vmk_response_bytes_total", "Bytes of tool result text returned to agents, by tool.", ["tool"]
)
POOL_CONNECTIONS = Gauge(
    "vmk_db_pool_connections",
    "Connections of the listings pool: 'size' open, 'in_use' lent to a call, 'waiting' requests.",
    ["state"],
    multiprocess_mode="livesum",
)
AUDIT_ROWS = Counter(
    "vmk_audit_rows_total",
    "Audit log records: 'written', 'dropped' (queue full) or 'failed' (write error).",
    ["outcome"],
)


def prepare_multiprocess(directory: Path) -> None:
    """Empty `directory` and have the worker processes started after this share it."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(directory)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def process_exited() -> None:
    """Drop this worker's live gauges (pool connections) from the shared directory."""
    if multiprocess_dir():
        multiprocess.mark_process_dead(os.getpid())


# Tool calls refresh the pool gauges at most this often (a scrape always does).
POOL_GAUGES_EVERY_SEC = 1.0
_gauges_at = -POOL_GAUGES_EVERY_SEC


def update_pool_gauges(*, now: bool = True) -> None:
    """Set the listings pool's gauges from its statistics; with now=False (after a tool
    call) only when POOL_GAUGES_EVERY_SEC have passed since the last time."""
    global _gauges_at
    moment = time.monotonic()
    if not now and moment - _gauges_at < POOL_GAUGES_EVERY_SEC:
        return
    _gauges_at = moment
    from vmkproject.db import open_listings_pool

    pool = open_listings_pool()
    if pool is None:
        return
    stats = pool.get_stats()
    size = stats.get("pool_size", 0)
    POOL_CONNECTIONS.labels("size").set(size)
    POOL_CONNECTIONS.labels("in_use").set(size - stats.get("pool_available", 0))
    POOL_CONNECTIONS.labels("waiting").set(stats.get("requests_waiting", 0))


def exposition() -> bytes:
    """Every metric in the Prometheus text format (summed over workers when there are several)."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest()
