"""Static files (the admin's CSS and JS) served by ServeStatic from inside Django.

Files are found where Django's finders find them (the apps' static directories), so a
fresh checkout serves a styled admin with no `collectstatic`; a path that is no file goes on
to Django and is a 404.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from servestatic.middleware import ServeStaticMiddleware
from servestatic.responders import MissingFileError


class StaticFilesMiddleware(ServeStaticMiddleware):
    async def __call__(self, request: HttpRequest) -> HttpResponseBase:
        try:
            return await super().__call__(request)
        except MissingFileError:
            # Raised only with DEBUG on, as a 500 page: a missing file is a 404 there too.
            return await self.get_response(request)
