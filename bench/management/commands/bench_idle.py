"""What an agent's call costs after the server has been idle for a while, against the next
call: agents call minutes apart, and whatever the server keeps for a minute (the facts about
the listings database, the plans) has expired by then.

Starts the server (or takes --url), then for each round waits --gap seconds, calls
hybrid_search with a new query through the MCP SDK client, sends the same call again at
once, and then a call with another new query (interpretation off: one statement shape
throughout). The repeat finds the query's embedding cached and the pages its statements
read in PostgreSQL's buffers; the second new query finds neither, as the first did, but
comes without the idle gap: the first and the third call differ by the gap alone. With
--warm N, N calls of other new queries go first, so that the database's buffers hold what
searches read (a freshly started PostgreSQL reads each new query's index pages from disk).
Prints the client-side times; nothing is asserted.
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
# --warm's queries: every pair of a subject and a feature, none of them one of QUERIES
SUBJECTS = ("квартира", "будинок", "студія", "кімната", "таунхаус", "пентхаус", "дача", "офіс")
FEATURES = (
    "з терасою",
    "біля школи",
    "з каміном",
    "у новобудові",
    "з паркінгом",
    "біля лісу",
    "з панорамними вікнами",
    "після ремонту",
    "з меблями",
    "біля озера",
    "з ліфтом",
    "у центрі",
    "з гардеробною",
    "біля університету",
    "з сауною",
    "на першому поверсі",
)


def round_queries(number: int) -> tuple[str, str]:
    """A round's two new queries, the one after the gap first: a pair of QUERIES, numbered
    once they have all been used, in turns first and second (a query's own cost is not
    always on one side)."""
    first = 2 * number
    suffix = "" if first + 1 < len(QUERIES) else f" {number}"
    pair = (
        QUERIES[first % len(QUERIES)] + suffix,
        QUERIES[(first + 1) % len(QUERIES)] + suffix,
    )
    return pair if number % 2 == 0 else (pair[1], pair[0])


def warm_queries(count: int) -> list[str]:
    pairs = [f"{subject} {feature}" for feature in FEATURES for subject in SUBJECTS]
    return [
        pairs[number % len(pairs)] + ("" if number < len(pairs) else f" {number}")
        for number in range(count)
    ]


async def _rounds(
    url: str, rounds: int, gap: float, warm: int, write: Any
) -> tuple[list[float], list[float], list[float]]:
    async def timed(client: Client, query: str) -> float:
        started = time.perf_counter()
        # interpret off: each call has the same filters (one statement shape), so what differs
        # between a round's calls is the idle gap and whether the query is new
        arguments = {"query": query, "filters": FILTERS, "interpret": False}
        result = await client.call_tool("hybrid_search", arguments)
        if result.is_error:
            raise CommandError("hybrid_search failed")
        return (time.perf_counter() - started) * 1000

    after_gap, repeat, other = [], [], []
    async with Client(url) as client:
        await timed(client, "квартира")  # the session and the server warm
        if warm:
            started = time.perf_counter()
            for query in warm_queries(warm):
                await timed(client, query)
            write(f"warmed: {warm} calls in {time.perf_counter() - started:.0f} s")
        for number in range(rounds):
            await asyncio.sleep(gap)
            query, another = round_queries(number)
            after_gap.append(await timed(client, query))
            repeat.append(await timed(client, query))
            other.append(await timed(client, another))
            write(
                f"round {number + 1}: after {gap:.0f} s idle {after_gap[-1]:.1f} ms, "
                f"the same again {repeat[-1]:.1f} ms, another new query {other[-1]:.1f} ms"
            )
    return after_gap, repeat, other


class Command(BaseCommand):
    help = "A call after the server was idle against the next call (hybrid_search, MCP client)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, default=4)
        parser.add_argument("--gap", type=float, default=65.0, help="seconds idle (default 65)")
        parser.add_argument("--url", default="", help="a running server's /mcp URL")
        parser.add_argument(
            "--warm", type=int, default=0, help="calls of other new queries before the rounds"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rounds"] < 1 or options["gap"] < 0 or options["warm"] < 0:
            raise CommandError("--rounds must be 1 or more, --gap and --warm 0 or more")
        try:
            with serving(options["url"]) as (url, _):
                after_gap, repeat, other = asyncio.run(
                    _rounds(
                        url, options["rounds"], options["gap"], options["warm"], self.stdout.write
                    )
                )
        except ServerDidNotStart:
            raise CommandError("The server did not start.") from None
        self.stdout.write(
            f"p50: after {options['gap']:.0f} s idle {statistics.median(after_gap):.1f} ms, "
            f"the same again {statistics.median(repeat):.1f} ms, "
            f"another new query {statistics.median(other):.1f} ms"
        )
