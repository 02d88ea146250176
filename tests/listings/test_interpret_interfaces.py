"""The admin's search page and search_listings read the request too, and can be told not to."""

from __future__ import annotations

import json
import re
from html import unescape
from io import StringIO
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

pytestmark = [
    pytest.mark.django_db(databases=["default", "listings"]),
    pytest.mark.usefixtures("listings_access"),
]

SEMANTIC = reverse("admin:listings_propertylisting_semantic")
REQUEST = "двокімнатна квартира у Львові з балконом"


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-not-used")
    client.force_login(user)
    return client


def test_the_admin_page_shows_what_it_read_as_removable_chips(staff):
    response = staff.get(SEMANTIC, {"query": REQUEST, "mode": "hybrid"})
    assert response.status_code == 200
    chips = response.context["chips"]
    assert [chip["label"] for chip in chips] == [
        "2 кімнати",
        "Квартира",
        "Львів",
        "з балконом",
    ]
    body = unescape(response.content.decode())
    assert "Зрозуміли:" in body
    page = response.context["page"]
    assert all(card.city == "Львів" and card.rooms_count == 2 for card in page.listings)
    # Removing the city chip searches again without the words it was read from.
    removed = parse_qs(urlsplit(chips[2]["remove"]).query)
    assert removed["query"] == ["двокімнатна квартира з балконом"]
    again = staff.get(SEMANTIC, {k: v[0] for k, v in removed.items()})
    assert "Львів" not in [chip["label"] for chip in again.context["chips"]]


def test_the_admin_page_can_search_the_text_as_it_is(staff):
    response = staff.get(SEMANTIC, {"query": REQUEST, "mode": "semantic", "interpret": "0"})
    assert response.status_code == 200
    assert response.context["chips"] == []
    assert response.context["page"].interpreted is None
    assert "Зрозуміли:" not in unescape(response.content.decode())


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_search_listings_reads_the_request_unless_told_not_to():
    table = run("search_listings", REQUEST, "--mode", "text", "--limit", "5")
    assert "Зрозуміли: 2 кімнати · Квартира · Львів · з балконом" in table
    read = json.loads(run("search_listings", REQUEST, "--mode", "hybrid", "--json"))
    assert read["interpreted"]["filters"]["city"] == "Львів"
    assert all(card["city"] == "Львів" for card in read["listings"])
    plain = json.loads(
        run("search_listings", REQUEST, "--mode", "hybrid", "--json", "--no-interpret")
    )
    assert plain["interpreted"] is None
    assert "Зрозуміли" not in run("search_listings", REQUEST, "--no-interpret", "--limit", "3")


REFUSED = "квартира у Львові на 300 поверсі"


def test_a_value_no_filter_accepts_is_shown_as_not_applied(staff):
    response = staff.get(SEMANTIC, {"query": REFUSED, "mode": "hybrid"})
    assert response.status_code == 200
    assert [chip["label"] for chip in response.context["chips"]] == ["Квартира", "Львів"]
    body = unescape(response.content.decode())
    assert response.context["not_applied"] == ["поверх: значення поза межами, які приймає фільтр"]
    assert "Не застосовано: поверх: значення поза межами" in " ".join(body.split())
    assert all(card.city == "Львів" for card in response.context["page"].listings)
    table = run("search_listings", REFUSED, "--mode", "text", "--limit", "3")
    assert "Зрозуміли: Квартира · Львів" in table
    assert "not applied: Filter 'floor': input should be less than or equal to 200." in table


def test_an_order_sorts_the_full_text_table_and_is_not_applied_where_relevance_ranks(staff):
    cheapest = "найдешевші квартири у Львові"
    table = run("search_listings", cheapest, "--mode", "text", "--limit", "3")
    assert "Зрозуміли: спочатку дешевші · Квартира · Львів" in table
    assert "not applied" not in table
    ranked = run("search_listings", cheapest, "--mode", "hybrid", "--limit", "3")
    assert "not applied: Order 'price_asc'" in ranked
    response = staff.get(SEMANTIC, {"query": cheapest, "mode": "hybrid"})
    body = " ".join(unescape(response.content.decode()).split())
    assert "Не застосовано: «спочатку дешевші»: пошук за змістом ранжує за схожістю" in body
    assert "Order" not in body
    newest = staff.get(SEMANTIC, {"query": "нові оголошення квартир у Львові", "mode": "semantic"})
    assert "Не застосовано: «спочатку новіші»" in " ".join(
        unescape(newest.content.decode()).split()
    )
    oldest = staff.get(SEMANTIC, {"query": "квартири у Львові, sort by date ascending"})
    assert "Не застосовано: «спочатку старіші»: такого порядку пошук не дає" in " ".join(
        unescape(oldest.content.decode()).split()
    )


