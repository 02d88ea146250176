"""The headless Chromium of the admin's browser tests, and a staff user logged in through the
real login form (the Debian `chromium` and `chromium-driver` packages; Selenium is given both
paths so Selenium Manager never runs and nothing is downloaded)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
PASSWORD = "browser-test-password"


@pytest.fixture
def browser(tmp_path) -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--lang=uk",
        "--window-size=1680,1200",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "uk,uk-UA"})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console errors
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def logged_in(browser, live_server, django_user_model) -> tuple[Any, Any]:
    """(browser, a 60 s wait) with a superuser logged in on the listings changelist."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    django_user_model.objects.create_superuser("staff", "staff@example.com", PASSWORD)
    wait = WebDriverWait(browser, 60)
    browser.get(f"{live_server.url}/admin/listings/propertylisting/")
    wait.until(ec.presence_of_element_located((By.ID, "id_username")))
    browser.find_element(By.ID, "id_username").send_keys("staff")
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#login-form [type=submit]").click()
    return browser, wait
