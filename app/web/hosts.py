"""Which Host and Origin a request may name: the defence against DNS rebinding and forgery.

A page on rebind.example whose name an attacker re-points at 127.0.0.1 reaches a server on
loopback with `Host: rebind.example`; local mode has no login, so the Host header is what tells
such a request from the learner's own browser.
"""

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.errors import Invalid
from app.web.errors import answer

# A load balancer's probe names the container's address: the health check reads nothing.
UNCHECKED_PATHS = ("/healthz",)


def host_name(value: str) -> str:
    """The host part of a Host header or an allow-list entry, lower case, without the port."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[: end + 1] if end > 0 else value
    name = value.rsplit(":", 1)[0] if value.count(":") == 1 else value
    return name.rstrip(".")


def allowed_hosts(settings: Settings) -> frozenset[str] | None:
    """The host names this instance answers to; None when any will do (`*`)."""
    entries = [entry for entry in settings.allowed_hosts.split(",") if entry.strip()]
    if any(entry.strip() == "*" for entry in entries):
        return None
    names = {host_name(entry) for entry in entries}
    if settings.public_url:
        names.add(host_name(urlsplit(settings.public_url).netloc))
    return frozenset(names)


def trusted_origin(origin: str, host: str | None, settings: Settings) -> bool:
    """True if `origin` is this site: the request's own (allowed) host or the public URL.

    `null` (a sandboxed frame, a page from a file) is never this site.
    """
    if origin == "null":
        return False
    parsed = urlsplit(origin)
    if host is not None and parsed.netloc.lower() == host.strip().lower():
        return True
    if settings.public_url:
        public = urlsplit(settings.public_url)
        return (parsed.scheme, parsed.netloc.lower()) == (public.scheme, public.netloc.lower())
    return False


class HostGuard:
    """Answer 400 to a request whose Host header is not one of `allowed_hosts`."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.allowed = allowed_hosts(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allowed is None or scope["path"] in UNCHECKED_PATHS:
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if host_name(host) in self.allowed:
            await self.app(scope, receive, send)
            return
        await refusal(Request(scope), host)(scope, receive, send)


def refusal(request: Request, host: str) -> Response:
    """The 400 for a foreign Host, in the browser's language."""
    return answer(request, Invalid("bad_host", host=host[:100] or "-"))
