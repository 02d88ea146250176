"""Throughput: one tool called back to back, for a fixed time, by kept-alive MCP SDK clients.

`bench_throughput` runs this for each tool, concurrency and worker count (issue 13's targets:
at concurrency 8 on one worker get ≥ 300 calls/s and semantic ≥ 100; two workers at least as
many calls/s as one at every concurrency). The clients run in their own processes (spawned,
no Django): a Python SDK client spends 2–4 ms of CPU per call, so one client process would
cap the figure before the server does. Each process opens its sessions first, then all start
at the same wall-clock moment and stop calling at the same moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import psutil

# The moment all client processes start calling, this far after the run is set up.
START_DELAY_SEC = 2.0


@dataclass
class Outcome:
    """What the client processes measured in one run."""

    concurrency: int = 0
    client_processes: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""
    wall_seconds: float = 0.0
    client_cpu_seconds: float = 0.0
    # None: the server's CPU was not read.
    server_cpu_seconds: float | None = None

    @property
    def calls_per_s(self) -> float:
        return len(self.latencies_ms) / self.wall_seconds if self.wall_seconds else 0.0


def summary(rounds: list[Outcome]) -> dict[str, Any]:
    """One row from the rounds of the same runs: their calls and latencies together, the
    calls/s of the whole time, and each round's calls/s when there are several."""
    ordered = sorted(latency for outcome in rounds for latency in outcome.latencies_ms)
    calls = len(ordered)
    wall = sum(outcome.wall_seconds for outcome in rounds)
    client_cpu = sum(outcome.client_cpu_seconds for outcome in rounds)
    server_cpus = [outcome.server_cpu_seconds for outcome in rounds]

    def pct(p: float) -> float:
        return round(ordered[min(calls - 1, int(p * calls))], 2) if calls else 0.0

    row = {
        "calls": calls,
        "errors": sum(outcome.errors for outcome in rounds),
        "first_error": next((o.first_error for o in rounds if o.first_error), ""),
        "calls_per_s": round(calls / wall, 1) if wall else 0.0,
        "p50_ms": round(statistics.median(ordered), 2) if calls else 0.0,
        "p90_ms": pct(0.9),
        "p99_ms": pct(0.99),
        "client_cpu_ms_per_call": round(1000 * client_cpu / calls, 2) if calls else None,
        "concurrency": rounds[0].concurrency,
        "client_processes": rounds[0].client_processes,
        "server_cpu_ms_per_call": (
            round(1000 * sum(c for c in server_cpus if c is not None) / calls, 2)
            if calls and None not in server_cpus
            else None
        ),
    }
    if len(rounds) > 1:
        row["rounds_calls_per_s"] = [round(outcome.calls_per_s, 1) for outcome in rounds]
    return row


async def _sessions(
    url: str, calls: list[tuple[str, dict[str, Any]]], sessions: int, seconds: float, start: float
) -> dict[str, Any]:
    from mcp import Client

    latencies: list[float] = []
    errors = 0
    first_error = ""
    finished: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(url)) for _ in range(sessions)]
        await asyncio.sleep(max(0.0, start - time.time()))
        cpu_started = time.process_time()
        end = start + seconds

        async def loop(index: int, client: Any) -> None:
            nonlocal errors, first_error
            turn = index
            while time.time() < end:
                tool, arguments = calls[turn % len(calls)]
                turn += sessions
                began = time.perf_counter()
                try:
                    result = await client.call_tool(tool, arguments)
                    failed = bool(result.is_error)
                    message = str(result.content[0].text)[:200] if failed else ""
                except Exception as exc:  # noqa: BLE001 - a failed call is counted, the run goes on
                    failed, message = True, f"{type(exc).__name__}: {exc}"[:200]
                latencies.append((time.perf_counter() - began) * 1000)
                if failed:
                    errors += 1
                    first_error = first_error or message
            finished.append(time.time())

        await asyncio.gather(*(loop(index, client) for index, client in enumerate(clients)))
        cpu = time.process_time() - cpu_started
    return {
        "latencies_ms": latencies,
        "errors": errors,
        "first_error": first_error,
        "last_finished": max(finished, default=start),
        "client_cpu_seconds": cpu,
    }


def _client_process(
    url: str, calls: list[tuple[str, dict[str, Any]]], sessions: int, seconds: float, start: float
) -> dict[str, Any]:
    return asyncio.run(_sessions(url, calls, sessions, seconds, start))


def python_cpu_seconds(pid: int) -> float:
    """User + system CPU of the Python processes of a server: `pid` and its children (the
    workers), not the embedded PostgreSQL it may have started."""
    total = 0.0
    try:
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                if "python" in process.name().lower() or process.pid == pid:
                    times = process.cpu_times()
                    total += times.user + times.system
    except psutil.Error:
        return 0.0
    return total


def run(
    url: str,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    concurrency: int,
    seconds: float,
    client_processes: int,
    server_pid: int | None = None,
) -> Outcome:
    """`concurrency` sessions, spread over client processes, call `calls` in turn for
    `seconds`: their latencies, errors, and the CPU of the clients and the server."""
    processes = max(1, min(client_processes, concurrency))
    shares = [concurrency // processes + (i < concurrency % processes) for i in range(processes)]
    outcome = Outcome(concurrency=concurrency, client_processes=processes)
    with ProcessPoolExecutor(max_workers=processes, mp_context=get_context("spawn")) as pool:
        # The pool's processes start (and import the SDK) before the clock does.
        list(pool.map(abs, range(processes)))
        start = time.time() + START_DELAY_SEC
        futures = [
            pool.submit(_client_process, url, calls[i::processes] or calls, share, seconds, start)
            for i, share in enumerate(shares)
        ]
        time.sleep(max(0.0, start - time.time()))
        server_cpu = python_cpu_seconds(server_pid) if server_pid else 0.0
        parts = [future.result() for future in futures]
        if server_pid:
            outcome.server_cpu_seconds = python_cpu_seconds(server_pid) - server_cpu
    for part in parts:
        outcome.latencies_ms += part["latencies_ms"]
        outcome.errors += part["errors"]
        outcome.first_error = outcome.first_error or part["first_error"]
        outcome.client_cpu_seconds += part["client_cpu_seconds"]
    outcome.wall_seconds = max(part["last_finished"] for part in parts) - start
    return outcome
