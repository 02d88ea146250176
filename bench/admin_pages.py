"""Admin page timings: the staff pages loaded over HTTP by a logged-in user, as a browser would.

Used by `manage.py bench_admin`. Each page is loaded once to warm up, then `loads` times; the
figures are the median and the slowest load, measured by the client (whole response read).
"""

from __future__ import annotations

import re
import secrets
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from django.contrib.auth import get_user_model
from django.urls import reverse

from listings.models import PropertyListing

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
TARGET_MS = 1000.0


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    params: dict[str, str]


def pages(listing_id: int) -> list[Page]:
    changelist = reverse("admin:listings_propertylisting_changelist")
    semantic = reverse("admin:listings_propertylisting_semantic")
    return [
        Page("changelist", changelist, {}),
        Page("changelist, page 50", changelist, {"p": "50"}),
        Page("filtered: sale in Київ", changelist, {"deal_type__exact": "sale", "city": "Київ"}),
        Page(
            "filtered: sold, 4 rooms",
            changelist,
            {"listing_status__exact": "sold", "rooms_count": "4"},
        ),
        # `o` is the column's position in list_display: 6 the price, 10 the publish date.
        Page("sorted by price", changelist, {"o": "6"}),
        Page("sorted by date, newest", changelist, {"o": "-10"}),
        Page("search: common word", changelist, {"q": "квартира"}),
        Page("search: inflected words", changelist, {"q": "квартири з балконами"}),
        Page("search: rare word", changelist, {"q": "свердловина"}),
        Page(
            "detail with neighbours",
            reverse("admin:listings_propertylisting_change", args=[listing_id]),
            {},
        ),
        Page(
            "semantic search page",
            semantic,
            {"query": "затишна квартира біля парку", "mode": "semantic"},
        ),
        Page(
            "hybrid search page",
            semantic,
            {"query": "затишна квартира біля парку", "mode": "hybrid"},
        ),
    ]


@contextmanager
def temporary_superuser() -> Iterator[tuple[str, str]]:
    """A superuser that exists only while the benchmark runs (in the default database)."""
    users = get_user_model()
    username = f"bench-admin-{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(24)
    users.objects.create_superuser(username=username, password=password, email="")
    try:
        yield username, password
    finally:
        users.objects.filter(username=username).delete()


def log_in(client: httpx.Client, username: str, password: str) -> None:
    login = reverse("admin:login")
    form = client.get(login)
    match = CSRF_FIELD.search(form.text)
    if form.status_code != 200 or match is None:
        raise RuntimeError(f"the login page answered HTTP {form.status_code}")
    answer = client.post(
        login,
        data={
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": match.group(1),
            "next": reverse("admin:index"),
        },
        headers={"Referer": str(client.base_url) + login},
    )
    if answer.status_code != 302:
        raise RuntimeError(f"logging in failed (HTTP {answer.status_code})")


def time_pages(base_url: str, username: str, password: str, loads: int) -> list[dict[str, Any]]:
    listing_id = (
        PropertyListing.objects.filter(embedding__isnull=False)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    if listing_id is None:
        raise RuntimeError("the listings database has no listing with an embedding")
    results = []
    with httpx.Client(base_url=base_url, timeout=60.0) as client:
        log_in(client, username, password)
        for page in pages(listing_id):
            times, status = [], 0
            for attempt in range(loads + 1):
                started = time.perf_counter()
                response = client.get(page.path, params=page.params)
                elapsed = (time.perf_counter() - started) * 1000
                status = response.status_code
                if status != 200:
                    break
                if attempt:  # the first load warms up
                    times.append(elapsed)
            results.append(
                {
                    "page": page.name,
                    "url": str(httpx.URL(page.path, params=page.params)),
                    "status": status,
                    "loads": len(times),
                    "median_ms": round(statistics.median(times), 1) if times else None,
                    "max_ms": round(max(times), 1) if times else None,
                    "under_1s": bool(times) and statistics.median(times) < TARGET_MS,
                }
            )
    return results


def format_table(results: list[dict[str, Any]], listings: int) -> str:
    lines = [
        f"Admin pages at {listings:,} listings (client-side, whole response):",
        f"{'page':<28} {'status':>6} {'median ms':>10} {'max ms':>9}  < 1 s",
    ]
    for row in results:
        median = "-" if row["median_ms"] is None else f"{row['median_ms']:.1f}"
        worst = "-" if row["max_ms"] is None else f"{row['max_ms']:.1f}"
        mark = "yes" if row["under_1s"] else "NO"
        lines.append(f"{row['page']:<28} {row['status']:>6} {median:>10} {worst:>9}  {mark}")
    return "\n".join(lines)
