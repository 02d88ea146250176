"""The listings alias's settings: DB_* parts, socket directories, IPv6, options from the URL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from vmkproject import dbsettings

ROOT = Path(__file__).resolve().parents[2]
OURS = "-c default_transaction_read_only=on -c statement_timeout=10000"
DB_VARIABLES = ("LISTINGS_DATABASE_URL", "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD")

PRINT_SETTINGS = (
    "import json; from django.conf import settings; "
    "d = settings.DATABASES['listings']; "
    "print(json.dumps({k: d[k] for k in ('HOST', 'PORT', 'NAME', 'USER')} "
    "| {'options': d['OPTIONS']['options'], 'embedded': settings.EMBEDDED_DB}))"
)
CONNECT = (
    "import django, json; django.setup(); from django.db import connections; "
    "c = connections['listings']; cur = c.cursor(); "
    "cur.execute('SHOW default_transaction_read_only'); ro = cur.fetchone()[0]; "
    "cur.execute('SHOW search_path'); sp = cur.fetchone()[0]; "
    "cur.execute('SELECT count(*) FROM property_listings'); n = cur.fetchone()[0]; "
    "print(json.dumps({'read_only': ro, 'search_path': sp, 'rows': n})); "
    "c.close_pool()"
)


def run_python(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if key not in DB_VARIABLES}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "vmkproject.settings",
            "VMK_DATA_DIR": str(tmp_path),
            "SECRET_KEY": "settings-test",
            "EMBEDDER": "offline",
            "QUERY_TIMEOUT_SEC": "10",
            "DB_POOL_TIMEOUT_SEC": "60",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_for(tmp_path: Path, **env: str) -> dict:
    done = run_python(PRINT_SETTINGS, tmp_path, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("/var/run/postgresql", "/var/run/postgresql"),
        ("/tmp/xyz", "/tmp/xyz"),
        ("::1", "::1"),
        ("[::1]", "::1"),
        ("db.internal", "db.internal"),
        ("10.0.0.5", "10.0.0.5"),
    ],
)
def test_db_host_is_taken_as_given(host, expected):
    config = dbsettings.from_parts(
        host=host, port="5433", name="vmk_data", user="reader", password="p@ss:/word"
    )
    assert config["HOST"] == expected
    assert config["PORT"] == "5433"
    assert config["PASSWORD"] == "p@ss:/word"


@pytest.mark.parametrize(
    ("url", "host", "port"),
    [
        ("postgres://u:p@[::1]:5432/db", "::1", "5432"),
        ("postgres://u:p@%2Fvar%2Frun%2Fpostgresql/db", "/var/run/postgresql", ""),
        ("postgres://u@/db?host=/var/run/postgresql", "/var/run/postgresql", ""),
        ("postgres://u:p@db.internal:6432/db", "db.internal", "6432"),
    ],
)
def test_database_url_hosts(url, host, port):
    config = dbsettings.from_url(url)
    assert (config["HOST"], config["PORT"], config["NAME"]) == (host, port, "db")
    assert "host" not in config["OPTIONS"]


def test_options_in_the_url_are_merged_with_ours():
    config = dbsettings.from_url("postgres://u@h/db?options=-c%20search_path%3Dlistings,public")
    dbsettings.merge_session_options(config, OURS)
    assert config["OPTIONS"]["options"] == f"-c search_path=listings,public {OURS}"


def test_without_options_ours_alone():
    config = dbsettings.from_url("postgres://u@h/db")
    dbsettings.merge_session_options(config, OURS)
    assert config["OPTIONS"]["options"] == OURS


def test_settings_module_with_db_parts(tmp_path):
    seen = settings_for(tmp_path, DB_HOST="::1", DB_PORT="5433", DB_USER="r", DB_NAME="n")
    assert seen == {
        "HOST": "::1",
        "PORT": "5433",
        "NAME": "n",
        "USER": "r",
        "options": OURS,
        "embedded": False,
    }
    seen = settings_for(tmp_path, DB_HOST="/var/run/postgresql")
    assert (seen["HOST"], seen["PORT"], seen["NAME"]) == ("/var/run/postgresql", "5432", "vmk_data")


def test_settings_module_merges_url_options(tmp_path):
    seen = settings_for(
        tmp_path,
        LISTINGS_DATABASE_URL="postgres://u@h/db?options=-c%20search_path%3Dlistings,public",
    )
    assert seen["options"] == f"-c search_path=listings,public {OURS}"


def test_ipv6_host_that_is_down_is_a_clear_failure_without_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "manage.py", "check_listings_db"],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k not in DB_VARIABLES},
            "DJANGO_SETTINGS_MODULE": "vmkproject.settings",
            "VMK_DATA_DIR": str(tmp_path),
            "SECRET_KEY": "settings-test",
            "EMBEDDER": "offline",
            "DB_HOST": "::1",
            "DB_PORT": "9",  # discard: nothing listens
            "DB_POOL_TIMEOUT_SEC": "2",
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode != 0
    assert "the listings database is not reachable" in done.stdout
    assert "Traceback" not in done.stderr + done.stdout


@pytest.fixture
def socket_dir(listings_db) -> str:
    return str(listings_db.settings_dict["HOST"])


def test_a_real_connection_over_a_socket_directory(socket_dir, tmp_path):
    assert socket_dir.startswith("/")
    done = run_python(CONNECT, tmp_path, DB_HOST=socket_dir, DB_USER="vmk_reader")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["read_only"] == "on"
    assert seen["rows"] > 0


def test_a_real_connection_keeps_the_url_search_path_and_stays_read_only(socket_dir, tmp_path):
    url = f"postgres://vmk_reader@{quote(socket_dir, safe='')}/vmk_data?options=" + quote(
        "-c search_path=public,pg_catalog"
    )
    done = run_python(CONNECT, tmp_path, LISTINGS_DATABASE_URL=url)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"read_only": "on", "search_path": "public,pg_catalog", "rows": seen["rows"]}
    assert seen["rows"] > 0


def test_the_default_sqlite_database_writes_ahead(tmp_path):
    """Answers wait for their audit rows: a commit in the write-ahead log took 0.26 ms here,
    in a rollback journal 1.2 ms; a killed process still loses no committed row."""
    code = (
        "import django, json; django.setup(); from django.db import connections; "
        "cur = connections['default'].cursor(); cur.execute('PRAGMA journal_mode'); "
        "mode = cur.fetchone()[0]; cur.execute('PRAGMA synchronous'); "
        "print(json.dumps({'mode': mode, 'synchronous': cur.fetchone()[0]}))"
    )
    result = run_python(code, tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'own.sqlite3'}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"mode": "wal", "synchronous": 1}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"HNSW_EF_SEARCH": "2000"},
            "HNSW_EF_SEARCH must be at least 1 and at most 1000 (it is 2000)",
        ),
        ({"HNSW_MAX_SCAN_TUPLES": "0"}, "HNSW_MAX_SCAN_TUPLES must be at least 1 and at most"),
        ({"QUERY_TIMEOUT_SEC": "-1"}, "QUERY_TIMEOUT_SEC must be more than 0 (it is -1)"),
        ({"FTS_RANK_CANDIDATES": "0"}, "FTS_RANK_CANDIDATES must be at least 1 (it is 0)"),
        ({"MAX_LIMIT": "0"}, "MAX_LIMIT must be at least 1 (it is 0)"),
        ({"MCP_GZIP_MIN_BYTES": "-1"}, "MCP_GZIP_MIN_BYTES must be at least 0 (it is -1)"),
        (
            {"DB_POOL_MIN": "5", "DB_POOL_MAX": "2"},
            "DB_POOL_MIN (5) must not be more than DB_POOL_MAX (2)",
        ),
        (
            {"HNSW_ITERATIVE_SCAN": "sometimes"},
            "HNSW_ITERATIVE_SCAN must be one of: off, relaxed_order, strict_order",
        ),
    ],
)
def test_a_setting_out_of_range_stops_the_start_naming_it(tmp_path, env, message):
    # Each of these started a server whose calls then failed: a database error, every
    # connection "busy", every full-text page empty, every limit refused.
    done = run_python("import vmkproject.settings", tmp_path, **env)
    assert done.returncode != 0
    assert "ImproperlyConfigured: " + message in done.stderr


SECRET = "s3cret-pw"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HNSW_EF_SEARCH": "2000"}, "HNSW_EF_SEARCH must be at least 1 and at most 1000"),
        # not of the setting's type: int()'s ValueError named no setting
        ({"DB_POOL_MIN": "two"}, "DB_POOL_MIN must be a whole number (it is 'two')"),
        ({"HNSW_EF_SEARCH": "1.5"}, "HNSW_EF_SEARCH must be a whole number (it is '1.5')"),
        # any word but true, on, yes... was read as false
        ({"DEBUG": "ture"}, "DEBUG must be true or false (it is 'ture')"),
        ({"MCP_ACCESS_LOG": "sometimes"}, "MCP_ACCESS_LOG must be true or false"),
        # django-environ warned with the parsed URL, password included, then failed elsewhere
        (
            {"LISTINGS_DATABASE_URL": f"mysql://reader:{SECRET}@db/vmk"},
            "LISTINGS_DATABASE_URL must be a PostgreSQL URL, "
            "postgres://user:password@host:port/name (it begins mysql://)",
        ),
        (
            {"LISTINGS_DATABASE_URL": f"reader:{SECRET}@db/vmk"},
            "LISTINGS_DATABASE_URL must be a PostgreSQL URL",
        ),
        (
            {"LISTINGS_DATABASE_URL": f"postgres://reader:{SECRET}@db:5432/"},
            "(it names no database)",
        ),
        (
            {"LISTINGS_REPLICA_URLS": f"postgres://r@db/vmk,http://r:{SECRET}@db2/vmk"},
            "LISTINGS_REPLICA_URLS must be a PostgreSQL URL",
        ),
        ({"DATABASE_URL": f"{SECRET}.sqlite3"}, "DATABASE_URL must be a database URL"),
        # a message that already points at .env.example does not say so twice
        (
            {"LISTINGS_DATABASE_URL": f"postgres://r:{SECRET}@db/vmk", "SECRET_KEY": ""},
            "SECRET_KEY must be set when serving a real listings database (see .env.example)",
        ),
    ],
)
def test_manage_py_names_a_wrong_setting_in_one_line(tmp_path, env, message):
    """Every command (serve, migrate, check_listings_db) starts through manage.py: a wrong
    setting is one line on stderr naming it, with no traceback and no password."""
    done = subprocess.run(
        [sys.executable, "manage.py", "check_listings_db"],
        cwd=ROOT,
        env={**os.environ, "VMK_DATA_DIR": str(tmp_path), "SECRET_KEY": "t", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and message in line and line.endswith("(see .env.example)")
    assert line.count(".env.example") == 1
    assert SECRET not in line


def test_the_spellings_of_true_and_false_are_still_read(tmp_path):
    words = {"DEBUG": "Yes", "MCP_ACCESS_LOG": "on", "SQL_COMMENTS": "0", "SECURE_SSL_REDIRECT": ""}
    done = run_python(
        f"from django.conf import settings as s; print([getattr(s, k) for k in {list(words)!r}])",
        tmp_path,
        **words,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "[True, True, False, False]"


def test_the_bounds_themselves_are_accepted(tmp_path):
    bounds = {
        "HNSW_EF_SEARCH": "1000",
        "MAX_LIMIT": "1",
        "DB_POOL_MIN": "0",
        "MCP_PORT": "0",
        "MCP_GZIP_MIN_BYTES": "0",
    }
    done = run_python("import vmkproject.settings", tmp_path, **bounds)
    assert done.returncode == 0, done.stderr
