"""Study controls in a real Chromium: the browser's zone offered on a first visit, card actions
as plain forms on the card page.

The bank is shared by the whole session: each test puts back what it changed.
"""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from app.accounts import members
from tests.support.browser import NewPage, copy_bank, open_bank, query, serve, team_settings

pytestmark = pytest.mark.browser


def test_the_first_visit_offers_the_browsers_zone(new_page: NewPage) -> None:
    page = new_page(timezone_id="Asia/Shanghai", locale="en-US")
    page.goto("/")
    offer = page.locator("#zone-offer")
    expect(offer).to_contain_text("Your browser's time zone is Asia/Shanghai. Use it?")
    try:
        offer.get_by_role("button", name="Use it").click()
        expect(page.locator("#zone-offer")).to_have_count(0)
        assert page.request.get("/api/study/today").json()["timezone"] == "Asia/Shanghai"
    finally:
        page.request.post("/settings/timezone", form={"timezone": "UTC"})


@pytest.fixture
def invited(tmp_path: Path, bundled_bank: Path) -> Iterator[tuple[str, str, Path]]:
    """A team-mode server of its own, an invitation to it, and its SQLite file."""
    db = tmp_path / "team.db"
    copy_bank(bundled_bank, db)
    settings = team_settings(db)
    database = open_bank(settings)
    try:
        with database.session() as session:
            admin = members.create_user(
                session, name="admin", password="admin-password-1", is_admin=True, database=database
            )
            token = members.create_invite(
                session, admin=admin, now=datetime.now(UTC), days=1, database=database
            )
        with serve(settings) as origin:
            yield origin, token, db
    finally:
        database.dispose()


def test_a_new_account_is_offered_the_browsers_zone(
    browser: Browser, invited: tuple[str, str, Path]
) -> None:
    origin, token, db = invited
    context = browser.new_context(base_url=origin, locale="en-US", timezone_id="Asia/Tokyo")
    try:
        page = context.new_page()
        page.goto(f"/invite/{token}")
        page.locator("input[name=name]").fill("newcomer")
        page.locator("input[name=password]").fill("newcomer-password-1")
        page.get_by_role("button", name="Sign up").click()
        offer = page.locator("#zone-offer")
        expect(offer).to_contain_text("Your browser's time zone is Asia/Tokyo. Use it?")
        offer.get_by_role("button", name="Use it").click()
        expect(page.locator("#zone-offer")).to_have_count(0)
        assert query(db, "SELECT timezone FROM learner WHERE name = 'newcomer'") == [
            ("Asia/Tokyo",)
        ]
        page.goto("/settings")
        expect(page.locator("#timezone")).to_have_value("Asia/Tokyo")
        page.goto("/")
        expect(page.locator("#zone-offer")).to_have_count(0)  # chosen once, offered no more
    finally:
        context.close()


def test_suspend_and_flag_from_the_card_page_without_script(new_page: NewPage) -> None:
    page = new_page(java_script_enabled=False, locale="en-US")
    card = page.request.get("/api/study/next").json()["id"]
    page.goto(f"/cards/{card}")
    try:
        page.locator("#action-suspend").click()
        expect(page.locator(".notice[role=status]")).to_have_text(
            "Card suspended until unsuspended."
        )
        assert page.request.get("/api/study/next").json()["id"] != card
        page.locator("#action-flag-3").click()
        expect(page.locator("#action-flag-3")).to_have_attribute("aria-pressed", "true")
        page.goto("/marks/suspended")
        expect(page.locator(f"#marked-{card}")).to_be_visible()
        page.locator(f"#marked-{card} button").click()
        expect(page.locator("#marked-empty")).to_be_visible()
    finally:
        page.request.post(f"/api/cards/{card}/unsuspend")
        page.request.post(f"/api/cards/{card}/flag", data={"flag": 0})
    assert page.request.get("/api/study/next").json()["id"] == card
