"""The compose layout (deploy/, docker-compose.yml): cannot be built here, so its files are
checked against what the scale-out tests ran for real."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from django.conf import settings

from bench import fleet

DEPLOY = settings.BASE_DIR / "deploy"


def test_compose_runs_two_servers_behind_the_balancer_through_pgbouncer():
    text = (settings.BASE_DIR / "docker-compose.yml").read_text()
    for service in ("migrate", "mcp-1", "mcp-2", "pgbouncer", "balancer"):
        assert f"\n  {service}:\n" in text
    assert 'LISTINGS_PGBOUNCER: "true"' in text
    assert "@pgbouncer:6432/vmk_data" in text
    assert text.count("migrate: {condition: service_completed_successfully}") == 2
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in text
    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    assert "server mcp-1 mcp-1:3000" in haproxy and "server mcp-2 mcp-2:3000" in haproxy


def test_the_balancer_retries_as_the_tested_one_does():
    tested = fleet.haproxy_cfg(listen_port=1, servers=[2], stats_socket=DEPLOY / "x")
    shipped = (DEPLOY / "haproxy.cfg").read_text()
    for line in (
        "retry-on all-retryable-errors",
        "option redispatch 1",
        "option http-buffer-request",
        "retries 3",
    ):
        assert line in tested and line in shipped


@pytest.mark.skipif(not shutil.which("haproxy", path="/usr/sbin:/usr/bin"), reason="no haproxy")
def test_haproxy_accepts_the_shipped_configuration():
    done = subprocess.run(
        [
            shutil.which("haproxy", path="/usr/sbin:/usr/bin") or "haproxy",
            "-c",
            "-f",
            str(DEPLOY / "haproxy.cfg"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr


def test_pgbouncer_gives_each_server_connection_the_session_settings_tested_here():
    shipped = (DEPLOY / "pgbouncer.ini").read_text()
    assert "pool_mode = transaction" in shipped
    query = fleet.pgbouncer_connect_query(
        fts_config=settings.FTS_CONFIG, statement_timeout_ms=int(settings.QUERY_TIMEOUT_SEC * 1000)
    )
    assert f"connect_query='{query}'" in shipped
