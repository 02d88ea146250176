"""Resource reads that fail answer like the tools: the same message and code, no traceback."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from listings import search

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("uri", "code", "message"),
    [
        ("listing://999999999", "not_found", "Listing 999999999 does not exist."),
        ("listing://abc", "invalid_argument", search.LISTING_ID_INVALID),
        ("listing://0", "invalid_argument", search.LISTING_ID_INVALID),
        ("listing://-3", "invalid_argument", search.LISTING_ID_INVALID),
        ("listing://99999999999999999999999", "invalid_argument", search.LISTING_ID_INVALID),
        ("listing://%D9%A3", "invalid_argument", search.LISTING_ID_INVALID),
    ],
)
async def test_bad_listing_resources_give_the_tools_error(mcp_server, uri, code, message):
    async with Client(mcp_server.mcp_url) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(uri)
        tool = await client.call_tool("get_listing_by_id", {"listing_id": 999999999})
    error = raised.value
    assert error.code == INVALID_PARAMS
    assert error.message == message
    assert error.data == {"error": message, "code": code, "uri": uri}
    assert "template" not in error.message
    assert tool.is_error and "Listing 999999999 does not exist." in tool.content[0].text


async def test_failed_resource_reads_log_no_traceback(mcp_server):
    async with Client(mcp_server.mcp_url) as client:
        for uri in ("listing://999999998", "listing://xyz"):
            with pytest.raises(MCPError):
                await client.read_resource(uri)
        listing = await client.read_resource("listing://1")
    assert '"id":1' in listing.contents[0].text.replace(" ", "")
    log = mcp_server.log_text()
    assert "Traceback" not in log
    assert "Error creating resource" not in log
    assert "raised an unexpected exception" not in log
