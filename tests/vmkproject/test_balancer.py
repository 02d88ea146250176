"""Two server processes behind a real HAProxy (Debian `haproxy`) on a PostgreSQL `default`
database: one is SIGKILLed mid-soak and the client sees no failed call."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from bench import fleet
from demo import embedded as db


def primary() -> db.EmbeddedServer:
    return db.start_server(Path(settings.DATABASES["listings"]["EMBEDDED"]["DATA_DIR"]))


def soak_through_balancer(tmp_path: Path, **options) -> dict:
    return fleet.run_fleet_soak(
        primary=primary(),
        base_env={"DJANGO_SETTINGS_MODULE": "tests.settings"},
        base_dir=settings.BASE_DIR,
        log_dir=tmp_path,
        app_db_name="vmk_test_fleet_app",
        **options,
    )


def test_haproxy_config_retries_elsewhere_and_checks_health(tmp_path):
    text = fleet.haproxy_cfg(listen_port=8000, servers=[3001, 3002], stats_socket=tmp_path / "s")
    assert "retry-on all-retryable-errors" in text
    assert "option redispatch 1" in text
    assert "server s1 127.0.0.1:3001 check" in text
    assert "server s2 127.0.0.1:3002 check" in text


def test_one_server_killed_mid_soak_leaves_no_failed_call_and_one_audit_table(
    listings_db, tmp_path
):
    report = soak_through_balancer(tmp_path, clients=4, seconds=24, kill_at=8)
    print("soak through the balancer:", report)  # the figures the issue asks for
    assert report["calls"] > 40
    assert report["failed_calls"] == 0, report
    assert [event["event"] for event in report["events"]] == ["server 1 SIGKILLed"]
    # Both answered before the kill (round robin), the survivor alone after it.
    assert report["balancer"]["s1"]["hrsp_2xx"] > 0
    assert report["balancer"]["s2"]["hrsp_2xx"] > report["balancer"]["s1"]["hrsp_2xx"]
    # One audit table on PostgreSQL holds both processes' calls: more rows than the
    # survivor wrote (its /metrics count), so the killed one's are there too.
    assert report["audit_rows_written_by_survivors"] > 0
    assert report["audit_rows_written_by_survivors"] < report["audit_rows"]
    assert report["server_logs_with_tracebacks"] == 0


@pytest.mark.slow
def test_through_pgbouncer_with_a_standby_stopped_and_a_server_killed(listings_db, tmp_path):
    report = soak_through_balancer(
        tmp_path, clients=8, seconds=60, kill_at=30, standby_stop_at=15, pgbouncer=True
    )
    print("soak through the balancer, PgBouncer and a standby:", report)
    assert report["failed_calls"] == 0, report
    assert report["audit_rows_written_by_survivors"] < report["audit_rows"]
