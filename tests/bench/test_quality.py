"""bench_quality on the test database: the labelled set, the metrics and the floors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench import quality

pytestmark = pytest.mark.usefixtures("listings_access")


def test_the_labelled_set_covers_what_the_issue_asks():
    requests = quality.load_requests()
    assert len(requests) >= 80
    langs = [r["lang"] for r in requests]
    assert langs.count("ru") >= 10 and langs.count("en") >= 5
    assert sum(r["typo"] for r in requests) >= 5
    uk = [r for r in requests if r["lang"] == "uk" and not r["typo"]]
    assert sum(r["numeric"] for r in uk) >= 20 and sum(not r["numeric"] for r in uk) >= 20
    assert len({r["id"] for r in requests}) == len(requests)


def test_ndcg_rewards_hits_near_the_top():
    assert quality.ndcg([True] * 10, 50) == pytest.approx(1.0)
    assert quality.ndcg([False] * 10, 50) == 0.0
    assert quality.ndcg([True, False], 1) == pytest.approx(1.0)
    assert quality.ndcg([False, True], 1) < quality.ndcg([True, False], 1)
    assert 0.0 < quality.ndcg([True, False], 2) < 1.0


def test_bench_quality_on_the_test_database(tmp_path):
    out = tmp_path / "quality.json"
    printed = StringIO()
    call_command("bench_quality", "--out", str(out), stdout=printed)
    assert "hybrid+interpret" in printed.getvalue()
    result = json.loads(out.read_text("utf-8"))
    runs = result["runs"]
    assert set(runs) == {
        "semantic",
        "semantic+interpret",
        "text",
        "text+interpret",
        "hybrid",
        "hybrid+interpret",
    }
    assert not result["skipped"], "every request has relevant listings in the test data"
    assert result["read_beyond"] == {}
    assert "read beyond the judge: none" in printed.getvalue()
    assert not [r for r in result["per_request"] if r["error"]]
    # Floors a little under what the test database gives (see the README's table).
    hybrid = runs["hybrid+interpret"]
    assert hybrid["all"]["ndcg10"] >= 0.80
    assert hybrid["numeric"]["p10"] >= 0.85
    # Every request with a numeric constraint: at least 0.95 of its top 10 meet it.
    assert hybrid["numeric"]["satisfied_min"] >= quality.SATISFIED_TARGET
    assert hybrid["numeric"]["below_target"] == []
    assert hybrid["typos"]["ndcg10"] >= 0.95  # one-letter typos and look-alike letters read
    # Hybrid is at least as good as the better single mode on every slice; on the Russian
    # one within 0.02 of full text: three of its requests name a feature full text finds
    # ("квартира в хрущевке", read as "хрущовці"), where the offline embedder's semantic
    # side ranks poorly and fusing it costs 0.13-0.21 each, as for the same requests in
    # Ukrainian (0.982 against 0.995 on this database; e5's semantic side does not: 0.995
    # against 0.995, README).
    for slice_name in ("all", "uk", "ru", "en", "numeric", "no_numeric"):
        best = max(runs[f"{mode}+interpret"][slice_name]["ndcg10"] for mode in ("semantic", "text"))
        allowed = 0.02 if slice_name == "ru" else 0.005
        assert hybrid[slice_name]["ndcg10"] >= best - allowed, slice_name
    for slice_name in ("all", "uk", "ru", "numeric"):
        assert hybrid[slice_name]["ndcg10"] > runs["hybrid"][slice_name]["ndcg10"] + 0.1
        assert runs["text+interpret"][slice_name]["ndcg10"] > runs["text"][slice_name]["ndcg10"]


def test_no_labelled_request_is_read_into_a_filter_it_does_not_ask_for():
    """What nDCG cannot see: "apartment with a pool in Kyiv" read as the district Поділ
    still ranks apartments in Київ. Each request read with the test database's places."""
    beyond = {r["id"]: quality.read_beyond(r) for r in quality.load_requests()}
    assert {key: value for key, value in beyond.items() if value} == {}


def test_a_filter_read_beyond_the_judge_is_reported():
    request = {"query": "apartment in Kyiv, 5th floor", "judge": {"city": "Київ"}}
    assert quality.read_beyond(request) == {"property_type": "apartment", "floor": 5}
    implied = {**request, "implied": ["property_type"]}
    assert quality.read_beyond(implied) == {"floor": 5}
    # a named value other than the judge's: "please" once read as "lease", a rent
    sale = {"query": "flat for rent in Kyiv", "judge": {"city": "Київ", "deal_type": "sale"}}
    assert quality.read_beyond(sale) == {"property_type": "apartment", "deal_type": "rent_long"}
