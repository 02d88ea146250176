"""What tracing costs: the same MCP calls against a server without and with tracing."""

from __future__ import annotations

import statistics
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import workload
from bench.localserver import LocalServer, start_local_server
from listings.errors import SearchError


class _Sink(BaseHTTPRequestHandler):
    """A local OTLP/HTTP endpoint that accepts span batches and drops them."""

    batches = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).batches += 1
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


class Command(BaseCommand):
    help = (
        "Run a seeded mix of tool calls over MCP against a server with tracing off and one "
        "with tracing on (batch exporter to a local OTLP sink); print p50 per mode and overall."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--calls", type=int, default=20, help="cases per mode (default 20)")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--rounds", type=int, default=2, help="alternating runs per server")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            cases = workload.seeded_cases(options["seed"], options["calls"])
        except SearchError as exc:
            raise CommandError(exc.message) from None
        sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
        threading.Thread(target=sink.serve_forever, daemon=True).start()
        endpoint = f"http://127.0.0.1:{sink.server_address[1]}"
        servers: dict[str, LocalServer] = {}
        try:
            servers["off"] = start_local_server({"OTEL_TRACES_EXPORTER": "none"})
            servers["on"] = start_local_server({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint})
            latencies: dict[str, dict[str, list[float]]] = {"off": {}, "on": {}}
            for server in servers.values():  # warm caches and pools, untimed
                workload.run_mcp(server.mcp_url, cases[: len(cases) // 4], 1)
            for _ in range(options["rounds"]):
                for way, server in servers.items():
                    for mode, series in workload.run_mcp(server.mcp_url, cases, 1).items():
                        latencies[way].setdefault(mode, []).extend(series.latencies_ms)
        except RuntimeError:
            raise CommandError("A benchmark server did not start.") from None
        finally:
            for server in servers.values():
                server.stop()
            sink.shutdown()
        self.stdout.write(f"{'mode':<28}{'p50 off ms':>12}{'p50 on ms':>12}{'cost':>9}")
        for mode in sorted(latencies["off"]):
            self._row(mode, latencies["off"][mode], latencies["on"].get(mode, []))
        off, on = ([x for xs in latencies[way].values() for x in xs] for way in ("off", "on"))
        self._row("all", off, on)
        self.stdout.write(f"span batches received by the sink: {_Sink.batches}")

    def _row(self, mode: str, off: list[float], on: list[float]) -> None:
        if not off or not on:
            return
        p50_off, p50_on = statistics.median(off), statistics.median(on)
        cost = (p50_on / p50_off - 1) * 100 if p50_off else 0.0
        self.stdout.write(f"{mode:<28}{p50_off:>12.2f}{p50_on:>12.2f}{cost:>8.1f}%")
