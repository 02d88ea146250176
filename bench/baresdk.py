"""The protocol's own floor: a bare MCP SDK server sending our recorded answers.

`bench_search --peer toolbox` also starts this server. Its one tool, `answer`, returns the
answer our server gave to a case, recorded just before (the same CallToolResult, so the same
bytes), with no database, no authentication, no logging and no middleware of ours: what the
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
from starlette.routing import Route

TOOL = "answer"


def record(result: CallToolResult) -> dict[str, Any]:
    """An answer as the bare server stores it."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def build_app(answers: list[dict[str, Any]], *, json_response: bool, stateless: bool) -> Starlette:
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

    endpoint = StreamableHTTPASGIApp(server.session_manager)
    return Starlette(
        routes=[Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"])],
        lifespan=lifespan,
    )


def main(argv: list[str]) -> None:
    path, port = Path(argv[1]), int(argv[2])
    config = json.loads(path.read_text(encoding="utf-8"))
    app = build_app(
        config["answers"], json_response=config["json_response"], stateless=config["stateless"]
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main(sys.argv)
