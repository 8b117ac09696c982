"""Fast pages: compressed responses, static files under hashed URLs cached for good, a favicon,
KaTeX fonts preloaded where there is math."""

import gzip
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.web.assets import IMMUTABLE, REVALIDATE, tree_version
from app.web.templating import assets

ASSET_LINK = re.compile(r'(?:href|src)="(/static/[^"]+)"')


def test_pages_link_static_files_by_hashed_url_cached_for_good(client: TestClient) -> None:
    page = client.get("/cards/gemm-core")
    links = ASSET_LINK.findall(page.text)
    assert assets.url("app.css") in links
    assert assets.url("katex/katex.min.css") in links
    assert all(link.startswith(f"/static/v/{assets.version}/") for link in links), links
    for link in links:
        response = client.get(link)
        assert response.status_code == 200, link
        assert response.headers["cache-control"] == IMMUTABLE
    assert client.get(assets.url("app.css")).headers["content-type"].startswith("text/css")


def test_unhashed_and_outdated_static_urls_revalidate(client: TestClient) -> None:
    plain = client.get("/static/app.css")
    assert plain.headers["cache-control"] == REVALIDATE
    again = client.get("/static/app.css", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304
    old = client.get("/static/v/0123456789ab/app.css")
    assert old.status_code == 200
    assert old.headers["cache-control"] == REVALIDATE
    assert old.content == plain.content


def test_a_hashed_url_cannot_leave_the_static_directory(client: TestClient) -> None:
    for path in (
        f"/static/v/{assets.version}/../../pyproject.toml",
        f"/static/v/{assets.version}/%2e%2e/%2e%2e/pyproject.toml",
        f"/static/v/{assets.version}/..%2f..%2fpyproject.toml",
        "/static/v/../../app/main.py",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "[project]" not in response.text


def test_the_version_changes_with_any_static_file(tmp_path: Path) -> None:
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "a.woff2").write_bytes(b"one")
    before = tree_version(tmp_path)
    (tmp_path / "fonts" / "a.woff2").write_bytes(b"two")
    assert tree_version(tmp_path) != before


def test_html_css_js_and_json_travel_gzipped(client: TestClient) -> None:
    for path in ("/cards/gemm-core", assets.url("app.css"), assets.url("katex/katex.min.css")):
        response = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert response.headers["content-encoding"] == "gzip", path
        assert "accept-encoding" in response.headers["vary"].lower()
    raw = client.get("/cards/gemm-core", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in raw.headers
    api = client.get("/api/search", params={"q": "GEMM"}, headers={"Accept-Encoding": "gzip"})
    assert api.status_code == 200
    if len(api.content) >= 1000:
        assert api.headers["content-encoding"] == "gzip"


def test_compressed_page_is_the_page(client: TestClient) -> None:
    zipped = client.get("/cards/gemm-core", headers={"Accept-Encoding": "gzip"})
    plain = client.get("/cards/gemm-core", headers={"Accept-Encoding": "identity"})
    # httpx decodes gzip itself: the decoded page equals the uncompressed one.
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.text == plain.text
    assert len(gzip.compress(plain.content)) < len(plain.content) / 2


def test_fonts_are_not_compressed_again(client: TestClient) -> None:
    font = client.get(assets.url("katex/fonts/KaTeX_Main-Regular.woff2"))
    assert font.status_code == 200
    assert "content-encoding" not in font.headers
    assert font.headers["cache-control"] == IMMUTABLE


def test_favicon(client: TestClient) -> None:
    page = client.get("/")
    assert f'<link rel="icon" href="{assets.url("favicon.svg")}" type="image/svg+xml">' in page.text
    icon = client.get("/favicon.ico", follow_redirects=False)
    assert icon.headers["location"] == assets.url("favicon.svg")
    svg = client.get(icon.headers["location"])
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg")


def test_katex_fonts_are_preloaded_only_where_there_is_math(client: TestClient) -> None:
    preload = f'<link rel="preload" href="{assets.url("katex/fonts/KaTeX_Main-Regular.woff2")}"'
    math = client.get("/cards/gemm-core").text
    assert 'class="katex' in math
    assert preload in math
    assert math.index(preload) < math.index("</head>")
    # The stylesheet asks for the same file, relative to itself: one download, not two.
    css = client.get(assets.url("katex/katex.min.css")).text
    assert "url(fonts/KaTeX_Main-Regular.woff2)" in css
    settings = client.get("/settings").text
    assert 'class="katex' not in settings
    assert 'rel="preload"' not in settings
