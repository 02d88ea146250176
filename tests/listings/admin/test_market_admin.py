"""The "Ринок" dashboard and the market block of a listing's page, by the Django test client
and in a real headless Chromium (screenshots in tests/artifacts/)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from listings import market, search
from listings.admin.formatting import format_amount
from listings.models import PropertyListing

from .conftest import ARTIFACTS, CHROMIUM

MARKET = reverse("admin:listings_propertylisting_market")


def change_url(listing_id: int) -> str:
    return reverse("admin:listings_propertylisting_change", args=[listing_id])


def _planted_copy() -> PropertyListing:
    copy = (
        PropertyListing.objects.exclude(url_source__startswith="https://example-realty.ua/")
        .filter(listing_status="active", deal_type="sale")
        .order_by("id")
        .first()
    )
    assert copy is not None
    return copy


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-not-used")
    client.force_login(user)
    return client


def _chart_data(response) -> dict:
    found = re.search(
        r'<script id="market-data" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert found, "the page carries no chart data"
    return json.loads(unescape(found.group(1)))


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_dashboard_charts_come_from_the_search_layer(staff):
    response = staff.get(MARKET, {"city": "Київ", "deal_type": "sale", "rooms_count": "2"})
    assert response.status_code == 200
    data = _chart_data(response)
    filters = {"city": "Київ", "deal_type": "sale", "rooms_count": 2}
    stats = search.listing_stats(filters=filters, group_by="district")
    assert data["by_place"]["labels"] == [row.group for row in stats.groups]
    assert data["by_place"]["values"] == [row.median_price_per_m2 for row in stats.groups]
    trend = market.price_trends(filters=filters, period="month")
    assert data["trend"]["labels"] == [p.period for p in trend.series[0].points]
    assert data["trend"]["low_sample"] == [p.low_sample for p in trend.series[0].points]
    distribution = market.price_distribution(filters=filters)
    assert data["distribution"]["values"] == [band.count for band in distribution.bands]
    html = response.content.decode()
    assert "vendor/chartjs/chart.umd.min.js" in html and "Ринок" in html


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_a_rent_dashboard_is_in_hryvnias_and_its_three_charts_in_one_currency(staff):
    """Long rents in Київ are priced in UAH: the dashboard says UAH, and every chart's
    figures are the ones asked in UAH (the trend counts sold flats too, so left to itself
    it could pick another currency than the district table)."""
    filters = {"city": "Київ", "deal_type": "rent_long"}
    data = _chart_data(staff.get(MARKET, filters))
    assert data["currency"] == "UAH"
    stats = search.listing_stats(filters=filters, group_by="district", currency="UAH")
    assert data["by_place"]["values"] == [row.median_price_per_m2 for row in stats.groups]
    trend = market.price_trends(filters=filters, period="month", currency="UAH")
    assert data["trend"]["values"] == [p.median_price_per_m2 for p in trend.series[0].points]
    bands = market.price_distribution(filters=filters, currency="UAH").bands
    assert data["distribution"]["labels"] == [f"{b.low:,.0f}–{b.high:,.0f}" for b in bands]
    assert "Розподіл цін (UAH)" in staff.get(MARKET, filters).content.decode()


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_dashboard_bad_input_is_a_form_error_not_a_500(staff):
    response = staff.get(MARKET, {"deal_type": "buy", "rooms_count": "many"})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert b"market-data" not in response.content
    assert staff.get(MARKET).status_code == 200  # default: sales in every city


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_dashboard_needs_staff(client):
    response = client.get(MARKET)
    assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_detail_page_shows_the_market_verdict_and_the_duplicates(staff):
    copy = _planted_copy()
    response = staff.get(change_url(copy.id))
    assert response.status_code == 200
    html = unescape(response.content.decode())
    context = market.market_context(listing_id=copy.id)
    assert context.verdict in html
    assert f"{format_amount(context.price)} ({format_amount(context.price_per_m2)} за м²)" in html
    found = market.find_duplicates(listing_id=copy.id)
    assert found.duplicates
    for match in found.duplicates:
        assert change_url(match.id) in html
    # its re-posts that would have been its comparables: left out, and said so
    if context.reposts_left_out:
        named = ", ".join(f"#{i}" for i in context.reposts_left_out)
        assert f"без повторних публікацій цього об'єкта: {named}" in html
    else:
        assert "без повторних публікацій" not in html


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_a_daily_rent_is_figured_in_its_own_currency_and_small_figures_keep_fractions(staff):
    """A daily rent priced in UAH is figured in UAH (in USD its price per m² was a fraction
    of a dollar, which whole numbers had shown as 0: small figures keep two decimals)."""
    listing = (
        PropertyListing.objects.filter(
            deal_type="rent_short",
            currency="UAH",
            listing_status="active",
            price__gt=0,
            total_area__gt=0,
            city="Київ",
        )
        .order_by("id")
        .first()
    )
    context = market.market_context(listing_id=listing.id)
    assert context.currency == "UAH" and context.median_price_per_m2 is not None
    html = unescape(staff.get(change_url(listing.id)).content.decode())
    assert "Медіана за м², UAH" in html
    assert f"<td>{format_amount(context.median_price_per_m2)}</td>" in html
    in_usd = market.market_context(listing_id=listing.id, currency="USD")
    assert in_usd.median_price_per_m2 < 1
    assert format_amount(in_usd.median_price_per_m2).startswith("0,")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent")
@pytest.mark.django_db(transaction=True, databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_dashboard_and_detail_page_in_chromium(logged_in, live_server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    browser, wait = logged_in

    # From the changelist's object tools to the dashboard, then filter it.
    tool = wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, ".object-tools a[href$='/market/']"))
    )
    assert tool.text.lower() == "ринок"
    tool.click()
    wait.until(ec.presence_of_element_located((By.ID, "market-form")))
    browser.find_element(By.CSS_SELECTOR, "#id_city option[value='Київ']").click()
    browser.find_element(By.CSS_SELECTOR, "#market-form [type=submit]").click()
    wait.until(ec.url_contains("city="))
    for chart in ("chart-by-place", "chart-trend", "chart-distribution"):
        canvas = wait.until(ec.presence_of_element_located((By.ID, chart)))
        drawn = browser.execute_script(
            "const c = arguments[0]; return c.chart ? c.chart.data.datasets[0].data.length : -1",
            canvas,
        )
        assert drawn > 0, chart
        assert canvas.size["width"] > 100 and canvas.size["height"] > 100
    errors = [
        entry
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" and "/favicon.ico" not in entry["message"]
    ]
    assert errors == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "admin_market_dashboard.png"))

    # A rent's price per m² is a few dollars: its axis labels say 7,5, not 8 beside an 8.
    browser.get(browser.current_url.split("?")[0] + "?deal_type=rent_long")
    canvas = wait.until(ec.presence_of_element_located((By.ID, "chart-trend")))
    labels = browser.execute_script(
        "return arguments[0].chart.scales.price.ticks.map((tick) => tick.label)", canvas
    )
    assert len(labels) > 2 and len(set(labels)) == len(labels), labels

    # A planted re-post: its page shows the verdict and links its duplicates.
    copy = _planted_copy()
    browser.get(f"{live_server.url}{change_url(copy.id)}")
    block = wait.until(ec.presence_of_element_located((By.ID, "market-context")))
    assert block.find_element(By.CSS_SELECTOR, ".market-verdict").text
    links = browser.find_elements(By.CSS_SELECTOR, "#duplicates a.duplicate-link")
    assert links
    browser.execute_script("arguments[0].scrollIntoView()", block)
    assert browser.save_screenshot(str(ARTIFACTS / "admin_listing_market.png"))
