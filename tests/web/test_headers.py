"""Security headers: no framing, no sniffing, scripts from this origin only, /docs still works.

Every kind of response carries them: pages, the API, static files, refusals, and the 500 of an
unexpected error (sent by Starlette from outside every middleware); HSTS comes over HTTPS only.
"""

import re
from collections.abc import Callable
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.headers import CONTENT_SECURITY_POLICY
from app.web.templating import assets
from tests.support import http
from tests.support.live_server import LiveServer


def assert_security_headers(headers: httpx.Headers, *, https: bool = False) -> None:
    policy = headers["content-security-policy"]
    assert policy == CONTENT_SECURITY_POLICY
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    # Only this origin; inline styles for KaTeX, never inline or evaluated script.
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert all("http" not in sources and "*" not in sources for sources in directives.values())
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    if https:
        assert headers["strict-transport-security"] == "max-age=31536000"
    else:
        assert "strict-transport-security" not in headers


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200),
        ("/settings", 200),
        ("/study", 200),
        ("/decks/kernels", 200),
        ("/api/study/next", 200),
        ("/api/decks", 200),
        ("/healthz", 200),
        ("/metrics", 200),
        ("/static/app.css", 200),
        ("/static/app.js", 200),
        ("/static/katex/fonts/KaTeX_Main-Regular.woff2", 200),
        ("/static/no-such-file.css", 404),
        ("/no-such-page", 404),
        ("/api/no-such-thing", 404),
        ("/api/reviews", 405),
    ],
)
def test_every_response_carries_the_headers(client, path, status):
    response = client.get(path)
    assert response.status_code == status, path
    assert_security_headers(response.headers)


def test_versioned_static_files_carry_them(client):
    response = client.get(assets.url("app.css"))
    assert response.status_code == 200
    assert "immutable" in response.headers["cache-control"]
    assert_security_headers(response.headers)


def test_refusals_carry_them_too(client):
    response = client.post("/settings", data={}, headers={"Origin": "null"})
    assert response.status_code == 403
    assert_security_headers(response.headers)


@pytest.mark.parametrize("path", ["/broken", "/api/broken"])
def test_an_unexpected_errors_500_carries_them(app: FastAPI, path: str):
    def broken() -> None:
        raise RuntimeError("the disk caught fire")

    app.add_api_route(path, broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get(path)
        assert response.status_code == 500
        assert_security_headers(response.headers)
    with TestClient(app, raise_server_exceptions=False, base_url="https://testserver") as client:
        response = client.get(path)
        assert response.status_code == 500
        assert_security_headers(response.headers, https=True)


@pytest.mark.parametrize("path", ["/", "/api/decks", "/static/app.css", "/no-such-page"])
def test_hsts_over_https(app: FastAPI, path: str):
    with TestClient(app, base_url="https://testserver", follow_redirects=False) as client:
        response = client.get(path)
    assert response.status_code in (200, 404)
    assert_security_headers(response.headers, https=True)


def test_hsts_behind_a_trusted_proxy_only(
    database_url: str, drill_dir: Path, live_server: Callable[..., LiveServer]
):
    """The real server: HTTPS as the trusted proxy's X-Forwarded-Proto reports it."""
    server = live_server(database_url, drill_dir, env={"QBANK_FORWARDED_ALLOW_IPS": "127.0.0.1"})
    with http.client(server.url, timeout=10) as client:
        for path in ("/", "/static/app.css", "/api/decks"):
            response = client.get(path, headers={"X-Forwarded-Proto": "https"})
            assert response.status_code == 200, path
            assert_security_headers(response.headers, https=True)
            response = client.get(path)
            assert_security_headers(response.headers)
    untrusted = live_server(database_url, drill_dir)
    with http.client(untrusted.url, timeout=10) as client:
        response = client.get("/", headers={"X-Forwarded-Proto": "https"})
        assert_security_headers(response.headers)


def test_the_docs_page_has_no_inline_script(client):
    page = client.get("/docs")
    assert page.status_code == 200
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, flags=re.S)
    assert scripts, "the docs page loads Swagger UI"
    for attributes, body in scripts:
        assert 'src="/static/' in attributes
        assert body.strip() == ""
    for src in re.findall(r'src="([^"]+)"', page.text):
        assert client.get(src).status_code == 200


def test_no_template_has_inline_script(client):
    """No template runs script of its own: no inline <script>, event attribute or javascript: URL.

    A <script type="application/json"> data block is not run, and the CSP allows it.
    """
    templates = Path(__file__).resolve().parents[2] / "templates"
    pages = list(templates.rglob("*.html"))
    assert pages
    scripts = 0
    for template in pages:
        text = template.read_text(encoding="utf-8")
        for attributes, body in re.findall(r"<script([^>]*)>(.*?)</script>", text, flags=re.S):
            scripts += 1
            assert 'src="' in attributes or 'type="application/json"' in attributes, template
            assert 'src="' not in attributes or body.strip() == "", template
        assert not re.search(r"\son[a-z]+\s*=", text), template
        assert "javascript:" not in text, template
    assert scripts, "the templates load their scripts"
