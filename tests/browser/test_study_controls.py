"""Study controls in a real Chromium: the browser's zone offered on a first visit, card actions
as plain forms on the card page.

The bank is shared by the whole session: each test puts back what it changed.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import NewPage

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
