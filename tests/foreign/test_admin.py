"""Every admin page, /health and the static files, over HTTP as a logged-in superuser."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from listings import admin as listings_admin

from . import builder
from .builder import Hostile
from .conftest import admin_client

VARIANTS = list(builder.VARIANTS)
CHANGELIST = "/admin/listings/propertylisting/"
SEMANTIC = "/admin/listings/propertylisting/semantic/"
FILTER_LINK = re.compile(r'<a href="(\?[^"]+)"')
SORT_LINK = re.compile(
    r'<th scope="col" class="sortable[^"]*">\s*<div class="text"><a href="(\?[^"]*o=[^"]+)"'
)
READONLY = re.compile(r'<div class="readonly">(.*?)</div>', re.DOTALL)


def detail(listing_id: int) -> str:
    return f"{CHANGELIST}{listing_id}/change/"


def get(client: httpx.Client, path: str, **params: str) -> httpx.Response:
    response = client.get(path, params=params)
    assert response.status_code == 200, f"{path} {params}: HTTP {response.status_code}"
    return response


@pytest.mark.parametrize("name", VARIANTS)
def test_changelist_every_filter_search_and_sorting(foreign, recorder, name):
    run = foreign[name]
    with admin_client(run, recorder) as client:
        page = get(client, CHANGELIST).text
        links = sorted({html.unescape(link) for link in FILTER_LINK.findall(page)})
        filters = [link for link in links if "o=" not in link and "p=" not in link]
        assert len(filters) > 10, "the sidebar filter links were not found"
        for link in filters:
            response = client.get(CHANGELIST + link)
            assert response.status_code in (200, 302), f"{link}: HTTP {response.status_code}"
        sorts = sorted({html.unescape(link) for link in SORT_LINK.findall(page)})
        assert sorts, "no sortable column links"
        for link in sorts:
            get(client, CHANGELIST + link)
            get(client, CHANGELIST + link.replace("o=", "o=-", 1))
        for query in ("квартира", "квартири з балконом біля метро", "Квартира", "<b>", "🏠"):
            get(client, CHANGELIST, q=query)
        get(client, CHANGELIST, q="квартира", p="2")
        get(client, CHANGELIST, listing_status__exact="inactive")
    assert not recorder.problems(), recorder.problems()


@pytest.mark.parametrize("name", VARIANTS)
def test_detail_pages_of_normal_and_hostile_rows(foreign, recorder, name):
    run = foreign[name]
    hostile = [
        Hostile.ALL_NULL, Hostile.HTML, Hostile.EMOJI, Hostile.RUSSIAN, Hostile.CONTROL,
        Hostile.NULL_CURRENCY, Hostile.GRN, Hostile.BLOCK, Hostile.EURO_REPAIR, Hostile.NULL_STATUS,
        Hostile.ZERO_VECTORS[0], Hostile.HUGE[0],
    ]  # fmt: skip
    with admin_client(run, recorder) as client:
        for listing_id in [run.facts["normal_id"], *hostile]:
            response = get(client, detail(listing_id))
            assert "<script>alert" not in response.text, f"{listing_id}: unescaped HTML"
        get(client, "/admin/listings/propertytype/")
        get(client, "/admin/listings/propertytype/1/change/")
        get(client, "/admin/")
    assert not recorder.problems(), recorder.problems()


@pytest.mark.parametrize("name", VARIANTS)
def test_semantic_and_hybrid_search_pages(foreign, recorder, name):
    run = foreign[name]
    with admin_client(run, recorder) as client:
        for mode in ("semantic", "hybrid"):
            page = get(client, SEMANTIC, query="затишна квартира біля парку", mode=mode).text
            assert "/change/" in page, f"{mode}: no result links"
            get(client, SEMANTIC, query="квартира", mode=mode, city="Київ", deal_type="sale")
        get(client, SEMANTIC)
    assert not recorder.problems(), recorder.problems()


@pytest.mark.parametrize("name", VARIANTS)
def test_health_reports_the_database(foreign, recorder, name):
    health = httpx.get(f"{foreign[name].url}/health")
    assert health.status_code == 200
    body = health.json()
    assert body["database"]["reachable"] is True and body["embedder"]["reachable"] is True


# --- item 3: naive timestamps, dates, float prices ------------------------------------------


def test_item3_changelist_and_detail_with_other_column_types(collector, recorder):
    with admin_client(collector, recorder) as client:
        changelist = client.get(CHANGELIST)
        assert changelist.status_code == 200, (
            f"item 3: changelist on naive timestamps answers HTTP {changelist.status_code}"
        )
        page = client.get(detail(Hostile.GRN))
        assert page.status_code == 200, (
            f"item 3: detail page with a double precision price answers HTTP {page.status_code}"
        )


# --- item 5: unknown values show as themselves; NULL as "—" ----------------------------------


def test_item5_admin_shows_unknown_values_as_themselves_and_null_as_a_dash(collector, recorder):
    with admin_client(collector, recorder) as client:
        block = client.get(detail(Hostile.BLOCK))
        nulls = client.get(detail(Hostile.ALL_NULL))
    assert block.status_code == 200 and nulls.status_code == 200
    values = [html.unescape(v).strip() for v in READONLY.findall(block.text)]
    assert "block" in values, "item 5: building_type 'block' is not shown as itself"
    empty = [html.unescape(v).strip() for v in READONLY.findall(nulls.text)]
    assert "None" not in empty, "item 5: a NULL shows as 'None'"
    assert "—" in empty and "-" not in empty, f"item 5: NULL is not shown as '—': {set(empty)}"
    # no vector and no text to make one from: nothing to compare it with, said so
    assert listings_admin.NO_EMBEDDING_NOTE in html.unescape(nulls.text)


# --- item 1: admin search and the hybrid page without the `ukrainian` configuration --------


def test_item1_admin_text_search_on_simple(bare, recorder):
    with admin_client(bare, recorder) as client:
        search = client.get(CHANGELIST, params={"q": "квартира"})
        hybrid = client.get(SEMANTIC, params={"query": "квартира з балконом", "mode": "hybrid"})
    assert search.status_code == 200, f"item 1: admin search answers HTTP {search.status_code}"
    assert hybrid.status_code == 200, f"item 1: hybrid page answers HTTP {hybrid.status_code}"


# --- item 11: static files without collectstatic ---------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_item11_the_admin_is_styled(foreign, name):
    response = httpx.get(f"{foreign[name].url}/static/admin/css/base.css")
    assert response.status_code == 200, (
        f"item 11: /static/admin/css/base.css: HTTP {response.status_code}"
    )
    assert "text/css" in response.headers.get("content-type", "")
