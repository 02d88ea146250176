"""The peer in the benchmark: Google's MCP Toolbox for Databases running our statements.

`bench_search --peer toolbox` installs the Toolbox server from npm under the data
directory when it is missing, writes a `tools.yaml` whose `postgres-sql` tools run, as
prepared statements, the main statement each case's floor sends (recorded from the floor
itself, so both answer with the same SQL), and times our MCP tool and the peer's through
the same SDK client, calls interleaved. The peer cannot embed: a semantic call gets the
query vector as a parameter (`$n::vector` text), and its source sets the floor's
`ef_search` (and keeps the planner on the HNSW index) for its whole session.

A third server runs beside them: the bare MCP SDK server of bench.baresdk, sending the
answer our server gave to each case, recorded just before. It is the protocol's floor for
that answer in Python: the same SDK, uvicorn and bytes, with no code of ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import numpy as np
import psycopg
from django.conf import settings

from bench import baresdk
from bench import floor as benchfloor
from bench import workload as bench
from mcpserver.http import GZIP_LEVEL

TOOLBOX_PACKAGE = "@toolbox-sdk/server-linux-x64@1.12.0"
TOOLBOX_BINARY = Path("node_modules/@toolbox-sdk/server-linux-x64/bin/toolbox")
NPM_MISSING = "npm is not installed: the Toolbox peer is installed from npm."
TOOLBOX_FAILED = "MCP Toolbox for Databases did not start; see {log}."
BARE_SDK_FAILED = "The bare MCP SDK server did not start; see {log}."
VECTOR_SOURCE, EXACT_SOURCE, PLAIN_SOURCE = "vmk_vector", "vmk_exact", "vmk_plain"
# Hybrid search fuses two statements' results in Python: no one statement is its answer.
PEERLESS = {"hybrid"}


def toolbox_binary(data_dir: Path) -> Path:
    """The Toolbox server under `data_dir`/toolbox, installed from npm when missing."""
    home = data_dir / "toolbox"
    binary = home / TOOLBOX_BINARY
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(NPM_MISSING)
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(  # noqa: S603 - npm with a fixed package name
        [npm, "install", "--prefix", str(home), "--no-audit", "--no-fund", TOOLBOX_PACKAGE],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return binary


# --- the statements each case's floor sends --------------------------------------------------


class _Recorder:
    """A psycopg connection that runs every statement and keeps the last one sent."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.sent: list[tuple[str, list[Any]]] = []

    def execute(self, sql: str, params: Any = None) -> Any:
        self.sent.append((sql, list(params or [])))
        return self.conn.execute(sql, params)

    def transaction(self) -> Any:
        return self.conn.transaction()


@dataclass
class PeerTool:
    name: str
    source: str
    statement: str
    kinds: list[str]
    calls: list[dict[str, Any]] = field(default_factory=list)


def _kind(value: Any) -> str:
    if isinstance(value, np.ndarray) or hasattr(value, "to_numpy"):
        return "vector"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    return "string"


def _argument(value: Any, kind: str) -> Any:
    if kind == "vector":
        array = np.asarray(getattr(value, "to_numpy", lambda: value)(), dtype=np.float32)
        return "[" + ",".join(f"{x:.7g}" for x in array) + "]"
    return value


def _numbered(sql: str, kinds: list[str]) -> str:
    """psycopg's %s placeholders as PostgreSQL's $1..$n; vectors as `$n::vector`."""
    counter = iter(range(1, len(kinds) + 1))

    def number(_: re.Match[str]) -> str:
        index = next(counter)
        return f"${index}::vector" if kinds[index - 1] == "vector" else f"${index}"

    return re.sub(r"%s", number, sql.replace("%%", "%"))


def _source_of(sent: list[tuple[str, list[Any]]]) -> str:
    """The source whose connection options match the settings a floor set before its main
    statement: the index scan's ef_search, the exact scan, or none."""
    for sql, params in sent[:-1]:
        if sql == benchfloor.VECTOR_OPTIONS:
            return f"{VECTOR_SOURCE}_{params[0]}"
        if "enable_indexscan" in sql:
            return EXACT_SOURCE
    return VECTOR_SOURCE if "<=>" in sent[-1][0] else PLAIN_SOURCE


