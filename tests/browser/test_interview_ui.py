"""Interview mode in Chromium with a fake microphone: set a date, run a mock interview by keys
and by thumb (record, follow-ups, checklist), read the report and play the recording back."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import NewPage
from tests.support.interview_ui import DECK, set_interview

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PAGE_WIDTH = "() => document.documentElement.scrollWidth"
# Set to a directory to keep screenshots of every screen, light and dark, desktop and phone.
SHOTS = os.environ.get("QBANK_SCREENSHOT_DIR")


def shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def answer_by_keys(page: Page) -> None:
    """One question as a keyboard user: record, answer, follow-ups, tick two points, next."""
    card = page.locator("#mock-card")
    expect(page.locator("#record-row")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator("#record")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#record-status")).to_have_text("Recording…")
    page.wait_for_timeout(250)  # some audio to keep; nothing below depends on how much
    page.keyboard.press(" ")
    followups = int(card.get_attribute("data-followups") or 0)
    for index in range(followups):
        phase = page.locator(f"#phase-f{index}")
        expect(phase).to_be_visible()
        expect(phase.locator(".followup-question")).not_to_be_empty()
        expect(page.locator("#phase-answer")).to_be_hidden()
        # The main clock stays on screen, stopped at the answer's time.
        expect(page.locator("#mock-timer .timer-label")).to_have_text("Answered in")
        page.keyboard.press("Enter")
    expect(page.locator("#phase-answer")).to_be_visible()
    # Reaching the model answer stops the recording and keeps it on the server.
    expect(page.locator("#record-status")).to_contain_text("Recording saved")
    total = page.locator('input[name="said"]').count()
    assert total >= 2
    page.keyboard.press("1")
    page.keyboard.press("2")
    expect(page.locator("#coverage-count")).to_have_text(f"2/{total}")
    expect(page.locator('input[name="said"][value="0"]')).to_be_checked()
    expect(page.locator(".mock-ratings label.suggested")).to_have_count(1)
    page.keyboard.press("Enter")


def answer_by_thumb(page: Page) -> None:
    page.click("#done-answering")
    while page.locator(".phase:not([hidden]) .phase-next").count():
        page.click(".phase:not([hidden]) .phase-next")
    expect(page.locator("#phase-answer")).to_be_visible()
    page.locator(".checklist .point").first.click()
    expect(page.locator("#coverage-count")).to_contain_text("1/")
    page.click("#submit-answer")


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_mock_interview_from_the_date_to_the_report(
    new_page: NewPage, width: str, live_server: str
) -> None:
    phone = width == "phone"
    page = new_page(viewport=PHONE if phone else None, locale="en-US", permissions=["microphone"])
    interview = set_interview(page, f"NVIDIA kernel team ({width})", 12)
    try:
        expect(page.locator("#plan tbody tr")).to_have_count(12)
        shot(page, f"interview-{width}-light")
        page.emulate_media(color_scheme="dark")
        shot(page, f"interview-{width}-dark")
        page.emulate_media(color_scheme="light")
        page.goto("/")
        expect(page.locator(".interviews-home")).to_contain_text("in 12 days")
        expect(page.locator(".interviews-home")).to_contain_text("reviews a day gets you there")

        page.goto(f"/interview/mock?deck={DECK}")
        page.fill('input[name="count"]', "2")
        page.click("#start-mock")
        expect(page.locator("#mock-card")).to_be_visible()
        expect(page.locator("#phase-answer")).to_be_hidden()
        expect(page.locator("#mock-clock")).to_have_text(re.compile(r"^\+?\d+:\d\d$"))
        shot(page, f"mock-question-{width}-light")
        assert page.evaluate(PAGE_WIDTH) <= (PHONE["width"] if phone else 1280)
        first = page.locator("#mock-card").get_attribute("data-card-id")
        answer_by_keys(page)

        expect(page.locator("#mock-pos")).to_have_text("2")
        assert page.locator("#mock-card").get_attribute("data-card-id") != first
        page.click("#done-answering")
        while page.locator(".phase:not([hidden]) .phase-next").count():
            page.click(".phase:not([hidden]) .phase-next")
        page.emulate_media(color_scheme="dark")
        shot(page, f"mock-checklist-{width}-dark")
        page.emulate_media(color_scheme="light")
        shot(page, f"mock-checklist-{width}-light")
        assert page.evaluate(PAGE_WIDTH) <= (PHONE["width"] if phone else 1280)
        page.locator(".checklist .point").first.click()
        expect(page.locator("#coverage-count")).to_contain_text("1/")
        page.click("#submit-answer")

        expect(page).to_have_url(re.compile(r"/interview/mock/\d+/summary$"))
        result = page.locator(f"#result-{first}")
        expect(result).to_contain_text("Coverage 2/")
        expect(result.locator(".points-said li.said")).to_have_count(2)
        audio = result.locator("audio")
        expect(audio).to_have_count(1)
        # The recording plays back from this server.
        ready = audio.evaluate(
            """el => new Promise((done, fail) => {
                el.addEventListener('loadedmetadata', () => done(el.readyState), {once: true});
                el.addEventListener('error', () => fail(new Error('cannot play')), {once: true});
                el.load();
            })"""
        )
        assert ready >= 1
        assert audio.evaluate("el => el.play().then(() => !el.paused)")
        shot(page, f"mock-summary-{width}-light")
        page.emulate_media(color_scheme="dark")
        shot(page, f"mock-summary-{width}-dark")
        assert page.evaluate(PAGE_WIDTH) <= (PHONE["width"] if phone else 1280)
        page.goto("/interview/mock")
        expect(page.locator("svg.mock-history")).to_be_visible()
    finally:
        # The server is shared with other browser tests: leave no plan in their study queue.
        page.goto(interview)
        page.click("#delete-interview")
        expect(page).to_have_url(f"{live_server}/interviews")
