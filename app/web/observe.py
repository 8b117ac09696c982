"""Access logs with request ids, and Prometheus metrics for the hosted instance."""

import logging
import re
import secrets
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.infra.logs import REQUEST_ID

log = logging.getLogger("qbank.access")

REQUESTS = Counter("qbank_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram(
    "qbank_http_request_duration_seconds",
    "HTTP request latency",
    ["route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
REVIEWS = Counter("qbank_reviews_total", "Study ratings recorded", ["rating"])

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class AccessLog:
    """Give every request an id (kept from X-Request-ID when sane), log it and count it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = incoming if _REQUEST_ID.match(incoming) else secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        # Not reset on the way out: the request's task ends with it.
        REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            # Label by route template, not raw path, so card ids do not explode the series.
            name = getattr(route, "path", "unmatched")
            REQUESTS.labels(scope["method"], name, str(status)).inc()
            LATENCY.labels(name).observe(elapsed)
            client = (scope.get("client") or ("-", 0))[0]
            fields = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "duration_ms": round(elapsed * 1000, 1),
                "client": client,
            }
            log.info(
                '%s "%s %s" %d %.1fms',
                client,
                scope["method"],
                scope["path"],
                status,
                elapsed * 1000,
                extra=fields,
            )


def metrics(request: Request) -> Response:
    """Every worker's counters, added up when the server runs several (multiprocess mode)."""
    directory = request.app.state.settings.metrics_dir
    if directory is None:
        registry = REGISTRY
    else:
        registry = CollectorRegistry()
        # prometheus_client ships py.typed but leaves this constructor unannotated.
        MultiProcessCollector(registry, path=str(directory))  # type: ignore[no-untyped-call]
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
