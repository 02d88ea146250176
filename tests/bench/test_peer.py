"""The Toolbox peer runs, as prepared statements, the statements our floor sends."""

from __future__ import annotations

import json

import psycopg
import pytest

from bench import floor as benchfloor
from bench import peer as benchpeer
from bench import workload as bench

pytestmark = pytest.mark.usefixtures("listings_access")


def test_placeholders_become_numbered_parameters_with_vectors_cast():
    sql = "SELECT 1 WHERE a = %s AND b ILIKE '%%x%%' AND e <=> %s < %s"
    assert (
        benchpeer._numbered(sql, ["string", "vector", "float"])
        == "SELECT 1 WHERE a = $1 AND b ILIKE '%x%' AND e <=> $2::vector < $3"
    )


def test_every_peer_statement_prepares_on_the_database_and_answers_like_the_floor():
    cases = bench.seeded_cases(7, 2)
    conn = bench.raw_connection()
    try:
        tools, plan = benchpeer.peer_tools(cases, conn, efs=40)
        assert {case.mode for case, _, _ in plan} == {c.mode for c in cases} - benchpeer.PEERLESS
        for index, tool in enumerate(tools.values()):
            conn.execute(f"PREPARE peer_{index} AS {tool.statement}")  # parses and types
        config = json.loads(benchpeer.tools_yaml(tools, conn))
        assert set(config["tools"]) == set(tools)
        assert (
            "hnsw.ef_search=40"
            in config["sources"][benchpeer.VECTOR_SOURCE + "_40"]["queryParams"]["options"]
        )
        assert {tool["source"] for tool in config["tools"].values()} == set(config["sources"])
        # A get call through the peer's statement returns the row the floor returns.
        case, tool, arguments = next(item for item in plan if item[0].mode == "get")
        rows = (
            psycopg.ClientCursor(conn)
            .execute(
                f"EXECUTE peer_{list(tools).index(tool.name)}({', '.join(['%s'] * len(arguments))})",
                list(arguments.values()),
            )
            .fetchall()
        )
        assert len(rows) == benchfloor.floors_of(case, 40)[0][1](conn) == 1
    finally:
        conn.close()


def test_the_bare_sdk_server_sends_the_answer_it_was_given(tmp_path):
    import asyncio

    from mcp import Client
    from mcp_types import CallToolResult, TextContent

    from bench.baresdk import TOOL, record
    from bench.localserver import free_port
    from tests.mcpserver.conftest import call_tool_over_http

    card = {"id": 7, "title": "Квартира біля метро", "price": 55000.0, "currency": "USD"}
    given = CallToolResult(
        content=[TextContent(type="text", text=json.dumps(card, ensure_ascii=False))],
        structured_content=card,
    )
    big = {"listings": [card] * 40}  # over MCP_GZIP_MIN_BYTES: compressed, as ours would be
    large = CallToolResult(
        content=[TextContent(type="text", text=json.dumps(big, ensure_ascii=False))],
        structured_content=big,
    )
    other = CallToolResult(content=[TextContent(type="text", text="{}")], structured_content={})
    bare = benchpeer.BareSdk([record(other), record(given), record(large)], tmp_path, free_port())

    async def call(key: int) -> CallToolResult:
        async with Client(bare.url) as client:
            return await client.call_tool(TOOL, {"key": key})

    def encoding(key: int) -> str | None:
        answer = call_tool_over_http(bare.url, TOOL, {"key": key}, encoding="gzip")
        return answer.headers.get("content-encoding")

    try:
        got = asyncio.run(call(1))
        got_large = asyncio.run(call(2))
        encodings = [encoding(1), encoding(2)]
    finally:
        bare.stop()
    assert got.structured_content == card
    assert [block.text for block in got.content] == [given.content[0].text]
    assert got_large.structured_content == big
    assert encodings == [None, "gzip"]
