"""A tiny stand-in for Ollama's `POST /api/embed`, served from a background thread.

It answers deterministically (a hash of model and text → a unit vector), records every
request, and can be switched into the failure modes the embedder must explain.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import numpy as np

Mode = Literal["ok", "not_pulled", "no_endpoint", "error", "slow", "wrong_dimension", "malformed"]

# Ollama's own body for a model that has not been pulled.
NOT_PULLED_BODY = '{"error":"model \\"nomic-embed-text\\" not found, try pulling it first"}'
SERVER_ERROR_BODY = '{"error":"llama runner process has terminated: signal: killed"}'
WRONG_DIMENSION = 384


def fake_vector(text: str, dimension: int, model: str = "nomic-embed-text") -> list[float]:
    """The unit vector FakeOllama returns for `text` (tests compute expectations with it)."""
    seed = int.from_bytes(hashlib.sha256(f"{model}\0{text}".encode()).digest()[:8], "big")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    result: list[float] = (vector / np.linalg.norm(vector)).tolist()
    return result


class FakeOllama:
    """`with FakeOllama() as ollama:` serves on 127.0.0.1 at `ollama.url` until the block ends."""

    def __init__(self, *, dimension: int = 768, mode: Mode = "ok", delay: float = 2.0) -> None:
        self.dimension = dimension
        self.mode: Mode = mode
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # A client that times out leaves a handler writing to a closed socket: not news.
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def texts(self) -> list[str]:
        """Every text embedded so far, in order."""
        with self._lock:
            return [text for request in self.requests for text in request.get("input", [])]

    def start(self) -> FakeOllama:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()  # wake handlers sleeping in "slow" mode
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def answer(self, body: dict[str, Any]) -> tuple[int, str]:
        """The status and body for one request, by mode."""
        with self._lock:
            self.requests.append(body)
        model = body.get("model", "")
        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        dimension = self.dimension
        if self.mode == "not_pulled":
            return 404, NOT_PULLED_BODY
        if self.mode == "no_endpoint":
            return 404, "404 page not found"
        if self.mode == "error":
            return 500, SERVER_ERROR_BODY
        if self.mode == "malformed":
            return 200, '{"embeddings": [[0.1, 0.2'
        if self.mode == "slow":
            self._released.wait(self.delay)
        if self.mode == "wrong_dimension":
            dimension = WRONG_DIMENSION
        vectors = [fake_vector(text, dimension, model) for text in texts]
        return 200, json.dumps({"model": model, "embeddings": vectors})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as Ollama does
            # Headers and body go out in two writes: without this, delayed ACKs hold every
            # kept-alive answer back by 40 ms.
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if self.path != "/api/embed":
                    status, text = 404, "404 page not found"
                else:
                    status, text = fake.answer(json.loads(raw or b"{}"))
                data = text.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
