"""Session fixtures of the foreign-database suite: the variant databases, the fake Ollama, one
real server process per variant, and subprocess commands with the same environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.localserver import LocalServer, free_port, start_local_server
from demo import embedded as embedded_db
from tests.fake_ollama import FakeOllama

from . import builder, expect

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "foreign-suite-Pa55word!"
USERNAME = "foreign-admin"
# Settings the test process has set (tests/settings.py) or inherited that must not leak into
# the production-like subprocesses.
DROPPED_ENV = (
    "LISTINGS_DATABASE_URL", "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD",
    "DEMO_LISTINGS_COUNT", "DEMO_SEED", "EMBEDDED_DB_DIR", "STATIC_ROOT", "FTS_CONFIG",
)  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Run:
    """One variant: its database, its server, and how to run commands against it."""

    variant: builder.Variant
    embedded: embedded_db.EmbeddedServer
    env: dict[str, str]
    server: LocalServer | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    before: str = ""
    checked: subprocess.CompletedProcess[str] | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def manage(self, *args: str, **env: str | None) -> subprocess.CompletedProcess[str]:
        """`manage.py args` as a subprocess on this variant; env values of None are removed."""
        full = {**base_env(), **self.env}
        for key, value in env.items():
            if value is None:
                full.pop(key, None)
            else:
                full[key] = value
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=180,
            env=full,
        )

    def check(self) -> subprocess.CompletedProcess[str]:
        """`check_listings_db` on this variant, run once and shared by the tests that read it."""
        if self.checked is None:
            self.checked = self.manage("check_listings_db")
        return self.checked

    def log(self) -> str:
        return self.server.log_text() if self.server else ""


def base_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in DROPPED_ENV}


@pytest.fixture(scope="session")
def embedded(listings_db) -> embedded_db.EmbeddedServer:
    """The embedded server holding the test database (the variants' source)."""
    return embedded_db.configured_server()


@pytest.fixture(scope="session")
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as ollama:
        yield ollama


@pytest.fixture(scope="session")
def foreign_tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("foreign")


@pytest.fixture(scope="session")
def foreign(embedded, fake_ollama, foreign_tmp) -> Iterator[dict[str, Run]]:
    """Both variants built, each with its server; checksums compared and all dropped after."""
    runs: dict[str, Run] = {}
    sqlite = foreign_tmp / "default.sqlite3"
    try:
        for variant in builder.VARIANTS.values():
            builder.build(embedded, variant)
            env = {
                "DJANGO_SETTINGS_MODULE": "vmkproject.settings",
                "LISTINGS_DATABASE_URL": builder.url(embedded, variant.dbname),
                "EMBEDDER": "ollama",
                "OLLAMA_HOST": fake_ollama.url,
                "DATABASE_URL": f"sqlite:///{sqlite}",
                "SECRET_KEY": "foreign-suite-secret-key-0123456789-abcdefghijklmnop",
                "VMK_DATA_DIR": str(foreign_tmp / "data"),
                "DB_POOL_MIN": "1",
                "DB_POOL_MAX": "4",
                # Unfiltered semantic searches go through the vector index (if any), not the
                # exact scan that a 3000-row table would otherwise always get.
                "EXACT_VECTOR_SEARCH_MAX_ROWS": "100",
            }
            run = Run(variant, embedded, env)
            run.before = builder.checksum(embedded, variant.dbname)
            run.facts = builder.facts(embedded, variant)
            runs[variant.name] = run
        first = next(iter(runs.values()))
        # README production steps: migrate, a superuser, then serve (no collectstatic).
        migrated = first.manage("migrate", "--noinput")
        assert migrated.returncode == 0, migrated.stderr[-2000:]
        created = first.manage(
            "createsuperuser",
            "--noinput",
            DJANGO_SUPERUSER_USERNAME=USERNAME,
            DJANGO_SUPERUSER_PASSWORD=PASSWORD,
            DJANGO_SUPERUSER_EMAIL="admin@example.com",
        )
        assert created.returncode == 0, created.stderr[-2000:]
        for run in runs.values():
            log_dir = foreign_tmp / run.variant.name
            log_dir.mkdir(exist_ok=True)
            run.server = start_local_server(
                {**{k: v for k, v in base_env().items()}, **run.env}, log_dir=log_dir
            )
        yield runs
    finally:
        for run in runs.values():
            if run.server is not None:
                run.server.stop()
        changed = [
            run.variant.name
            for run in runs.values()
            if run.before and builder.checksum(embedded, run.variant.dbname) != run.before
        ]
        for variant in builder.VARIANTS.values():
            builder.drop(embedded, variant)
        builder.drop_reader(embedded)
    assert not changed, f"the listings table changed in {changed}"


@pytest.fixture(scope="session")
def collector(foreign) -> Run:
    return foreign["collector"]


@pytest.fixture(scope="session")
def bare(foreign) -> Run:
    return foreign["bare"]


class Recorder:
    """Every HTTP response of a client: status, URL and body, checked for leaks at the end."""

    def __init__(self, *secrets: str) -> None:
        self.responses: list[tuple[int, str, str]] = []
        self.secrets = secrets

    def record(self, response: Any, body: str) -> None:
        self.responses.append((response.status_code, str(response.url), body))

    def problems(self) -> list[str]:
        found = []
        for status, url, body in self.responses:
            if status >= 500:
                found.append(f"HTTP {status} from {url}")
            bad = expect.leaks(body, *self.secrets)
            if bad:
                found.append(f"{url} shows {bad}")
        return found


@pytest.fixture
def recorder(embedded) -> Recorder:
    return Recorder(embedded.socket_dir)


@contextmanager
def admin_client(run: Run, recorder: Recorder) -> Iterator[httpx.Client]:
    """An httpx client logged in to the admin through its login form (CSRF included)."""

    def hook(response: httpx.Response) -> None:
        response.read()
        kind = response.headers.get("content-type", "")
        recorder.record(response, response.text if "css" not in kind else "")

    from bench.admin_pages import log_in

    with httpx.Client(base_url=run.url, timeout=120.0, event_hooks={"response": [hook]}) as client:
        log_in(client, USERNAME, PASSWORD)
        yield client


def dead_ollama_url() -> str:
    return f"http://127.0.0.1:{free_port()}"
