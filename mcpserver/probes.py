"""check_listings_db's second half: run every tool, resource and admin page, read-only.

A catalog check says what the columns are; this says whether the code works on them. Each
tool and resource is called in-process through the MCP server (argument and output
validation included), each admin page through Django's test client as a temporary superuser
(created in the default database and deleted after). A failure is reported by its error
code and message, or by its exception type: never a traceback, SQL or a connection string.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import DatabaseError
from django.urls import reverse

from listings.checks import Check
from listings.errors import SearchError
from listings.models import PropertyListing

PROBE_QUERY = "квартира з балконом"
NO_MATCH_QUERY = "жжжщщщ"
NOT_RUN = "not run: the listings table has no rows"
NO_EMBEDDING = "not run: no listing has an embedding"
ADMIN_NOT_RUN = "not run: the default database has no user table (run manage.py migrate)"
QUIET_LOGGERS = ("django.request", "django.server", "mcp", "vmk")


def _sample_ids() -> tuple[int | None, int | None]:
    """Any listing, and a listing with an embedding (newest first: index-friendly)."""
    listings = PropertyListing.objects.order_by("-id").values_list("id", flat=True)
    return listings.first(), listings.filter(embedding__isnull=False).first()


def _tool_calls(any_id: int | None, with_vector: int | None) -> list[tuple[str, str, Any]]:
    calls: list[tuple[str, str, Any]] = [
        ("search_similar_listings", "", {"query": PROBE_QUERY, "limit": 3}),
        (
            "search_similar_listings",
            "price filter",
            {"query": PROBE_QUERY, "filters": {"max_price": 10**9, "currency": "UAH"}, "limit": 3},
        ),
        ("search_by_metadata", "", {"query": PROBE_QUERY, "limit": 3}),
        ("search_by_metadata", "no full-text match", {"query": NO_MATCH_QUERY, "limit": 3}),
        (
            "search_by_metadata",
            "filters, price order",
            {"filters": {"listing_status": "any", "min_area": 1}, "sort_by": "price_asc"},
        ),
        (
            "search_by_metadata",
            "newest first",
            {"filters": {"published_after": "2000-01-01"}, "sort_by": "date_desc", "limit": 3},
        ),
        ("search_by_metadata", "largest first", {"sort_by": "area_desc", "limit": 3}),
        ("hybrid_search", "", {"query": PROBE_QUERY, "limit": 3}),
        ("listing_stats", "", {}),
        ("listing_stats", "by city, UAH", {"group_by": "city", "currency": "UAH"}),
        ("describe_schema", "", {}),
    ]
    calls.append(
        ("get_listing_by_id", "", {"listing_id": any_id} if any_id else NOT_RUN),
    )
    calls.append(
        (
            "find_similar_to_listing",
            "",
            {"listing_id": with_vector, "limit": 3} if with_vector else NO_EMBEDDING,
        )
    )
    return calls


def _failure(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    if isinstance(cause, SearchError):
        return f"{cause.code}: {cause.message}"
    data = getattr(cause, "data", None)
    if isinstance(data, dict) and "code" in data:
        return f"{data['code']}: {data.get('error', '')}"
    return f"failed ({type(cause).__name__})"


async def _call_tool(name: str, arguments: dict[str, Any]) -> str | None:
    """None when the tool answered; else what went wrong."""
    from mcp.server.mcpserver import MCPServer

    from .server import mcp

    try:
        # MCPServer's own call_tool: ours turns a crash into a generic message, and the
        # check wants the exception's type.
        result = await MCPServer.call_tool(mcp, name, arguments)
    except Exception as exc:  # noqa: BLE001 - reported by type
        return _failure(exc)
    if getattr(result, "is_error", False):
        content = getattr(result, "content", None) or []
        try:
            error = json.loads(content[0].text)
            return f"{error['code']}: {error['error']}"
        except (IndexError, AttributeError, KeyError, TypeError, ValueError):
            return "answered an error"
    return None


async def _read_resource(uri: str) -> str | None:
    from mcp.server.mcpserver import MCPServer

    from .server import mcp

    try:
        contents = list(await MCPServer.read_resource(mcp, uri))
    except Exception as exc:  # noqa: BLE001 - reported by type
        return _failure(exc)
    return None if contents else "no content"


def _result(name: str, outcome: str | None) -> Check:
    return Check(name, "ok" if outcome is None else "fail", outcome or "answered")


def _run_async(name: str, call: Callable[[], Any]) -> Check:
    try:
        return _result(name, async_to_sync(call)())
    except Exception as exc:  # noqa: BLE001 - reported by type
        return _result(name, _failure(exc))


def tool_checks(any_id: int | None, with_vector: int | None) -> list[Check]:
    checks = []
    for tool, variant, arguments in _tool_calls(any_id, with_vector):
        name = f"tool {tool}" + (f" ({variant})" if variant else "")
        if isinstance(arguments, str):
            checks.append(Check(name, "warn", arguments))
            continue
        checks.append(_run_async(name, partial(_call_tool, tool, arguments)))
    return checks


def resource_checks(any_id: int | None) -> list[Check]:
    checks = []
    for uri in ("schema://property_listings", "stats://database"):
        checks.append(_run_async(f"resource {uri}", partial(_read_resource, uri)))
    if any_id is None:
        checks.append(Check("resource listing://{id}", "warn", NOT_RUN))
    else:
        checks.append(
            _run_async("resource listing://{id}", partial(_read_resource, f"listing://{any_id}"))
        )
    return checks


def _admin_pages(any_id: int | None, with_vector: int | None) -> list[tuple[str, str, dict]]:
    from listings.admin.choices import cached_cities, cached_property_types

    changelist = reverse("admin:listings_propertylisting_changelist")
    semantic = reverse("admin:listings_propertylisting_semantic")
    cities, types = cached_cities(), cached_property_types()
    pages: list[tuple[str, str, dict]] = [
        ("changelist", changelist, {}),
        ("changelist, page 2", changelist, {"p": "2"}),
        # `o` is a 0-based position in list_display: 6 price, 8 area, 10 publish date.
        ("changelist by price", changelist, {"o": "6"}),
        ("changelist by date", changelist, {"o": "-10"}),
        ("changelist by area", changelist, {"o": "-8"}),
        ("changelist filter deal type", changelist, {"deal_type__exact": "sale"}),
        ("changelist filter status", changelist, {"listing_status__exact": "active"}),
        ("changelist filter building", changelist, {"building_type__exact": "brick"}),
        ("changelist filter renovation", changelist, {"renovation_status__exact": "euro"}),
        ("changelist filter rooms", changelist, {"rooms_count": "5+"}),
        ("changelist search", changelist, {"q": PROBE_QUERY}),
        ("changelist search, no full-text match", changelist, {"q": NO_MATCH_QUERY}),
        ("semantic page", semantic, {"query": PROBE_QUERY, "mode": "semantic"}),
        ("hybrid page", semantic, {"query": PROBE_QUERY, "mode": "hybrid"}),
        ("property types", reverse("admin:listings_propertytype_changelist"), {}),
    ]
    if cities:
        pages.append(("changelist filter city", changelist, {"city": cities[0]}))
    if types:
        pages.append(("changelist filter type", changelist, {"property_type": str(types[0][0])}))
    for listing_id in dict.fromkeys(i for i in (any_id, with_vector) if i is not None):
        change = reverse("admin:listings_propertylisting_change", args=[listing_id])
        pages.append((f"detail page #{listing_id}", change, {}))
    return pages


@contextmanager
def _temporary_superuser() -> Iterator[Any]:
    from django.contrib.auth import get_user_model

    users = get_user_model()
    user = users.objects.create_superuser(
        username=f"check-listings-{secrets.token_hex(4)}",
        password=secrets.token_urlsafe(24),
        email="",
    )
    try:
        yield user
    finally:
        users.objects.filter(pk=user.pk).delete()


def _host() -> str:
    for host in settings.ALLOWED_HOSTS:
        host = host.lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def admin_checks(any_id: int | None, with_vector: int | None) -> list[Check]:
    from django.test import Client

    checks = []
    try:
        with _temporary_superuser() as user:
            client = Client(HTTP_HOST=_host())
            client.force_login(user)
            secure = settings.SECURE_SSL_REDIRECT
            for name, path, params in _admin_pages(any_id, with_vector):
                try:
                    response = client.get(path, params, secure=secure)
                except Exception as exc:  # noqa: BLE001 - reported by type
                    checks.append(Check(f"admin {name}", "fail", _failure(exc)))
                    continue
                status = response.status_code
                checks.append(
                    Check(
                        f"admin {name}",
                        "ok" if status == 200 else "fail",
                        "HTTP 200" if status == 200 else f"answered HTTP {status}",
                    )
                )
            client.logout()  # and its session row goes
    except DatabaseError:
        checks.append(Check("admin pages", "warn", ADMIN_NOT_RUN))
    return checks


@contextmanager
def _quiet() -> Iterator[None]:
    """A failing page or tool is reported as a check line, not as a logged traceback."""
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def interface_checks() -> list[Check]:
    with _quiet():
        try:
            any_id, with_vector = _sample_ids()
        except DatabaseError as exc:
            return [Check("sample listing", "fail", f"failed ({type(exc).__name__})")]
        return [
            *tool_checks(any_id, with_vector),
            *resource_checks(any_id),
            *admin_checks(any_id, with_vector),
        ]
