"""A shared device in team mode: signing out leaves none of the member's pages or cards behind."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from app.accounts import members
from tests.browser.conftest import copy_bank, open_bank, serve, team_settings

pytestmark = pytest.mark.browser

PASSWORD = "member-password-1"

KEPT_PAGES = """async () => {
  const cache = await caches.open("qbank-pages");
  return (await cache.keys()).map((request) => new URL(request.url).pathname);
}"""
STORED_KEYS = "() => Object.keys(localStorage).filter((key) => key.startsWith('qbank.'))"


@pytest.fixture(scope="module")
def team_server(tmp_path_factory: pytest.TempPathFactory, bundled_bank: Path) -> Iterator[str]:
    """A team-mode qbank over the bundled content with one member."""
    db: Path = tmp_path_factory.mktemp("shared-device") / "qbank.db"
    copy_bank(bundled_bank, db)  # the session's import, not one of the module's own
    settings = team_settings(db)
    database = open_bank(settings)
    with database.session() as session:
        members.create_user(session, name="member", password=PASSWORD)
    try:
        with serve(settings) as url:
            yield url
    finally:
        database.dispose()


def signed_in(browser: Browser, url: str) -> Page:
    context = browser.new_context(base_url=url, locale="en-GB")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/login")
    page.locator("input[name=name]").fill("member")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form[action='/login'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/(\?.*)?$"))
    return page


def test_signing_out_clears_the_kept_pages_and_the_cards_taken_along(
    browser: Browser, team_server: str
) -> None:
    page = signed_in(browser, team_server)
    page.goto("/study")
    page.evaluate("() => navigator.serviceWorker.ready")
    page.reload()  # through the worker, which keeps a copy of the member's page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.locator("#take-along").click()
    expect(page.locator("#study-notice")).to_contain_text(re.compile(r"\d"))
    assert "/study" in page.evaluate(KEPT_PAGES)
    assert any(key.startswith("qbank.pack.") for key in page.evaluate(STORED_KEYS))

    page.locator("form[action='/logout'] button:visible").first.click()
    page.wait_for_url(re.compile(r"/login"))
    page.wait_for_load_state("networkidle")
    # The sign-in page may be kept again by the worker it installs anew; nothing else is.
    assert set(page.evaluate(KEPT_PAGES)) <= {"/login"}
    assert page.evaluate(STORED_KEYS) == []
    page.context.close()
