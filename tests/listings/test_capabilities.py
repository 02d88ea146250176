"""listings.capabilities on the real test database and on scratch databases shaped otherwise."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.urls import reverse

from listings import capabilities, search
from listings.describe import describe_schema
from listings.filters import parse_filters
from listings.models import PropertyListing
from tests.scratch_db import ALT_CONFIG, embedded_server, make_scratch_database

pytestmark = pytest.mark.usefixtures("listings_access")

QUERY = "двокімнатна квартира біля метро з балконом"
MISSING = "no_such_config"


@pytest.fixture
def fresh_facts():
    search._recent.clear()
    yield
    search._recent.clear()


@pytest.fixture
def missing_config(settings, fresh_facts):
    settings.FTS_CONFIG = MISSING
    capabilities._warned.clear()  # once per process: this test's process is the suite's


def test_the_test_database_has_everything(fresh_facts):
    found = capabilities.current()
    assert (found.fts_config, found.fts_config_found, found.morphology) == (
        "ukrainian",
        True,
        True,
    )
    assert found.hnsw_index == "ix_property_listings_embedding_hnsw"
    assert found.gin_index == "ix_property_listings_search_vector_gin"
    assert found.warnings == ()


def test_a_missing_config_falls_back_to_simple_everywhere(missing_config):
    warning = capabilities.FTS_CONFIG_MISSING.format(config=MISSING, fallback="simple")
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logger = logging.getLogger("vmk.capabilities")  # the "vmk" loggers do not propagate
    logger.addHandler(handler)
    try:
        text = search.fulltext_search(query="квартира", limit=5)
        search._recent.clear()  # the cache expires: probed again, not warned again
        hybrid = search.hybrid_search(query=QUERY, limit=5)
    finally:
        logger.removeHandler(handler)
    assert (text.mode, text.fts_config, len(text.listings)) == ("fulltext", "simple", 5)
    assert hybrid.fts_config == "simple" and len(hybrid.listings) == 5
    assert seen.count(warning) == 1
    schema = describe_schema()
    assert schema["full_text"]["fts_config"] == "simple"
    assert schema["full_text"]["morphology"] is False
    assert warning in schema["database_warnings"]


@pytest.mark.django_db(databases=["default", "listings"])
def test_admin_search_and_hybrid_page_work_without_the_config(missing_config, client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw")
    client.force_login(user)
    changelist = reverse("admin:listings_propertylisting_changelist")
    found = client.get(changelist, {"q": "квартира"})
    assert found.status_code == 200
    assert "квартира" in found.content.decode().lower()
    page = client.get(
        reverse("admin:listings_propertylisting_semantic"),
        {"query": QUERY, "mode": "hybrid", "limit": "10"},
    )
    assert page.status_code == 200
    assert "Пошук не виконано" not in page.content.decode()


def test_morphology_is_judged_by_behaviour(listings_db):
    make_scratch_database("core_morphology", rows=5, alt_config=True)
    with embedded_server().connect("core_morphology") as conn, conn.cursor() as cursor:
        alt = capabilities.probe(cursor, ALT_CONFIG)
        assert (alt.fts_config, alt.morphology) == (ALT_CONFIG, True)
        assert "ukrainian_huns" in alt.dictionaries
        russian = capabilities.probe(cursor, "russian")  # a stemmer: 'квартир', not 'квартира'
        assert (russian.fts_config_found, russian.morphology) == (True, False)
        assert capabilities.NO_MORPHOLOGY.format(config="russian") in russian.warnings
        assert capabilities.probe(cursor, "simple").morphology is False


def _ranked(vector):
    """The HNSW branch's statement: no norm check (the cosine index holds no zero vector)."""
    base = PropertyListing.objects.filtered(parse_filters(None), search._rates())
    on_index = base.filter(embedding__isnull=False)
    return on_index.nearest(vector).with_metric(vector, "cosine").cards()[:10]


@pytest.mark.parametrize("prefer_index", [False, True])
def test_index_used_is_what_explain_shows(settings, fresh_facts, prefer_index):
    settings.EXACT_VECTOR_SEARCH_MAX_ROWS = 0
    source = PropertyListing.objects.with_embedding().order_by("id").first()
    vector = [float(x) for x in source.embedding]
    with connections["listings"].cursor() as cursor:
        cursor.execute(f"SET enable_seqscan = {'off' if prefer_index else 'on'}")
    try:
        page = search.similar_to_listing(listing_id=source.id, limit=10)
        with search.vector_search_settings(settings.HNSW_EF_SEARCH).held("listings"):
            plan = _ranked(vector).explain()
    finally:
        with connections["listings"].cursor() as cursor:
            cursor.execute("RESET enable_seqscan")
    uses_index = f"Index Scan using {search.HNSW_INDEX}" in plan
    # The HNSW branch stays on its index whatever else the planner may prefer (issue 13).
    assert uses_index
    # The index scan skips zero vectors by itself (test_foreign_core checks none comes back).
    assert "vector_norm(embedding)" not in plan
    assert page.index_used == (search.HNSW_INDEX if uses_index else search.EXACT_PATH)


def _check(url: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check_listings_db"],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "LISTINGS_DATABASE_URL": url,
            "EMBEDDER": "offline",
            **env,
        },
    )


def test_check_listings_db_reports_the_config_and_the_indexes(listings_db):
    url, _ = make_scratch_database("core_check", rows=20, ukrainian=False, alt_config=True)
    missing = _check(url)
    assert (
        "[WARN] text search config: 'ukrainian' does not exist (FTS_CONFIG): full-text "
        "search falls back to 'simple', without morphology"
    ) in missing.stdout
    assert "[ok  ] HNSW index: ix_property_listings_embedding_hnsw" in missing.stdout
    alt = _check(url, FTS_CONFIG=ALT_CONFIG)
    assert (
        f"[ok  ] text search config: '{ALT_CONFIG}': simple, ukrainian_huns, morphology"
    ) in alt.stdout
