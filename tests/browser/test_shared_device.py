"""A shared device in team mode: a member's pages and cards do not outlive her session.

Signing out clears them; a session ended elsewhere (a password changed on another device, an
administrator disabling the account) clears them on the first answer that shows it gone; and
offline, kept pages are shown no later than the end of the study day (static/sw.js).
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Error, Page, expect

from app.accounts import members
from app.infra.db import Database
from app.scheduling.studyday import study_day
from tests.support.browser import ServerClock, copy_bank, open_bank, serve, team_settings
from tests.support.study_client import enhanced

pytestmark = [pytest.mark.browser, pytest.mark.service_worker]

PASSWORD = "member-password-1"
NEW_PASSWORD = "changed-elsewhere-1"
PAGES = ("/study", "/stats", "/settings", "/account")

KEPT_PAGES = """async () => {
  const paths = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith("qbank-pages")) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) paths.push(new URL(request.url).pathname);
  }
  return paths;
}"""
KEPT_UNTIL = """async () => {
  const found = await (await caches.open("qbank-session")).match("/sw/session");
  return found ? (await found.json()).until : null;
}"""
STORED_KEYS = "() => Object.keys(localStorage).filter((key) => key.startsWith('qbank.'))"
PACKS = "() => Object.keys(localStorage).filter((key) => key.startsWith('qbank.pack.'))"


class StoppedClock(ServerClock):
    """The server's time, which a test may also stop at one moment."""

    def __init__(self) -> None:
        super().__init__()
        self.stopped: datetime | None = None

    def now(self) -> datetime:
        return self.stopped or super().now()


@dataclass
class Team:
    url: str
    database: Database
    clock: StoppedClock

    def member(self, name: str) -> str:
        """Add a member called `name`; her name."""
        with self.database.session() as session:
            members.create_user(session, name=name, password=PASSWORD, database=self.database)
        return name


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, bundled_bank: Path) -> Iterator[Team]:
    """A team-mode qbank over the bundled content, on a clock a test may move."""
    db: Path = tmp_path_factory.mktemp("shared-device") / "qbank.db"
    copy_bank(bundled_bank, db)  # the session's import, not one of the module's own
    settings = team_settings(db)
    database = open_bank(settings)
    clock = StoppedClock()
    try:
        with serve(settings, clock) as url:
            yield Team(url, database, clock)
    finally:
        database.dispose()


@pytest.fixture(autouse=True)
def real_time(team: Team) -> Iterator[None]:
    yield
    team.clock.stopped = None


def signed_in(browser: Browser, url: str, name: str, password: str = PASSWORD) -> Page:
    context = browser.new_context(base_url=url, locale="en-GB")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/login")
    page.locator("input[name=name]").fill(name)
    page.locator("input[name=password]").fill(password)
    page.locator("form[action='/login'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/(\?.*)?$"))
    return page


def kept_on_device(page: Page) -> None:
    """Open the member's pages through the service worker, which keeps them, and take the cards."""
    page.goto("/study")
    page.evaluate("() => navigator.serviceWorker.ready")
    page.reload()  # through the worker, which keeps a copy of the member's page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.locator("#take-along").click()
    expect(page.locator("#study-notice")).to_contain_text("until you sign out")
    for path in PAGES[1:]:
        page.goto(path)
    page.goto("/study")
    assert set(page.evaluate(KEPT_PAGES)) >= set(PAGES)
    assert page.evaluate(PACKS)


def shown_offline(page: Page, path: str) -> str | None:
    """The text the browser shows for `path` with no network, or None for its own error page."""
    try:
        page.goto(path)
    except Error as error:
        assert "ERR_INTERNET_DISCONNECTED" in str(error) or "ERR_FAILED" in str(error), error
        return None
    return page.locator("body").inner_text()


def nothing_offline(page: Page, name: str) -> None:
    """Offline, the device shows none of `name`'s pages, and keeps none."""
    # A tab on a file of this origin, which names no session, to look into the caches from.
    probe = page.context.new_page()
    probe.goto(page.locator("link[rel=icon]").get_attribute("href") or "/")
    page.context.set_offline(True)
    for path in PAGES:
        shown = shown_offline(page, path)
        assert shown is None or name not in shown, (path, shown)
    assert probe.evaluate(KEPT_PAGES) == []
    probe.close()
    page.context.set_offline(False)