def _options(source: str) -> str:
    if source == EXACT_SOURCE:
        return "-c enable_indexscan=off"
    if source.startswith(VECTOR_SOURCE + "_"):
        ef = source.rsplit("_", 1)[1]
        return f"-c hnsw.ef_search={ef} -c hnsw.iterative_scan=relaxed_order -c enable_sort=off"
    return ""


def peer_tools(
    cases: list[bench.Case], conn: psycopg.Connection, efs: benchfloor.Efs
) -> tuple[dict[str, PeerTool], list[tuple[bench.Case, PeerTool, dict[str, Any]]]]:
    """One postgres-sql tool per distinct main statement of the cases' floors (and the
    settings it runs under), and each case's call of it."""
    tools: dict[str, PeerTool] = {}
    plan = []
    for case in cases:
        if case.mode in PEERLESS:
            continue
        (_, call), *_ = benchfloor.floors_of(case, efs)
        recorder = _Recorder(conn)
        call(cast(Any, recorder))
        sql, params = recorder.sent[-1]
        kinds = [_kind(value) for value in params]
        statement = _numbered(sql, kinds)
        source = _source_of(recorder.sent)
        key = statement + "\0" + source
        if key not in tools:
            tools[key] = PeerTool(f"{case.mode}_{len(tools)}", source, statement, kinds)
        tool = tools[key]
        arguments = {
            f"p{i + 1}": _argument(v, k) for i, (v, k) in enumerate(zip(params, kinds, strict=True))
        }
        plan.append((case, tool, arguments))
    return {tool.name: tool for tool in tools.values()}, plan


def tools_yaml(tools: dict[str, PeerTool], conn: psycopg.Connection) -> str:
    """The Toolbox configuration (JSON is YAML): sources on the embedded server's socket,
    one per set of floor settings the tools run under (the index scan's ef_search, the
    exact scan, none), and a postgres-sql tool per statement."""
    info = conn.info

    def source(options: str) -> dict[str, Any]:
        params: dict[str, str] = {"host": info.host}
        if options:
            params["options"] = options
        return {
            "kind": "postgres",
            "host": "localhost",
            "port": str(info.port),
            "database": info.dbname,
            "user": info.user,
            # Toolbox requires one; the embedded server trusts its socket and ignores it.
            "password": info.password or "unused",
            "queryParams": params,
        }

    yaml_types = {"vector": "string", "integer": "integer", "float": "float", "string": "string"}
    config = {
        "sources": {
            name: source(_options(name))
            for name in sorted({tool.source for tool in tools.values()})
        },
        "tools": {
            tool.name: {
                "kind": "postgres-sql",
                "source": tool.source,
                "description": f"bench statement {tool.name}",
                "statement": tool.statement,
                "parameters": [
                    {
                        "name": f"p{i + 1}",
                        "type": yaml_types.get(kind, "string"),
                        "description": f"parameter {i + 1}",
                    }
                    for i, kind in enumerate(tool.kinds)
                ],
            }
            for tool in tools.values()
        },
    }
    return json.dumps(config, ensure_ascii=False, indent=1)


