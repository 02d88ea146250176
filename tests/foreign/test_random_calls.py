"""Random calls of every tool, made from each foreign server's own tools/list and
describe_schema: its present cities and enum spellings, bounds and hostile rows. Each answer
is a result or a clean error (the session checks leaks, internal_error and HTTP 500)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.random_calls import CallMaker

from .builder import Hostile
from .test_mcp import VARIANTS, session

pytestmark = pytest.mark.anyio
CALLS_PER_DATABASE = 500
HOSTILE_IDS = (
    Hostile.ALL_NULL, Hostile.HTML, Hostile.EMOJI, Hostile.RUSSIAN, Hostile.CONTROL,
    Hostile.GRN, Hostile.NULL_CURRENCY, Hostile.BLOCK, Hostile.DAILY, Hostile.NULL_STATUS,
    *Hostile.ZERO_VECTORS, Hostile.ZERO_NEIGHBOURS[0], Hostile.HUGE[0], 1, 2, 1500, 3000,
)  # fmt: skip


@pytest.mark.parametrize("name", VARIANTS)
async def test_random_calls_of_every_tool_end_in_a_result_or_a_clean_error(foreign, recorder, name):
    run = foreign[name]
    outcomes: Counter[str] = Counter()
    async with session(run, recorder) as mcp:
        tools = [
            tool.model_dump(by_alias=True, mode="json")
            for tool in (await mcp.client.list_tools()).tools
        ]
        schema = await mcp.ok("describe_schema", {})
        maker = CallMaker(tools, schema, HOSTILE_IDS, seed=len(name))
        for _ in range(CALLS_PER_DATABASE):
            tool, arguments = maker.call()
            result = await mcp.call(tool, arguments)
            if result.is_error:
                code = json.loads(result.content[0].text)["code"]
                assert code in {"invalid_argument", "not_found"}, (tool, arguments, code)
                outcomes[code] += 1
            else:
                assert isinstance(result.structured_content, dict), (tool, arguments)
                outcomes[tool] += 1
    answered = sum(count for tool, count in outcomes.items() if tool in maker.tools)
    # Most calls must get past validation, or the random calls test only the validation.
    assert answered >= CALLS_PER_DATABASE // 3, (name, outcomes)
    assert outcomes["invalid_argument"] > 0, (name, outcomes)
    assert len([tool for tool in maker.tools if outcomes[tool]]) == len(maker.tools), outcomes
