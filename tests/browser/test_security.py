"""In a real browser: another site can neither frame qbank nor sign a browser in from a
sandboxed frame (`Origin: null`).

The attacker's pages are served by the browser context itself (`route.fulfill`) from
http://attacker.test, so nothing leaves the machine. Chromium's local-network checks are off
(conftest.CHROMIUM_ARGS): they would stop the attack before qbank sees it.
"""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route
from sqlmodel import func, select

from app.accounts import members
from app.config import Settings
from app.infra.models import AuthSession
from tests.support.browser import copy_bank, open_bank, serve, team_settings

REPO = Path(__file__).resolve().parents[2]
ATTACKER = "http://attacker.test"
PASSWORD = "member-password-1"


@pytest.fixture(scope="module")
def team_server(
    tmp_path_factory: pytest.TempPathFactory, bundled_bank: Path
) -> Iterator[tuple[str, Settings]]:
    """A team-mode qbank over the bundled content with one member, and its settings."""
    db = tmp_path_factory.mktemp("team-browser") / "qbank.db"
    copy_bank(bundled_bank, db)  # the session's import, not one of the module's own
    settings = team_settings(db)
    database = open_bank(settings)
    with database.session() as session:
        members.create_user(session, name="member", password=PASSWORD, database=database)
    try:
        with serve(settings) as url:
            yield url, settings
    finally:
        database.dispose()


def _attacker_page(browser: Browser, body: str) -> Page:
    context = browser.new_context()
    context.set_default_timeout(10_000)

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body=body)

    context.route(f"{ATTACKER}/**", serve)
    return context.new_page()


def _sessions(settings: Settings) -> int:
    database = open_bank(settings)
    try:
        with database.session() as session:
            return session.exec(select(func.count()).select_from(AuthSession)).one()
    finally:
        database.dispose()


def test_another_site_cannot_frame_qbank(browser: Browser, team_server: tuple[str, Settings]):
    url, _ = team_server
    page = _attacker_page(browser, f'<h1>prize</h1><iframe src="{url}/login"></iframe>')
    with page.expect_response(f"{url}/login") as answered:
        page.goto(f"{ATTACKER}/frame.html")
    response = answered.value
    assert response.status == 200
    assert response.headers["x-frame-options"] == "DENY"
    page.wait_for_load_state("load")
    [frame] = [f for f in page.frames if f is not page.main_frame]
    # Chromium replaces a refused frame with its error page: the sign-in form never appears.
    assert frame.url != f"{url}/login"
    assert frame.locator('input[name="password"]').count() == 0
    page.context.close()


def test_a_sandboxed_frame_cannot_sign_a_browser_in(
    browser: Browser, team_server: tuple[str, Settings]
):
    # Refused twice over (Sec-Fetch-Site: cross-site, Origin: null); tests/team/test_csrf.py
    # checks each on its own.
    url, settings = team_server
    before = _sessions(settings)
    form = (
        f"<form method=post action='{url}/login'>"
        f"<input name=name value=member><input name=password value={PASSWORD}></form>"
        "<script>document.forms[0].submit()</script>"
    )
    body = f'<iframe sandbox="allow-forms allow-scripts" srcdoc="{form}"></iframe>'
    page = _attacker_page(browser, body)
    page.goto(f"{ATTACKER}/login-csrf.html")
    # The frame navigates away from its srcdoc once the server has answered its post (to
    # Chromium's error page: the refusal, like every page of qbank, may not be framed).
    deadline = time.monotonic() + 30
    while [f.url for f in page.frames if f is not page.main_frame] in ([], ["about:srcdoc"]):
        assert time.monotonic() < deadline, "the sandboxed frame never posted its form"
        page.wait_for_timeout(50)
    assert _sessions(settings) == before
    assert [c for c in page.context.cookies() if c["name"] == "qbank_session"] == []
    page.context.close()
