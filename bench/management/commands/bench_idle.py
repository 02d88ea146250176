"""What an agent's call costs after the server has been idle for a while, against the next
call: agents call minutes apart, and whatever the server keeps for a minute (the facts about
the listings database, the plans) has expired by then.

Starts the server (or takes --url), then for each round waits --gap seconds, calls
hybrid_search with a new query through the MCP SDK client and sends the same call again at
once (interpretation off: one statement shape throughout; the second call finds the query's
embedding cached, a few ms with the offline model, and runs the same statements). Prints
the client-side times; nothing is asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from mcp import Client

from bench.localserver import ServerDidNotStart, serving

QUERIES = (
    "квартира з балконом біля метро",
    "будинок з садом і гаражем",
    "простора квартира з ремонтом",
    "студія біля парку",
    "квартира з видом на річку",
    "затишна квартира в тихому районі",
)
FILTERS = {"city": "Київ"}


async def _rounds(url: str, rounds: int, gap: float, write: Any) -> tuple[list[float], list[float]]:
    async def timed(client: Client, query: str) -> float:
        started = time.perf_counter()
        # interpret off: each call has the same filters (one statement shape), so what differs
        # between the two calls of a round is the idle gap (and the query's embedding)
        arguments = {"query": query, "filters": FILTERS, "interpret": False}
        result = await client.call_tool("hybrid_search", arguments)
        if result.is_error:
            raise CommandError("hybrid_search failed")
        return (time.perf_counter() - started) * 1000

    after_gap, next_call = [], []
    async with Client(url) as client:
        await timed(client, "квартира")  # the session and the server warm
        for number in range(rounds):
            await asyncio.sleep(gap)
            query = QUERIES[number % len(QUERIES)]
            after_gap.append(await timed(client, query))
            next_call.append(await timed(client, query))
            write(
                f"round {number + 1}: after {gap:.0f} s idle {after_gap[-1]:.1f} ms, "
                f"the next call {next_call[-1]:.1f} ms"
            )
    return after_gap, next_call


class Command(BaseCommand):
    help = "A call after the server was idle against the next call (hybrid_search, MCP client)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, default=4)
        parser.add_argument("--gap", type=float, default=65.0, help="seconds idle (default 65)")
        parser.add_argument("--url", default="", help="a running server's /mcp URL")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rounds"] < 1 or options["gap"] < 0:
            raise CommandError("--rounds must be 1 or more and --gap 0 or more")
        try:
            with serving(options["url"]) as (url, _):
                after_gap, next_call = asyncio.run(
                    _rounds(url, options["rounds"], options["gap"], self.stdout.write)
                )
        except ServerDidNotStart:
            raise CommandError("The server did not start.") from None
        self.stdout.write(
            f"p50: after {options['gap']:.0f} s idle {statistics.median(after_gap):.1f} ms, "
            f"the next call {statistics.median(next_call):.1f} ms"
        )