class Toolbox:
    def __init__(self, binary: Path, config: Path, port: int, log: Path) -> None:
        self.log = log
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.process = subprocess.Popen(  # noqa: S603 - the binary npm installed
            [
                str(binary),
                "--config",
                str(config),
                "--port",
                str(port),
                "--disable-version-check",
                "--disable-reload",
                "--log-level",
                "WARN",
            ],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(TOOLBOX_FAILED.format(log=log))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


async def _recorded_answers(ours_url: str, plan: list[tuple[bench.Case, Any, Any]]) -> list[Any]:
    """Our server's answer to each case of the plan (untimed), for the bare SDK server."""
    from mcp import Client

    async with Client(ours_url) as ours:
        return [
            baresdk.record(await ours.call_tool(case.tool, case.arguments)) for case, *_ in plan
        ]


class BareSdk:
    """The bare MCP SDK server (bench.baresdk) on a free port, sending `answers`."""

    def __init__(self, answers: list[Any], work_dir: Path, port: int) -> None:
        config = work_dir / "bare-sdk-answers.json"
        config.write_text(
            json.dumps(
                {
                    "answers": answers,
                    "json_response": settings.MCP_JSON_RESPONSE,
                    "stateless": settings.MCP_STATELESS_HTTP,
                    "gzip_min_bytes": settings.MCP_GZIP_MIN_BYTES,
                    "gzip_level": GZIP_LEVEL,
                },
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
        self.url = f"http://127.0.0.1:{port}/mcp"
        log = work_dir / "bare-sdk.log"
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "bench.baresdk", str(config), str(port)],
            cwd=settings.BASE_DIR,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(BARE_SDK_FAILED.format(log=log))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


async def _interleaved(
    urls: dict[str, str], plan: list[tuple[bench.Case, PeerTool | None, dict[str, Any]]]
) -> dict[str, dict[str, bench.Series]]:
    """Each case through every server of `urls` (ours, toolbox, sdk) in a rotating order."""
    from mcp import Client

    series: dict[str, dict[str, bench.Series]] = {who: {} for who in urls}
    async with contextlib.AsyncExitStack() as stack:
        clients = {who: await stack.enter_async_context(Client(url)) for who, url in urls.items()}

        def call_of(who: str, index: int) -> tuple[str, dict[str, Any]] | None:
            case, tool, arguments = plan[index]
            if who == "ours":
                return case.tool, case.arguments
            if who == "sdk":
                return baresdk.TOOL, {"key": index}
            return (tool.name, arguments) if tool is not None else None

        # one untimed call each: sessions, pools, prepared statements
        for who, client in clients.items():
            first = next(c for i in range(len(plan)) if (c := call_of(who, i)) is not None)
            await client.call_tool(*first)
        names = list(urls)
        for index, (case, _, _) in enumerate(plan):
            turn = index % len(names)
            for who in names[turn:] + names[:turn]:
                call = call_of(who, index)
                if call is None:
                    continue
                started = time.perf_counter()
                result = await clients[who].call_tool(*call)
                elapsed = (time.perf_counter() - started) * 1000
                item = series[who].setdefault(case.mode, bench.Series(case.mode, f"mcp_{who}", 1))
                item.latencies_ms.append(elapsed)
                item.errors += int(bool(result.is_error))
    return series


def run_peer(
    ours_url: str, cases: list[bench.Case], efs: benchfloor.Efs, work_dir: Path
) -> dict[str, Any]:
    """Our MCP tools, the Toolbox peer and the bare SDK server sending our answers, over the
    same cases, interleaved, concurrency 1."""
    from bench.localserver import free_port

    binary = toolbox_binary(Path(settings.DATA_DIR))
    conn = bench.raw_connection()
    try:
        tools, peer_plan = peer_tools(cases, conn, efs)
        config = work_dir / "tools.yaml"
        config.write_text(tools_yaml(tools, conn), encoding="utf-8")
    finally:
        conn.close()
    by_case = {id(case): (tool, arguments) for case, tool, arguments in peer_plan}
    plan = [(case, *by_case.get(id(case), (None, {}))) for case in cases]
    answers = asyncio.run(_recorded_answers(ours_url, plan))
    toolbox = Toolbox(binary, config, free_port(), work_dir / "toolbox.log")
    try:
        bare = BareSdk(answers, work_dir, free_port())
        try:
            urls = {"ours": ours_url, "toolbox": toolbox.url, "sdk": bare.url}
            series = asyncio.run(_interleaved(urls, plan))
        finally:
            bare.stop()
    finally:
        toolbox.stop()
    rows = []
    for mode, ours in sorted(series["ours"].items()):
        ours_p50 = ours.summary()["p50_ms"]
        row: dict[str, Any] = {"mode": mode, "ours_p50_ms": ours_p50}
        for who in ("toolbox", "sdk"):
            other = series[who].get(mode)
            p50 = other.summary()["p50_ms"] if other else None
            row[f"{who}_p50_ms"] = p50
            row[f"ours_over_{who}_p50"] = round(ours_p50 / p50, 2) if p50 else None
            row[f"{who}_errors"] = other.errors if other else None
        row["note"] = (
            "toolbox gets the query vector as a parameter (it cannot embed)"
            if mode in {"semantic", "similar"}
            else ""
        )
        rows.append(row)
    return {"tools": len(tools), "rows": rows}
