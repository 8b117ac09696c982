"""Every page works in a real Chromium under the Content-Security-Policy, nothing refused.

The `new_page` fixture fails a test on any CSP violation the browser reports (and on failed
requests and script errors), so every browser test checks the pages it drives. This module
visits every page reachable by links from the home page and the top-level pages, in local mode
and, signed in as an administrator, in team mode.
"""

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from app.accounts import members
from tests.support.browser import Traffic, copy_bank, open_bank, serve, team_settings

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "admin-password-1"

# Pages no link need lead to, or that links reach only after a form.
TOP_LEVEL = ["/", "/study", "/practice", "/interviews", "/interview/mock", "/topics", "/stats"]
TOP_LEVEL += ["/settings", "/search?q=warp", "/marks/flagged", "/docs"]
TEAM_PAGES = ["/account", "/admin/users", "/admin/team", "/admin/import"]
# Downloads, state changes by GET, files and JSON: not pages.
NOT_PAGES = re.compile(
    r"^/(api|static|media|export|backup|lang|logout|interview/recordings)\b|"
    r"^/admin/users/[^/]+/|\.(json|csv|apkg|svg|png)$"
)


def _shape(path: str) -> str:
    """A path with its variable parts generalised: one visit per kind of page is enough."""
    path = re.sub(r"/\d+", "/N", path)
    path = re.sub(r"^/topics/go/.*", "/topics/go/X", path)
    return re.sub(r"^/(cards|decks|topics)/[^/]+$", r"/\1/X", path)


def visit_every_page(page: Page, traffic: Traffic, start: list[str], limit: int = 60) -> set[str]:
    """Open `start` and every same-origin page their links lead to, one of each shape."""
    queue = list(start)
    seen: set[str] = set()
    visited: set[str] = set()
    while queue and len(visited) < limit:
        path = queue.pop(0)
        shape = _shape(urlsplit(path).path)
        if shape in seen:
            continue
        seen.add(shape)
        response = page.goto(path)
        assert response is not None and response.status < 400, (path, response and response.status)
        page.wait_for_load_state("load")
        visited.add(path)
        for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
            url = urlsplit(href)
            if href.startswith(traffic.origin + "/") and not NOT_PAGES.search(url.path):
                queue.append(url.path + (f"?{url.query}" if url.query else ""))
    return {_shape(urlsplit(p).path) for p in visited}


def test_a_refused_inline_script_is_caught(page: Page, traffic: Traffic) -> None:
    """The check itself: an inline script added to a page is refused and reported."""
    page.goto("/")
    with page.expect_console_message(lambda m: "Content Security Policy" in m.text):
        page.evaluate(
            "() => { const s = document.createElement('script');"
            " s.textContent = 'window.ranInline = true'; document.body.append(s); }"
        )
    assert page.evaluate("() => window.ranInline") is None
    assert any("inline script" in v for v in traffic.csp_violations), traffic.csp_violations
    traffic.csp_violations.clear()  # expected here; any other test fails on one


def test_every_local_page_works_under_the_csp(page: Page, traffic: Traffic) -> None:
    shapes = visit_every_page(page, traffic, TOP_LEVEL)
    expected = ["/", "/cards/X", "/decks/X", "/topics/X", "/topics/go/X", "/study", "/marks/leech"]
    for shape in expected:
        assert shape in shapes, sorted(shapes)
    # The pages' own scripts ran under the policy: the study page's outbox is there.
    page.goto("/study")
    page.wait_for_function("() => document.body.dataset.outbox !== undefined")
    assert traffic.csp_violations == []


@pytest.fixture(scope="module")
def team_origin(tmp_path_factory: pytest.TempPathFactory, bundled_bank: Path) -> Iterator[str]:
    db = tmp_path_factory.mktemp("csp-team") / "qbank.db"
    copy_bank(bundled_bank, db)
    settings = team_settings(db)
    database = open_bank(settings)
    with database.session() as session:
        members.create_user(
            session, name="admin", password=PASSWORD, is_admin=True, database=database
        )
    try:
        with serve(settings) as origin:
            yield origin
    finally:
        database.dispose()


def test_every_team_page_works_under_the_csp(browser, team_origin: str) -> None:
    traffic = Traffic(origin=team_origin)
    context = browser.new_context(base_url=team_origin, locale="en-US")
    context.set_default_timeout(10_000)
    context.route(re.compile(rf"^(?!{re.escape(team_origin)}/)"), lambda route: route.abort())
    context.on("request", lambda r: traffic.requests.append(r.url))
    context.on("response", lambda r: traffic.responses.append((r.url, r.status)))
    context.on("weberror", lambda e: traffic.page_errors.append(str(e.error)))
    context.on(
        "console",
        lambda m: (
            traffic.csp_violations.append(m.text) if "Content Security Policy" in m.text else None
        ),
    )
    try:
        page = context.new_page()
        page.goto("/login")
        page.fill('input[name="name"]', "admin")
        page.fill('input[name="password"]', PASSWORD)
        page.locator('form button[type="submit"], form input[type="submit"]').first.click()
        expect(page).not_to_have_url(re.compile(r"/login"))
        shapes = visit_every_page(page, traffic, TOP_LEVEL + TEAM_PAGES)
        for shape in TEAM_PAGES:
            assert shape in shapes, sorted(shapes)
        # A re-import runs in the background; its page reloads itself until the report.
        page.goto("/admin/import")
        page.locator('form[action="/admin/import"] button').click()
        expect(page.locator("#import-report")).to_be_visible(timeout=60_000)
    finally:
        context.close()
    assert traffic.foreign() == []
    assert traffic.failed() == []
    assert traffic.page_errors == []
    assert traffic.csp_violations == []
