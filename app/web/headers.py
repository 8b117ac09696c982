"""Security headers on every response: what a browser may load, frame and send along."""

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Scripts and styles come from this origin only; KaTeX's output and the progress bars set
# sizes in style attributes, hence 'unsafe-inline' for styles (never for scripts). Cards'
# Markdown is rendered without raw HTML, so this is a second wall behind the first.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    # For browsers that predate frame-ancestors: no page of this site in anyone's frame.
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # Not no-referrer: with it a browser sends `Origin: null` on this site's own form posts,
    # which the forgery check refuses.
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

# Over HTTPS only (a browser ignores it over plain HTTP): this host is to be reached by HTTPS
# alone for a year. Not includeSubDomains, which would bind other sites of the same domain.
HSTS = (b"strict-transport-security", b"max-age=31536000")


def headers_for(scheme: str) -> tuple[tuple[bytes, bytes], ...]:
    """The security headers for a response to a request that came by `scheme`.

    The scheme is the one uvicorn reports: https behind a proxy whose X-Forwarded-Proto it
    trusts (QBANK_FORWARDED_ALLOW_IPS).
    """
    return (*HEADERS, HSTS) if scheme == "https" else HEADERS


class SecurityHeaders:
    """Add the security headers to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                extra = [h for h in headers_for(scope["scheme"]) if h[0] not in present]
                message["headers"] = headers + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)