EMPTIED = "двокімнатна квартира у Львові до 5 доларів"


def test_an_empty_page_offers_the_chip_whose_removal_lets_listings_in(staff):
    response = staff.get(SEMANTIC, {"query": EMPTIED, "mode": "hybrid"})
    assert response.status_code == 200
    chips = {chip["label"]: chip for chip in response.context["chips"]}
    price = next(chip for label, chip in chips.items() if "$" in label or "USD" in label)
    assert int(price["if_removed"]) > 0  # the test database has under 1 000 such listings
    assert all(chip["if_removed"] is None for chip in chips.values() if chip is not price)
    body = unescape(response.content.decode())
    assert "Нічого не знайдено." in body
    assert f"Без «{price['label']}» знайдеться {price['if_removed']}" in body
    again = staff.get(SEMANTIC, parse_qs(urlsplit(price["remove"]).query, keep_blank_values=True))
    # hybrid ranks every listing that matches (each has an embedding here), all of them
    # counted: both rankings ended before their candidates did
    assert again.context["page"].total == int(price["if_removed"])
    assert again.context["page"].total_exact
    table = run("search_listings", EMPTIED, "--mode", "text", "--limit", "3")
    assert f"without max_price: {price['if_removed']} listings" in table


def test_a_hybrid_page_counts_every_listing_under_its_filters_as_semantic_does(staff):
    # Each listing under the filters is one hybrid ranks: its total is semantic's, not the
    # 50 candidates it fused (it said "щонайменше 50" where thousands matched).
    asked = {"query": "квартира", "interpret": "0"}
    page = staff.get(SEMANTIC, asked | {"mode": "hybrid"}).context["page"]
    semantic = staff.get(SEMANTIC, asked | {"mode": "semantic"}).context["page"]
    assert not page.total_exact and page.total == semantic.total > 50
    body = unescape(staff.get(SEMANTIC, asked | {"mode": "hybrid"}).content.decode())
    assert f"Знайдено: приблизно {page.total};" in body and "щонайменше" not in body


def test_each_bounded_filter_is_named_in_ukrainian_where_not_applied():
    from listings.admin.semantic import _filter_field

    named = {
        name: _filter_field(name)
        for name in (
            "max_floor",
            "min_area",
            "max_rooms",
            "rooms_count",
            "min_price_per_m2",
            "max_metro_distance",
            "min_building_year",
            "published_after",
            "published_before",
            "no_such_filter",
        )
    }
    assert named == {
        "max_floor": "поверх",
        "min_area": "загальна площа, м²",
        "max_rooms": "кімнат",
        "rooms_count": "кімнат",
        "min_price_per_m2": "ціна за м²",
        "max_metro_distance": "відстань до метро, м",
        "min_building_year": "рік побудови",
        "published_after": "опубліковано",
        "published_before": "опубліковано",
        "no_such_filter": "no_such_filter",
    }


def test_the_admin_and_search_listings_show_the_words_searched_in_ukrainian_too(staff):
    response = staff.get(SEMANTIC, {"query": "дом с участком", "mode": "hybrid"})
    body = " ".join(re.sub(r"<[^>]+>", "", unescape(response.content.decode())).split())
    assert "шукаємо текст: «участком» (і як пишуть в оголошеннях: «участком» → «ділянкою»)" in body
    assert response.context["page"].filters["fulltext_mode"] == "fulltext"
    table = run("search_listings", "house with a garden", "--mode", "text", "--limit", "3")
    assert "text: garden\nin Ukrainian too: garden → сад" in table
    assert table.startswith("mode: fulltext ")
