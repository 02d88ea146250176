"""Admin pages that the database cannot answer in time: a page that says so, not a 500.

The changelist, its filters and sorts run queries the admin builds itself (Django's
ChangeList), outside the search functions' error translation; on a large table a sort no
index serves can pass QUERY_TIMEOUT_SEC, and the database can be away.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from ..runtime import database_trouble

ADMIN_PAGE_FAILED = "Сторінку не показано: {message}"


class DatabaseTroubleMiddleware:
    """A statement timeout or an unreachable database on a staff page: 503 with what
    happened and what to do, in the admin's frame (no traceback, SQL or connection string)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        typed = database_trouble(exception)
        if typed is None:
            return None
        response = TemplateResponse(
            request,
            "admin/listings/database_trouble.html",
            {"title": "Оголошення", "message": ADMIN_PAGE_FAILED.format(message=typed.message)},
            status=503,
        )
        return response.render()
