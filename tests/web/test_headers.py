"""Security headers: no framing, no sniffing, scripts from this origin only, /docs still works."""

import re

import pytest

from app.web.headers import CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    "path", ["/", "/settings", "/study", "/decks/kernels", "/api/study/next", "/no-such-page"]
)
def test_every_response_carries_the_headers(client, path):
    response = client.get(path)
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"


def test_refusals_carry_them_too(client):
    response = client.post("/settings", data={}, headers={"Origin": "null"})
    assert response.status_code == 403
    assert response.headers["x-frame-options"] == "DENY"


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
