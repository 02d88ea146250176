"""The protocol's own floor: a bare MCP SDK server sending our recorded answers.

`bench_search --peer toolbox` also starts this server. Its one tool, `answer`, returns the
answer our server gave to a case, recorded just before (the same CallToolResult, so the same
bytes, gzip-compressed as ours are), with no database, no authentication, no logging and no
middleware of ours: what the
MCP SDK's server, uvicorn and the SDK client cost for that answer on this machine. Our p50
minus its p50 is what our code and the database add.

Run as `python -m bench.baresdk ANSWERS.json PORT`; it needs neither Django nor a database.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp_types import CallToolResult
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Route

TOOL = "answer"


def record(result: CallToolResult) -> dict[str, Any]:
    """An answer as the bare server stores it."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def build_app(
    answers: list[dict[str, Any]],
    *,
    json_response: bool,
    stateless: bool,
    gzip_min_bytes: int = 0,
    gzip_level: int = 3,
) -> Starlette:
    stored = [CallToolResult.model_validate(answer) for answer in answers]
    server = MCPServer("bare-sdk")

    @server.tool(name=TOOL)
    def answer(key: int) -> CallToolResult:
        """The recorded answer number `key`."""
        return stored[key]

    server.streamable_http_app(
        streamable_http_path="/mcp", json_response=json_response, stateless_http=stateless
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    endpoint: Any = StreamableHTTPASGIApp(server.session_manager)
    if gzip_min_bytes:  # as our /mcp (MCP_GZIP_MIN_BYTES): the same bytes on the wire
        endpoint = GZipMiddleware(endpoint, minimum_size=gzip_min_bytes, compresslevel=gzip_level)
    return Starlette(
        routes=[Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"])],
        lifespan=lifespan,
    )


def main(argv: list[str]) -> None:
    path, port = Path(argv[1]), int(argv[2])
    config = json.loads(path.read_text(encoding="utf-8"))
    app = build_app(
        config["answers"],
        json_response=config["json_response"],
        stateless=config["stateless"],
        gzip_min_bytes=config.get("gzip_min_bytes", 0),
        gzip_level=config.get("gzip_level", 3),
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main(sys.argv)
