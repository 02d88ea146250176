"""/metrics over HTTP: Prometheus exposition for loopback clients or authenticated callers
(METRICS_ACCESS)."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vmkproject import metrics

from .http import UNAUTHORIZED, auth_required, caller_name

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
METRICS_FORBIDDEN = {"error": "/metrics is served to loopback clients only.", "code": "forbidden"}


def _is_loopback(request: Request) -> bool:
    return request.client is not None and request.client.host in LOOPBACK


async def metrics_endpoint(request: Request) -> Response:
    if settings.METRICS_ACCESS == "loopback" and not _is_loopback(request):
        return JSONResponse(METRICS_FORBIDDEN, status_code=403)
    if (
        settings.METRICS_ACCESS == "auth"
        and await auth_required()
        and await caller_name(request.scope) is None
    ):
        return JSONResponse(UNAUTHORIZED, status_code=401, headers={"www-authenticate": "Bearer"})
    metrics.update_pool_gauges()
    body = await sync_to_async(metrics.exposition, thread_sensitive=False)()
    return Response(body, media_type=metrics.CONTENT_TYPE)


def metrics_routes() -> list[Route]:
    if settings.METRICS_ACCESS == "off":
        return []
    return [Route("/metrics", endpoint=metrics_endpoint, methods=["GET"])]
