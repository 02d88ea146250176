"""Every management command as a subprocess against both foreign variants."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from listings.embedders import OLLAMA_UNREACHABLE

from . import builder, expect
from .builder import Hostile
from .conftest import dead_ollama_url

VARIANTS = list(builder.VARIANTS)
QUERY = "двокімнатна квартира біля метро з балконом"


def clean(result: subprocess.CompletedProcess[str], where: str, socket_dir: str) -> None:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, f"{where}: a traceback\n{result.stderr[-3000:]}"
    assert not expect.leaks(result.stdout, socket_dir), f"{where}: {expect.leaks(result.stdout)}"


def succeeded(run: Any, *args: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    result = run.manage(*args, **env)
    clean(result, " ".join(args), run.embedded.socket_dir)
    assert result.returncode == 0, f"{' '.join(args)} failed: {result.stderr[-2000:]}"
    return result


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("mode", ["semantic", "text", "hybrid"])
def test_search_listings_in_each_mode_as_json_and_table(foreign, name, mode):
    run = foreign[name]
    # Without morphology (variant B) a sentence's exact word forms may be in no listing.
    query = "квартира" if mode == "text" else QUERY
    page = json.loads(
        succeeded(
            run, "search_listings", query, "--mode", mode, "--json", "--limit", "5",
            "--max-price", "3000000", "--currency", "UAH",
        ).stdout
    )  # fmt: skip
    assert page["listings"], f"{mode}: no results"
    table = succeeded(run, "search_listings", QUERY, "--mode", mode, "--limit", "5").stdout
    assert table.startswith("mode: ") and len(table.splitlines()) >= 3


@pytest.mark.parametrize("name", VARIANTS)
def test_similar_listings_and_stats(foreign, name):
    run = foreign[name]
    normal = str(run.facts["normal_id"])
    page = json.loads(succeeded(run, "similar_listings", normal, "--json", "--limit", "4").stdout)
    assert page["mode"] == "similar" and len(page["listings"]) == 4
    assert "similarity" in succeeded(run, "similar_listings", normal, "--limit", "4").stdout
    # an all-zero vector: the listing's text is embedded now, and the table says so
    zero = succeeded(run, "similar_listings", str(Hostile.ZERO_VECTORS[0]), "--limit", "3")
    assert "has an empty (all-zero) stored embedding" in zero.stdout.splitlines()[1], (
        f"item 7: similar_listings of a zero vector: {zero.stdout[-500:]}"
    )
    nothing = run.manage("similar_listings", str(Hostile.ALL_NULL))  # no vector, no text
    clean(
        nothing, "similar_listings of a listing with no vector and no text", run.embedded.socket_dir
    )
    assert nothing.returncode == 1 and "CommandError: not_found:" in nothing.stderr, (
        f"item 7: {nothing.stdout[-500:]} {nothing.stderr[-500:]}"
    )
    stats = json.loads(
        succeeded(
            run, "listing_stats", "--group-by", "city", "--json", "--in-currency", "UAH"
        ).stdout
    )
    assert stats["currency"] == "UAH" and stats["groups"]
    table = succeeded(
        run, "listing_stats", "--deal-type", "sale", "--group-by", "rooms_count"
    ).stdout
    assert "prices in USD" in table.splitlines()[0]
    # a city's report per deal type: "daily", outside the documented values, is read as
    # rent_short (a section of its own would name a deal type no filter takes back)
    report = succeeded(run, "market_report", "--city", builder.VOCAB_CITY, "--json")
    parts = json.loads(report.stdout)["by_deal_type"]
    deals = [part["deal_type"] for part in parts]
    assert "sale" in deals and "daily" not in deals and len(deals) == len(set(deals))
    assert all(part["trend"]["filters"]["deal_type"] == part["deal_type"] for part in parts)


# --- check_listings_db prints the truth ------------------------------------------------------


def test_check_listings_db_passes_on_the_collector_variant(collector):
    result = collector.check()
    clean(result, "check_listings_db", collector.embedded.socket_dir)
    assert result.returncode == 0, (
        "item 3/12: check_listings_db fails a database on which everything works:\n" + result.stdout
    )
    assert result.stdout.strip().endswith("The listings database has everything the project needs.")
    assert f"[ok  ] HNSW index: {builder.HNSW_INDEX}" in result.stdout


def test_check_listings_db_names_what_the_bare_variant_lacks(bare):
    result = bare.check()
    clean(result, "check_listings_db", bare.embedded.socket_dir)
    lines = result.stdout.splitlines()
    text_search = [line for line in lines if "text search" in line]
    assert text_search and not text_search[0].startswith("[ok"), (
        f"item 1: the missing 'ukrainian' configuration is not reported: {text_search}"
    )
    assert "simple" in text_search[0], f"item 1: the fallback is not named: {text_search}"
    hnsw = [line for line in lines if "HNSW" in line]
    assert hnsw and not hnsw[0].startswith("[ok"), f"item 9: {hnsw}"


@pytest.mark.parametrize("name", VARIANTS)
def test_advise_reads_a_catalog_unlike_ours(foreign, name):
    """Their HNSW index (or none), their btrees, and a staging schema with a table of the
    same name: the advice is about the table the server reads, and changes nothing."""
    run = foreign[name]
    text = succeeded(run, "check_listings_db", "--advise").stdout
    assert "-- HNSW index with a denser graph, replacing the old one" in text
    if name == "collector":
        assert f"DROP INDEX CONCURRENTLY {builder.HNSW_INDEX};" in text
    assert "-- now: embedding is vector(768) with storage EXTERNAL" in text
    assert "ALTER TABLE property_listings ALTER COLUMN embedding SET STORAGE MAIN;" in text
    # no covering index: statistics read their table
    assert "-- covering index for statistics and market insight" in text
    assert "CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_property_listings_market" in text
    # Their read-only role may not read shared_preload_libraries: the check is left to them.
    assert "-- now: this role may not read shared_preload_libraries" in text
    assert "\nALTER SYSTEM SET shared_preload_libraries" not in text  # only commented out


@pytest.mark.parametrize("name", VARIANTS)
def test_item6_check_reports_null_statuses(foreign, name):
    run = foreign[name]
    output = run.check().stdout
    status = [line for line in output.splitlines() if "listing_status" in line]
    assert status and str(run.facts["null_status"]) in status[0], (
        f"item 6: check_listings_db does not report {run.facts['null_status']} NULL statuses"
    )


def test_item12_check_fails_with_ollama_down_naming_the_problem(collector):
    dead = dead_ollama_url()
    result = collector.manage("check_listings_db", OLLAMA_HOST=dead)
    clean(result, "check_listings_db", collector.embedded.socket_dir)
    assert result.returncode == 1, f"item 12: Ollama down passes:\n{result.stdout}"
    message = OLLAMA_UNREACHABLE.format(host=dead)
    assert any(
        line.startswith("[FAIL]") and message in line for line in result.stdout.splitlines()
    ), f"item 12: no FAIL line with {message!r}:\n{result.stdout}"


def test_item12_check_says_superuser_and_search_vector_coverage(collector):
    superuser = collector.manage(
        "check_listings_db",
        LISTINGS_DATABASE_URL=builder.url(collector.embedded, collector.variant.dbname, "postgres"),
    )
    clean(superuser, "check_listings_db", collector.embedded.socket_dir)
    assert any(
        expect.SUPERUSER_WORD in line and not line.startswith("[ok")
        for line in superuser.stdout.splitlines()
    ), f"item 12: a superuser role is not called out:\n{superuser.stdout}"
    coverage = [
        line
        for line in superuser.stdout.splitlines()
        if expect.SEARCH_VECTOR_WORD in line and "%" in line
    ]
    assert coverage, f"item 12: no search_vector coverage line:\n{superuser.stdout}"


# --- item 10: settings ----------------------------------------------------------------------


def test_item10_db_host_as_a_socket_directory(collector):
    result = collector.manage(
        "check_listings_db",
        LISTINGS_DATABASE_URL=None,
        DB_HOST=collector.embedded.socket_dir,
        DB_NAME=collector.variant.dbname,
        DB_USER=builder.READER,
        DB_PASSWORD="",
    )
    clean(result, "check_listings_db", collector.embedded.socket_dir)
    assert "[ok  ] connection" in result.stdout, (
        f"item 10: DB_HOST={collector.embedded.socket_dir} does not connect:\n"
        f"{result.stdout[-1000:]}{result.stderr[-1000:]}"
    )


def test_item10_db_host_ipv6_is_a_clear_failure(collector):
    result = collector.manage(
        "check_listings_db",
        LISTINGS_DATABASE_URL=None,
        DB_HOST="::1",
        DB_PORT=dead_ollama_url().rsplit(":", 1)[1],
        DB_NAME=collector.variant.dbname,
        # the pool waits this long for a connection that is refused (the suite's 30 s default
        # is for slow first connections; nothing will answer here)
        DB_POOL_TIMEOUT_SEC="2",
    )
    assert "Traceback" not in result.stderr, (
        f"item 10: DB_HOST=::1 crashes:\n{result.stderr[-1500:]}"
    )
    assert result.returncode == 1
    assert "[FAIL] connection" in result.stdout, f"item 10: {result.stdout[-500:]}"


def test_item10_options_in_the_url_are_merged(collector):
    # `staging` holds empty copies of the tables; the role default is not read-only (postgres),
    # so read-only sessions show that the project's own options were kept too.
    result = collector.manage(
        "check_listings_db",
        LISTINGS_DATABASE_URL=builder.url(
            collector.embedded,
            collector.variant.dbname,
            "postgres",
            "?options=-c%20search_path%3Dstaging,public",
        ),
    )
    clean(result, "check_listings_db", collector.embedded.socket_dir)
    assert "0 of 0 listings" in result.stdout, (
        f"item 10: options=-c search_path was dropped:\n{result.stdout}"
    )
    assert "[ok  ] read-only session" in result.stdout, (
        f"item 10: the URL's options replaced the read-only session options:\n{result.stdout}"
    )


# --- item 14: control characters in the table ------------------------------------------------


def test_item14_table_output_escapes_control_characters(collector):
    result = succeeded(
        collector, "search_listings", "--mode", "text", "--city", builder.CONTROL_CITY,
        "--listing-status", "any",
    )  # fmt: skip
    assert "дзвоником" in result.stdout
    assert "\x07" not in result.stdout, "item 14: BEL printed raw"
    assert "\u202e" not in result.stdout, "item 14: RTL override printed raw"
