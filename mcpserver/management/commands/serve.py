"""Serve the ASGI app (/mcp, /health, /admin/) with uvicorn, using the settings' host and port."""

from __future__ import annotations

import signal
import socket
import sys
from types import FrameType
from typing import Any

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connections
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import Multiprocess, multiprocess

from vmkproject import metrics
from vmkproject.db import close_listings_pool, start_serving, stop_all
from vmkproject.routers import LISTINGS_ALIAS


def _exit_cleanly(signum: int, frame: Any) -> None:
    sys.exit(0)


class SharedSocketConfig(uvicorn.Config):
    """uvicorn's configuration for several workers, with Nagle's algorithm off.

    asyncio turns TCP_NODELAY on only for sockets it creates itself; the workers accept on a
    listening socket made by uvicorn's supervisor, so every small response on a kept-alive
    connection would wait for the client's delayed ACK (~40 ms). Accepted sockets inherit the
    option from the listening one.
    """

    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


class Server(uvicorn.Server):
    """uvicorn's server, on which a second Ctrl+C does not skip the app's shutdown.

    uvicorn takes a second SIGINT as "force exit": it leaves the app's lifespan unfinished,
    and when the loop ends the cancelled lifespan printed two tracebacks on the terminal of
    whoever pressed Ctrl+C twice during `make run`. The shutdown is bounded without it: the
    wait for open connections by SHUTDOWN_GRACE_SEC (timeout_graceful_shutdown).
    """

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit and sig == signal.SIGINT:
            return  # shutting down already
        super().handle_exit(sig, frame)


class WorkerProcess(multiprocess.Process):
    """A worker of uvicorn's supervisor that runs Server, not uvicorn's: a terminal's Ctrl+C
    reaches every worker of the process group, and a second one skipped each worker's app
    shutdown (the audit rows still queued, the pools) with the same two tracebacks."""

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            self._server = Server(config=self.config)
        return self._server


class Command(BaseCommand):
    help = "Start the server: MCP at /mcp, health at /health, Django admin at /admin/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=settings.MCP_HOST)
        parser.add_argument("--port", type=int, default=settings.MCP_PORT)
        parser.add_argument("--workers", type=int, default=settings.MCP_WORKERS)

    def handle(self, *args: Any, **options: Any) -> None:
        # Start (and on first run create and fill) the embedded database before any worker
        # starts, so that workers find it ready and the first request pays nothing.
        connection = connections[LISTINGS_ALIAS]
        connection.ensure_connection()
        connection.close()
        close_listings_pool()
        start_serving()  # the demo wing's background embedding, when it has some to do
        self.stdout.write(
            f"Serving on http://{options['host']}:{options['port']}  "
            f"(MCP: /mcp, health: /health, admin: /admin/)"
        )
        # uvicorn re-raises SIGTERM/SIGINT once it has shut down; exit through Python then, so
        # that the embedded database is let go of (and stopped) rather than left running.
        if options["workers"] > 1:
            # Each worker writes its metrics there; a scrape of any one adds them up.
            metrics.prepare_multiprocess(settings.METRICS_MULTIPROC_DIR)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _exit_cleanly)
        try:
            self._serve(options)
        finally:
            stop_all()

    def _serve(self, options: dict[str, Any]) -> None:
        config = SharedSocketConfig(
            "vmkproject.asgi:application",
            host=options["host"],
            port=options["port"],
            workers=max(options["workers"], 1),
            log_level=settings.LOG_LEVEL.lower(),
            access_log=settings.MCP_ACCESS_LOG,
            lifespan="on",
            timeout_graceful_shutdown=int(settings.SHUTDOWN_GRACE_SEC),
        )
        if config.workers > 1:
            # The supervisor makes its workers (at start, on SIGHUP, for one that died) with
            # its module's Process, and has no other way to be given one. This process only
            # serves; the worker is pickled by reference to its class, so the workers run it.
            multiprocess.Process = WorkerProcess  # type: ignore[misc]
            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            server = Server(config)
            server.run()
            if not server.started:
                sys.exit(STARTUP_FAILURE)
