"""The staff admin in a real headless Chromium: log in, browse, search, open a listing.

Uses the Debian `chromium` and `chromium-driver` packages; Selenium is given both paths so
Selenium Manager never runs and nothing is downloaded.
"""

from __future__ import annotations

import re

import pytest

from .conftest import ARTIFACTS, CHROMIUM

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="/usr/bin/chromium is absent: apt-get install chromium chromium-driver",
    ),
    pytest.mark.django_db(transaction=True, databases=["default", "listings"]),
    pytest.mark.usefixtures("listings_access"),
]


def folded_ids(browser, selector: str) -> int:
    """The copies' ids named next to the rows' titles: "(…: #67, #89)"."""
    from selenium.webdriver.common.by import By

    return sum(
        len(re.findall(r"#\d+", span.text))
        for span in browser.find_elements(By.CSS_SELECTOR, selector)
    )


def test_staff_browse_search_and_open_a_listing(logged_in, live_server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    browser, wait = logged_in  # through the real login form

    # The changelist, styled (admin CSS is served), with filters and the semantic link.
    wait.until(ec.presence_of_element_located((By.ID, "result_list")))
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 50
    assert browser.find_element(By.ID, "changelist-filter").is_displayed()
    assert "3 000 оголошень" in browser.find_element(By.CSS_SELECTOR, "p.paginator").text
    header = browser.find_element(By.ID, "header")
    assert header.value_of_css_property("background-color") != "rgba(0, 0, 0, 0)"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "admin_changelist.png"))

    # Full-text search with an inflected word.
    search_box = browser.find_element(By.ID, "searchbar")
    search_box.send_keys("квартири")
    search_box.submit()
    wait.until(ec.url_contains("q="))
    wait.until(ec.presence_of_element_located((By.ID, "result_list")))
    titles = [
        cell.text.lower()
        for cell in browser.find_elements(By.CSS_SELECTOR, "#result_list td.field-title")
    ]
    assert titles and any("квартир" in title for title in titles)
    assert "Знайдено" in browser.find_element(By.ID, "changelist-search").text

    # Open the first result: grouped fields, the source link and the neighbours.
    first = browser.find_element(By.CSS_SELECTOR, "#result_list th.field-id a")
    listing_id = first.text.strip()
    first.click()
    wait.until(ec.presence_of_element_located((By.ID, "neighbours")))
    assert f"/propertylisting/{listing_id}/change/" in browser.current_url
    page = browser.find_element(By.ID, "content-main").text
    for heading in ("Основне", "Ціна", "Розташування", "Джерело і контакти"):
        assert heading in page
    source = browser.find_element(By.CSS_SELECTOR, ".field-source_link a")
    assert source.get_attribute("href").startswith("http")
    neighbours = browser.find_elements(By.CSS_SELECTOR, "#neighbours a.neighbour-link")
    note = browser.find_elements(By.CSS_SELECTOR, "#neighbours .neighbours-note")
    assert len(neighbours) + folded_ids(browser, "#neighbours .neighbour-duplicates") == 10 or note
    assert not browser.find_elements(By.CSS_SELECTOR, "input[name=_save]")
    browser.execute_script("arguments[0].scrollIntoView()", source)
    browser.save_screenshot(str(ARTIFACTS / "admin_listing_detail.png"))

    # The semantic search page, reached from the changelist's object tools.
    browser.get(f"{live_server.url}/admin/listings/propertylisting/")
    tool = browser.find_element(By.CSS_SELECTOR, ".object-tools a[href$='/semantic/']")
    assert tool.text.lower() == "пошук за змістом"
    tool.click()
    query = wait.until(ec.presence_of_element_located((By.ID, "id_query")))
    query.send_keys("будинок з ділянкою та гаражем")
    browser.find_element(By.CSS_SELECTOR, "#semantic-form [type=submit]").click()
    wait.until(ec.presence_of_element_located((By.ID, "semantic-results")))
    results = browser.find_elements(By.CSS_SELECTOR, "#semantic-results a.result-link")
    # 20 listings: a re-posted one is a row naming its copies
    assert len(results) + folded_ids(browser, "#semantic-results .result-duplicates") == 20
    browser.save_screenshot(str(ARTIFACTS / "admin_semantic_search.png"))