def test_signing_out_clears_the_kept_pages_and_the_cards_taken_along(
    browser: Browser, team: Team
) -> None:
    page = signed_in(browser, team.url, team.member("leaver"))
    kept_on_device(page)

    page.locator("form[action='/logout'] button:visible").first.click()
    page.wait_for_url(re.compile(r"/login"))
    enhanced(page)  # the sign-in page's script forgets the cards taken along
    assert page.evaluate(KEPT_PAGES) == []
    assert page.evaluate(STORED_KEYS) == []
    nothing_offline(page, "leaver")
    page.context.close()


def test_kept_pages_show_offline_while_the_session_lives(browser: Browser, team: Team) -> None:
    page = signed_in(browser, team.url, team.member("commuter"))
    kept_on_device(page)
    page.context.set_offline(True)
    for path in PAGES:
        assert "commuter" in (shown_offline(page, path) or ""), path
    page.context.close()


def test_another_member_signing_in_clears_the_one_before(browser: Browser, team: Team) -> None:
    first, second = team.member("first"), team.member("second")
    page = signed_in(browser, team.url, first)
    kept_on_device(page)
    hers = "qbank.pack." + page.evaluate("document.body.dataset.learner") + "."
    # Not signed out: the next member signs in over her session, on the same browser.
    page.goto("/login")
    page.locator("input[name=name]").fill(second)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form[action='/login'] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/(\?.*)?$"))
    page.goto("/study")
    assert not [key for key in page.evaluate(PACKS) if key.startswith(hers)]
    page.wait_for_function(
        f"({KEPT_PAGES})().then((paths) => paths.length === 1 && paths[0] === '/study')"
    )
    page.context.set_offline(True)
    for path in PAGES:
        shown = shown_offline(page, path) or ""
        assert first not in shown, (path, shown)
    page.context.close()


def test_a_password_changed_elsewhere_clears_the_device_on_its_next_answer(
    browser: Browser, team: Team
) -> None:
    name = team.member("changer")
    laptop = signed_in(browser, team.url, name)
    kept_on_device(laptop)

    phone = signed_in(browser, team.url, name)
    phone.goto("/account")
    phone.locator("input[name=old_password]").fill(PASSWORD)
    phone.locator("input[name=new_password]").fill(NEW_PASSWORD)
    phone.locator("form[action='/account/password'] button[type=submit]").click()
    phone.wait_for_url(re.compile(r"done=password"))

    # The laptop's next page online is the sign-in page: the session is gone.
    laptop.goto("/stats")
    laptop.wait_for_url(re.compile(r"/login"))
    laptop.wait_for_function(f"({KEPT_PAGES})().then((paths) => paths.length === 0)")
    assert laptop.evaluate(PACKS) == []
    nothing_offline(laptop, name)
    laptop.context.close()
    phone.context.close()


def test_an_account_disabled_elsewhere_clears_the_study_page_when_its_rating_is_refused(
    browser: Browser, team: Team
) -> None:
    name = team.member("disabled")
    page = signed_in(browser, team.url, name)
    kept_on_device(page)

    with team.database.session() as session:
        members.set_disabled(session, name=name, disabled=True, database=team.database)
    # Still on the study page: the rating's answer (401) is the first sign of it.
    page.locator("#reveal").click()
    page.locator("#rate-form button[data-key='3']").click()
    expect(page.locator("body")).to_have_attribute("data-outbox", "signed_out")
    page.wait_for_function(f"({KEPT_PAGES})().then((paths) => paths.length === 0)")
    nothing_offline(page, name)
    page.context.close()


def test_kept_pages_are_deleted_offline_when_the_study_day_ends(
    browser: Browser, team: Team
) -> None:
    name = team.member("latecomer")
    page = signed_in(browser, team.url, name)
    kept_on_device(page)
    with team.database.session() as session:
        _, day_end = study_day(members.get_user(session, name), datetime.now(UTC))
    team.clock.stopped = day_end - timedelta(seconds=2)  # for the server, 2 s of the day left
    page.goto("/study")
    until = page.evaluate(KEPT_UNTIL)
    assert until is not None and until - page.evaluate("Date.now()") <= 2000

    page.context.set_offline(True)
    page.wait_for_function(f"() => Date.now() > {until}")  # the device's own clock
    nothing_offline(page, name)
    page.context.close()
