"""``GET /metrics`` (Prometheus text format) and the middleware counting every request.

Requests are counted by method, route *template* (``/api/v1/datasets/{dataset_id}``, never the
concrete path, so the label set stays small; ``unmatched`` for a path no route has) and status.

Who may scrape: with ``ENGRAMDB_METRICS_TOKEN`` set, a request carrying
``Authorization: Bearer <token>``; without it, any valid API key (the same check as every other
route). ``ENGRAMDB_METRICS_ENABLED=false`` turns the route into a 404 (after that check); without
``prometheus-client`` it is a 501 naming the extra. The route is left out of the OpenAPI
document (it is not a verb).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import APIRouter, Request, Response

from engramdb.errors import AuthenticationError, FeatureNotAvailableError, NotFoundError
from engramdb.observability.metrics import exposition, observe_http

__all__ = ["METRICS_PATH", "MetricsMiddleware", "router"]

#: Where the metrics are served.
METRICS_PATH = "/metrics"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

router = APIRouter()


class MetricsMiddleware:
    """A pure ASGI middleware: one observation per HTTP request, once its response is sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            observe_http(scope["method"], template, status, time.perf_counter() - started)


@router.get(METRICS_PATH, include_in_schema=False)
async def metrics(request: Request) -> Response:
    """The engramdb metrics in the Prometheus text format."""
    from engramdb.server.auth import current_user
    from engramdb.settings import config

    settings = config.settings
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    presented = presented.strip() if scheme.lower() == "bearer" else ""
    token = settings.engramdb_metrics_token
    if not token:  # any valid API key, as every other route
        await current_user(request, None, presented or request.headers.get("x-api-key"))
    elif not hmac.compare_digest(presented.encode(), token.encode()):
        raise AuthenticationError(
            "GET /metrics needs 'Authorization: Bearer <ENGRAMDB_METRICS_TOKEN>'"
        )
    if not settings.engramdb_metrics_enabled:  # told only to a caller who may scrape
        raise NotFoundError("metrics are switched off (ENGRAMDB_METRICS_ENABLED=false)")
    found = exposition()
    if found is None:
        raise FeatureNotAvailableError(
            "metrics need prometheus-client: pip install 'engramdb[metrics]' (or [server])"
        )
    body, content_type = found
    return Response(body, media_type=content_type)
