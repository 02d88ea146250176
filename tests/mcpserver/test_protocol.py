"""Protocol answers at the HTTP layer (mcpserver.protocol.HttpFixes), and the size budget,
on the real app: the default stateless server and a stateful one with a small budget."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from mcp import Client
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCResponse,
)

from mcpserver import protocol, shaping

from .conftest import RunningServer, start_server, stop_server

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
).encode()
BUDGET_TOKENS = 1_500


@pytest.fixture(scope="module")
def stateful_server(listings_db, tmp_path_factory) -> Iterator[RunningServer]:
    server = start_server(
        tmp_path_factory.mktemp("server-stateful"),
        MCP_STATELESS_HTTP="false",
        MCP_MAX_RESULT_TOKENS=str(BUDGET_TOKENS),
    )
    yield server
    stop_server(server)


async def post(url: str, body: bytes, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(url, headers={**HEADERS, **headers}, content=body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', protocol.BATCH_NOT_SUPPORTED),
        (b"[]", protocol.BATCH_NOT_SUPPORTED),
        (b'{"x":1}', protocol.NOT_A_MESSAGE),
        (b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', protocol.NOT_A_MESSAGE),
        (b'"tools/list"', protocol.NOT_A_MESSAGE),
    ],
)
async def test_batches_and_non_messages_are_invalid_requests(mcp_server, body, message):
    response = await post(mcp_server.mcp_url, body)
    assert response.status_code == 400
    assert response.json()["error"] == {"code": -32600, "message": message}


async def test_malformed_json_stays_a_parse_error(mcp_server):
    response = await post(mcp_server.mcp_url, b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


@pytest.mark.parametrize("version", ["1999-01-01", "2026-13-01", "latest"])
async def test_an_unknown_protocol_version_header_lists_every_supported_one(mcp_server, version):
    response = await post(mcp_server.mcp_url, LIST, **{"MCP-Protocol-Version": version})
    assert response.status_code == 400
    error = response.json()["error"]
    assert response.json()["id"] == 1  # the request's id, echoed
    assert error["code"] == -32022
    assert error["data"]["requested"] == version
    # `supported` matches server/discover; the 2025 revisions are named beside it.
    assert error["data"]["supported"] == ["2026-07-28"]
    assert {"2025-06-18", "2025-11-25"} <= set(error["data"]["handshake_versions"])
    assert error["message"] == protocol.UNSUPPORTED_VERSION.format(version=version)
    assert "2025-11-25" in error["message"] and "2026-07-28" in error["message"]


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_stateless_get_and_delete_are_405(mcp_server, method):
    async with httpx.AsyncClient() as http:
        response = await http.request(
            method, mcp_server.mcp_url, headers={"Accept": "text/event-stream"}, timeout=5
        )
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


async def test_stateful_400s_hand_out_no_session_id(stateful_server):
    opened = await post(stateful_server.mcp_url, INITIALIZE)
    assert opened.status_code == 200 and opened.headers.get("mcp-session-id")
    for body in (b"{not json", b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'):
        refused = await post(stateful_server.mcp_url, body)  # no session: 400
        assert refused.status_code == 400
        assert "mcp-session-id" not in refused.headers


@pytest.mark.parametrize("mode", MODES)
async def test_stateful_server_serves_both_modes(stateful_server, mode):
    async with Client(stateful_server.mcp_url, mode=mode) as client:
        result = await client.call_tool("search_by_metadata", {"query": "квартира", "limit": 2})
    assert not result.is_error and len(result.structured_content["listings"]) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_a_page_past_the_budget_is_cut_at_a_whole_card_and_continues(stateful_server, mode):
    arguments = {"filters": {"listing_status": "any"}, "collapse_duplicates": False}
    async with Client(stateful_server.mcp_url, mode=mode) as client:
        brief = await client.call_tool(
            "search_by_metadata", {**arguments, "limit": 50, "detail": "brief"}
        )
        cards = await client.call_tool("search_by_metadata", {**arguments, "limit": 50})
        page = cards.structured_content
        following = await client.call_tool(
            "search_by_metadata", {**arguments, "limit": 50, "offset": page["next_offset"]}
        )
        full = await client.call_tool(
            "search_by_metadata", {**arguments, "limit": 5, "detail": "full"}
        )
    all_ids = [card["id"] for card in brief.structured_content["listings"]]
    kept = [card["id"] for card in page["listings"]]
    assert page["truncated"] is True and page["has_more"] is True
    assert 0 < len(kept) < 50 and kept == all_ids[: len(kept)]
    assert page["next_offset"] == len(kept)
    assert following.structured_content["listings"][0]["id"] == all_ids[len(kept)]
    for result in (brief, cards, following, full):
        links = sum(
            len(shaping.compact_json(block.model_dump(mode="json", exclude_none=True)).encode())
            for block in result.content[1:]
        )
        size = len(result.content[0].text.encode())
        assert shaping.estimate_tokens(size + links) <= BUDGET_TOKENS
    assert full.structured_content["listings"]  # a full card too big alone comes as a card


CYRILLIC = "Двокімнатна квартира з балконом, Київ"
WIRE_MESSAGES = [
    JSONRPCResponse(
        jsonrpc="2.0",
        id=7,
        result={"title": CYRILLIC, "score": 0.8125, "rooms": 2, "note": None, "tags": ["ґанок"]},
    ),
    JSONRPCError(jsonrpc="2.0", id=3, error=ErrorData(code=INVALID_PARAMS, message=CYRILLIC)),
    JSONRPCError(jsonrpc="2.0", id="a", error=ErrorData(code=METHOD_NOT_FOUND, message=CYRILLIC)),
    JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=CYRILLIC)),
]


async def _written(writer, message) -> tuple[int, dict, bytes]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(item: dict) -> None:
        sent.append(item)

    await writer(message, {"type": "http", "headers": []}, receive, send)
    headers = {k: v for k, v in sent[0]["headers"] if k != b"content-length"}
    return sent[0]["status"], headers, b"".join(item.get("body", b"") for item in sent[1:])


@pytest.mark.parametrize("message", WIRE_MESSAGES, ids=["result", "-32602", "-32601", "id-null"])
async def test_2026_answers_are_written_as_the_sdk_writes_them_but_in_utf8(message):
    status, headers, body = await _written(protocol._write_utf8, message)
    sdk_status, sdk_headers, sdk_body = await _written(protocol._SDK_WRITE, message)
    assert (status, headers) == (sdk_status, sdk_headers)
    assert json.loads(body) == json.loads(sdk_body)
    if message.id is None:  # `id: null` stays on the SDK's path (exclude_none would drop it)
        assert body == sdk_body and b'"id":null' in body
    else:
        assert CYRILLIC.encode() in body and b"\\u" not in body
        assert b"\\u04" in sdk_body and len(body) < len(sdk_body)


def test_an_sdk_without_the_writers_keeps_its_own_and_says_so(monkeypatch, caplog):
    from mcp.server import _streamable_http_modern as sdk_modern

    assert protocol.install_utf8_answers() is True
    assert sdk_modern._write is protocol._write_utf8
    monkeypatch.setattr(sdk_modern, "_write", protocol._SDK_WRITE)
    monkeypatch.setattr(protocol, "_SDK_WRITE", None)  # as if the SDK had renamed it
    assert protocol.install_utf8_answers() is False
    assert sdk_modern._write is not protocol._write_utf8
    assert "Cyrillic escaped" in caplog.text


def test_2026_sse_events_are_the_sdks_in_utf8():
    notification = JSONRPCNotification(
        jsonrpc="2.0", method="notifications/progress", params={"message": CYRILLIC}
    )
    for message in (WIRE_MESSAGES[0], notification):
        ours, sdks = protocol._sse_event_utf8(message), protocol._SDK_SSE_EVENT(message)
        head, _, data = ours.partition(b"data: ")
        assert head == sdks.partition(b"data: ")[0] == b"event: message\r\n"
        assert ours.endswith(b"\r\n\r\n") and b"\\u" not in ours
        assert json.loads(data) == json.loads(sdks.partition(b"data: ")[2])


async def test_a_2026_client_gets_the_page_in_utf8_as_a_2025_client_does(mcp_server):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    arguments = {"query": "балкон", "limit": 10, "collapse_duplicates": False}
    bodies: dict[str, bytes] = {}

    async def record(response: httpx2.Response) -> None:
        if response.request.method == "POST" and b"tools/call" in response.request.content:
            await response.aread()
            bodies[mode] = response.content

    for mode in MODES:
        async with (
            httpx2.AsyncClient(event_hooks={"response": [record]}) as http,
            Client(streamable_http_client(mcp_server.mcp_url, http_client=http), mode=mode) as c,
        ):
            result = await c.call_tool("search_by_metadata", arguments)
        assert not result.is_error and len(result.structured_content["listings"]) == 10
    modern, legacy = bodies["2026-07-28"], bodies["legacy"]
    assert b"\\u04" not in modern and "балкон".encode() in modern
    # The same page; 2026-07-28 adds resultType and the serverInfo stamp (measured: +266
    # bytes on a 10-card page; 43 052 bytes instead of 22 166 when the SDK escaped them).
    assert len(modern) - len(legacy) < 600
