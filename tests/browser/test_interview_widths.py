"""Every question of the bundled interview deck fits a phone's width at its checklist.

Checked without script (the server draws each phase), on a server of the test's own: the
session answers all of them.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import NewPage

pytestmark = pytest.mark.browser

DECK = "gpu-kernels-interview"


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server over a fresh copy of the bundled bank (overrides the session-wide one)."""
    return own_server


PHONE = {"width": 390, "height": 844}
WIDE = """() => Array.from(document.querySelectorAll('#mock-card *'))
    .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
    .map(el => el.tagName.toLowerCase() + '.' + el.className).slice(0, 3)"""


def test_every_checklist_fits_a_phone(new_page: NewPage) -> None:
    page = new_page(viewport=PHONE, locale="en-US", java_script_enabled=False)
    page.goto(f"/interview/mock?deck={DECK}")
    page.fill('input[name="count"]', "50")
    page.click("#start-mock")
    url = page.url
    wide = {}
    for _ in range(50):
        page.goto(url + "?phase=answer")
        if page.url.endswith("/summary"):
            break
        card = page.locator("#mock-card").get_attribute("data-card-id")
        if page.evaluate("() => document.documentElement.scrollWidth") > PHONE["width"]:
            wide[card] = page.evaluate(WIDE)
        page.click("#submit-answer")
    expect(page).to_have_url(url + "/summary")
    assert wide == {}
