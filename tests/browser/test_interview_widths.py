"""Every question of the bundled interview deck fits a phone's width at its checklist.

Checked without script (the server draws each phase), on a server of the test's own: the
session answers all of them. Each question's answer phase, as the server draws it, is laid out
in place of the one page's body, so a session of dozens of questions costs one page load.
"""

import pytest
from playwright.sync_api import expect

from tests.support.browser import NewPage

pytestmark = pytest.mark.browser

DECK = "gpu-kernels-interview"


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server over a fresh copy of the bundled bank (overrides the session-wide one)."""
    return own_server


PHONE = {"width": 390, "height": 844}
# The answer phase of the session's current question, fetched as a navigation would and laid
# out as the page: the server's body replaces this one's under the same stylesheets, and the
# fonts it asks for are waited for, as a page load waits for them. Scripts stay off (those of a
# parsed document never run). Null, or once the session is over the address it was sent to.
SHOW_ANSWER = """async (url) => {
  const answer = await fetch(url + '?phase=answer');
  if (!answer.ok) throw new Error(`${answer.status} for the answer phase`);
  if (answer.url !== url + '?phase=answer') return answer.url;
  const drawn = new DOMParser().parseFromString(await answer.text(), 'text/html');
  document.body.replaceWith(document.adoptNode(drawn.body));
  document.body.getBoundingClientRect();  // a layout, which asks for the fonts it uses
  await document.fonts.ready;
  return null;
}"""
WIDE = """() => Array.from(document.querySelectorAll('#mock-card *'))
    .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
    .map(el => el.tagName.toLowerCase() + '.' + el.className).slice(0, 3)"""
# What pressing the form's submit button sends: its fields, urlencoded. The redirect to the
# next question is not followed, as the next answer phase is fetched from the same address.
SUBMIT = """async () => {
  const form = document.querySelector('#answer-form');
  const body = new URLSearchParams(new FormData(form));
  return (await fetch(form.action, {method: 'POST', body, redirect: 'manual'})).type;
}"""


def test_every_checklist_fits_a_phone(new_page: NewPage) -> None:
    page = new_page(viewport=PHONE, locale="en-US", java_script_enabled=False)
    page.goto(f"/interview/mock?deck={DECK}")
    page.fill('input[name="count"]', "50")
    page.click("#start-mock")
    url = page.url
    questions = int(page.locator(".mock-head progress").get_attribute("max") or 0)
    assert questions >= 20
    checked, wide = [], {}
    for _ in range(50):
        if (ended := page.evaluate(SHOW_ANSWER, url)) is not None:
            break
        expect(page.locator("#phase-answer #checklist")).to_be_visible()
        card = page.locator("#mock-card").get_attribute("data-card-id")
        checked.append(card)
        if page.evaluate("() => document.documentElement.scrollWidth") > PHONE["width"]:
            wide[card] = page.evaluate(WIDE)
        assert page.evaluate(SUBMIT) == "opaqueredirect", card  # accepted: on to the next
    assert ended == url + "/summary"
    assert len(set(checked)) == len(checked) == questions
    assert wide == {}
