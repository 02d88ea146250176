"""Traces (in-memory exporter), SQL comments in pg_stat_activity, /metrics, JSON logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette

from bench.localserver import free_port
from mcpserver import audit
from mcpserver.http import mcp_lifespan, mcp_routes
from vmkproject import sqlcomment, telemetry

pytestmark = pytest.mark.anyio

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


def rpc(name: str, arguments: dict, meta: dict | None = None, request_id: int = 1) -> dict:
    params: dict = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


# --- traces, in process -------------------------------------------------------------------


@pytest.fixture(scope="module")
def exporter():
    spans = InMemorySpanExporter()
    assert telemetry.setup([spans], simple=True, instrument_django=False)
    yield spans
    # Later tests run untraced again (the provider itself stays: it is set once per process).
    telemetry.enabled = False


@pytest.fixture
async def app_client(exporter, listings_access):
    from mcpserver import http
    from mcpserver.server import mcp

    telemetry.enabled = True
    exporter.clear()
    # A session manager runs once: each test gets a new one.
    mcp._lowlevel_server._session_manager = None
    http._app_built = False
    app = Starlette(routes=mcp_routes())
    async with mcp_lifespan():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:3000", headers=HEADERS
        ) as client:
            yield client


def by_name(exporter, prefix: str) -> list:
    return [span for span in exporter.get_finished_spans() if span.name.startswith(prefix)]


def children_of(exporter, parent) -> list:
    return [
        span
        for span in exporter.get_finished_spans()
        if span.parent is not None and span.parent.span_id == parent.context.span_id
    ]


async def test_a_tool_call_is_one_server_span_with_mcp_attributes_and_child_spans(
    app_client, exporter
):
    query = {"query": "затишна квартира біля парку телеметрія", "limit": 3}
    first = await app_client.post("/mcp", json=rpc("search_similar_listings", query))
    assert first.status_code == 200 and not first.json()["result"].get("isError")
    second = await app_client.post("/mcp", json=rpc("search_similar_listings", query, request_id=2))
    assert second.status_code == 200

    servers = by_name(exporter, "tools/call search_similar_listings")
    assert len(servers) == 2  # one per call: the SDK's span, not a second one of ours
    server = servers[0]
    assert server.kind == trace.SpanKind.SERVER
    assert server.attributes["mcp.method.name"] == "tools/call"
    assert server.attributes["gen_ai.tool.name"] == "search_similar_listings"
    assert server.attributes["gen_ai.operation.name"] == "execute_tool"
    assert server.attributes["jsonrpc.request.id"] == "1"
    assert "error.type" not in server.attributes

    children = children_of(exporter, server)
    embeddings = [span for span in children if span.name.startswith("embeddings ")]
    statements = [span for span in children if span.attributes.get("db.system.name")]
    assert len(embeddings) == 1
    assert embeddings[0].attributes["vmk.embedding.dimension"] == settings.EMBEDDING_DIM
    assert embeddings[0].attributes["vmk.embedding.cache_hit"] is False
    assert statements, "each database statement has its span"
    # Values travel as parameters: a statement's text holds placeholders, or none at all.
    operations = {"SELECT", "EXPLAIN"}
    assert all(
        "%s" in s.attributes["db.query.text"] or s.name.split()[0] in operations for s in statements
    )
    assert not any("телеметрія" in s.attributes["db.query.text"] for s in statements)

    again = [s for s in children_of(exporter, servers[1]) if s.name.startswith("embeddings ")]
    assert again[0].attributes["vmk.embedding.cache_hit"] is True


async def test_a_failing_call_has_an_error_type(app_client, exporter):
    response = await app_client.post("/mcp", json=rpc("get_listing_by_id", {"listing_id": 10**12}))
    result = response.json()["result"]
    assert result["isError"] is True
    (server,) = by_name(exporter, "tools/call get_listing_by_id")
    assert server.attributes["error.type"] == "tool_error"
    assert server.status.status_code == trace.StatusCode.ERROR


async def test_the_traceparent_in_meta_becomes_the_parent(app_client, exporter):
    await app_client.post(
        "/mcp", json=rpc("describe_schema", {}, meta={"traceparent": TRACEPARENT})
    )
    (server,) = by_name(exporter, "tools/call describe_schema")
    assert format(server.context.trace_id, "032x") == TRACE_ID
    assert format(server.parent.span_id, "016x") == PARENT_ID


async def test_the_traceparent_http_header_becomes_the_parent_without_meta(app_client, exporter):
    await app_client.post(
        "/mcp", json=rpc("describe_schema", {}), headers={"traceparent": TRACEPARENT}
    )
    (server,) = by_name(exporter, "tools/call describe_schema")
    assert format(server.context.trace_id, "032x") == TRACE_ID
    assert format(server.parent.span_id, "016x") == PARENT_ID


def test_queuing_a_call_for_the_audit_log_is_a_child_span(exporter):
    telemetry.enabled = True
    exporter.clear()
    log = audit.AuditLog(10)
    with telemetry.tracer.start_as_current_span("call") as parent:
        log.observe({"tool": "hybrid_search", "arguments": {}, "rows": 1, "latency_ms": 1.0})
    (enqueue,) = by_name(exporter, "audit.enqueue")
    assert enqueue.parent.span_id == parent.get_span_context().span_id
    assert log.queue.qsize() == 1


# --- SQL comments -------------------------------------------------------------------------


def test_a_comment_is_sorted_encoded_and_carries_the_traceparent(exporter):
    telemetry.enabled = True
    with (
        telemetry.tracer.start_as_current_span("call") as current,
        sqlcomment.tagged(tool="hybrid_search", agent="o'neil */ DROP TABLE x; --"),
    ):
        text = sqlcomment.comment()
        ids = current.get_span_context()
        # With parameters the driver would read %2 as a placeholder.
        assert sqlcomment._commented("SELECT %s", [1]).startswith("/*agent='o%%27neil")
        assert sqlcomment._commented("SELECT 1", None).startswith("/*agent='o%27neil")
    parent = f"00-{ids.trace_id:032x}-{ids.span_id:016x}-{int(ids.trace_flags):02x}"
    assert text == (
        "/*agent='o%27neil%20%2A%2F%20DROP%20TABLE%20x%3B%20--',"
        f"tool='hybrid_search',traceparent='{parent}'*/ "
    )
    telemetry.enabled = False
    with sqlcomment.tagged(tool="hybrid_search", agent=None):
        assert sqlcomment.comment() == "/*tool='hybrid_search'*/ "
    assert sqlcomment.comment() == ""


def rpc_call(url: str, token: str | None, payload: dict) -> dict:
    headers = dict(HEADERS)
    if token:
        headers["authorization"] = f"Bearer {token}"
    response = httpx.post(url, json=payload, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_statement_names_its_tool_and_agent_in_pg_stat_activity(mcp_server_with_tokens):
    """A lock held by another session keeps the call's statement running; its text, as
    pg_stat_activity shows it, starts with the comment."""
    if not settings.EMBEDDED_DB:
        pytest.skip("needs the embedded server's superuser to hold a lock")
    from demo import embedded as embedded_db

    server = embedded_db.configured_server()
    application = f"vmk-data-mcp:{mcp_server_with_tokens.process.pid}"
    found: list[str] = []
    with server.connect(settings.EMBEDDED_DB_NAME) as conn:
        with conn.transaction():
            conn.execute("LOCK TABLE property_listings IN ACCESS EXCLUSIVE MODE")
            result: dict = {}
            call = threading.Thread(
                target=lambda: result.update(
                    rpc_call(
                        mcp_server_with_tokens.mcp_url,
                        "s3cret-token",
                        rpc("search_by_metadata", {"query": "балкон", "limit": 2}),
                    )
                )
            )
            call.start()
            deadline = time.monotonic() + 10
            while not found and time.monotonic() < deadline:
                # Inside a transaction the statistics are a snapshot unless cleared.
                conn.execute("SELECT pg_stat_clear_snapshot()")
                found = [
                    row[0]
                    for row in conn.execute(
                        "SELECT query FROM pg_stat_activity WHERE application_name = %s "
                        "AND state = 'active' AND wait_event_type = 'Lock'",
                        [application],
                    ).fetchall()
                ]
                time.sleep(0.05)
        call.join(30)
    assert found, "the call's statement was not seen waiting"
    assert found[0].startswith("/*agent='token-1',tool='search_by_metadata'*/ ")
    assert result["result"].get("isError") is not True


# --- metrics ------------------------------------------------------------------------------


def samples(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def test_metrics_move_after_calls(mcp_server):
    before = httpx.get(f"{mcp_server.url}/metrics").text
    rpc_call(mcp_server.mcp_url, None, rpc("get_listing_by_id", {"listing_id": 1}))
    rpc_call(mcp_server.mcp_url, None, rpc("get_listing_by_id", {"listing_id": 10**12}))
    response = httpx.get(f"{mcp_server.url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    after = response.text
    count = "mcp_server_operation_duration_seconds_count"
    for error in ("", "not_found"):
        labels = {"gen_ai_tool_name": "get_listing_by_id", "error_type": error}
        assert samples(after, count, **labels) == samples(before, count, **labels) + 1
    rows = "vmk_rows_returned_total"
    assert samples(after, rows, tool="get_listing_by_id") >= 1 + samples(
        before, rows, tool="get_listing_by_id"
    )
    assert samples(after, "vmk_response_bytes_total", tool="get_listing_by_id") > samples(
        before, "vmk_response_bytes_total", tool="get_listing_by_id"
    )
    assert samples(after, "vmk_db_pool_connections", state="size") >= 1
    assert "query" not in after.lower().split("# help")[0]


def test_metrics_need_a_token_when_mcp_does(mcp_server_with_tokens):
    url = f"{mcp_server_with_tokens.url}/metrics"
    assert httpx.get(url).status_code == 401
    ok = httpx.get(url, headers={"authorization": "Bearer s3cret-token"})
    assert ok.status_code == 200 and "mcp_server_operation_duration_seconds" in ok.text


async def test_loopback_only_metrics_refuse_other_clients(settings):
    from starlette.requests import Request

    from mcpserver.metrics_route import METRICS_FORBIDDEN, metrics_endpoint

    settings.METRICS_ACCESS = "loopback"

    def request(host: str) -> Request:
        return Request({"type": "http", "method": "GET", "headers": [], "client": (host, 5)})

    refused = await metrics_endpoint(request("10.1.2.3"))
    assert refused.status_code == 403 and json.loads(refused.body) == METRICS_FORBIDDEN
    assert (await metrics_endpoint(request("127.0.0.1"))).status_code == 200


# --- two workers, JSON logs and a real exporter -------------------------------------------


def test_two_workers_add_up_and_log_json_with_the_trace_id(listings_db, tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    env = {
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "INFO",
        "OTEL_TRACES_EXPORTER": "console",
        "PYTHONUNBUFFERED": "1",
    }

    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--workers", "2", "--port", str(port)],
            cwd=settings.BASE_DIR,
            env={**os.environ, **env},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        pids: set[str] = set()
        while time.monotonic() < deadline and len(pids) < 2:
            time.sleep(0.5)
            directory = Path(settings.METRICS_MULTIPROC_DIR)
            pids = {p.stem.rsplit("_", 1)[-1] for p in directory.glob("histogram_*.db")}
            assert process.poll() is None, log.read_text()[-3000:]
        assert len(pids) == 2, "each worker writes its own metrics file"
        # A worker listens once its start-up (which wrote that file) has finished.
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        calls = 12
        for n in range(calls):
            with httpx.Client() as client:  # a new connection each time, to either worker
                response = client.post(
                    f"{base}/mcp",
                    json=rpc("get_listing_by_id", {"listing_id": 1 + n}),
                    headers={**HEADERS, "traceparent": TRACEPARENT},
                    timeout=30,
                )
                assert response.status_code == 200
        count = "mcp_server_operation_duration_seconds_count"
        for _ in range(4):  # whichever worker answers the scrape, the totals are the same
            with httpx.Client() as client:
                text = client.get(f"{base}/metrics").text
            assert samples(text, count, gen_ai_tool_name="get_listing_by_id") == calls
    finally:
        process.terminate()
        process.wait(60)
    lines = [
        json.loads(line)
        for line in log.read_text().splitlines()
        if line.startswith('{"asctime"') and '"tool": "get_listing_by_id"' in line
    ]
    assert len(lines) == calls
    line = lines[0]
    assert {
        "tool",
        "ms",
        "embedding_ms",
        "db_ms",
        "sql_ms",
        "statements",
        "rows",
        "audit_ms",
        "code",
        "span_id",
    } <= set(line)
    assert line["trace_id"] == TRACE_ID and line["code"] == "ok" and line["rows"] == 1
    assert f'"trace_id": "0x{TRACE_ID}"' in log.read_text(), "the console exporter printed it"
