"""A mock interview in Chromium through a dropped connection: answers and recordings made offline
reach the server once it returns, exactly once, and a reload while offline loses none of them.

The test has a server of its own over a fresh copy of the bundled bank and reads the answers
straight from its SQLite file.
"""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect

from tests.support.browser import NewPage, query

pytestmark = [pytest.mark.browser, pytest.mark.service_worker]

DECK = "gpu-kernels-interview"
ANSWERS = re.compile(r"/api/mocks/\d+/answers$")
# Generous: a retry after a dropped connection waits out the outbox's backoff.
SAVED_WITHIN_MS = 30_000


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server of this test's own (overrides the session-wide one)."""
    return own_server


def delivered(page: Page, mock_id: str) -> None:
    """Everything the page queued has reached the server: the answers, then the recordings."""
    page.wait_for_function(
        "() => document.body.dataset.outboxWaiting === '0'"
        " && document.body.dataset.outboxSending === 'false'",
        timeout=SAVED_WITHIN_MS,
    )
    # Every recording (this mock's are the only ones) has been kept by the server.
    page.wait_for_function(
        "() => document.body.dataset.recordingsWaiting === '0'", timeout=SAVED_WITHIN_MS
    )


def answer(
    page: Page, *, record: bool = False, count_as_review: bool = False, last: bool = False
) -> str:
    """Answer the question on screen: all follow-ups, the first key point, then send it."""
    card = page.locator("#mock-card")
    card_id = card.get_attribute("data-card-id") or ""
    if record:
        page.keyboard.press("r")
        expect(page.locator("#record")).to_have_attribute("aria-pressed", "true")
        page.wait_for_timeout(250)  # some audio to keep; nothing below depends on how much
    page.click("#done-answering")
    while page.locator("#mock-card .phase:not([hidden]) .phase-next").count():
        page.click("#mock-card .phase:not([hidden]) .phase-next")
    expect(page.locator("#phase-answer")).to_be_visible()
    page.locator("#mock-card .checklist .point").first.click()
    if count_as_review:
        page.check('#mock-card input[name="count_as_review"]')
        page.check('#mock-card input[name="rating"][value="4"]')
    page.click("#submit-answer")
    if not last:
        expect(page.locator("#mock-card")).not_to_have_attribute("data-card-id", card_id)
    return card_id


def test_a_mock_interview_partly_offline_reaches_the_server_exactly_once(
    new_page: NewPage, bank: Path
) -> None:
    page = new_page(locale="en-US", permissions=["microphone"])
    page.goto(f"/interview/mock?deck={DECK}")
    page.fill('input[name="count"]', "4")
    page.click("#start-mock")
    expect(page.locator("#mock-card")).to_be_visible()
    page.wait_for_load_state("networkidle")
    mock_id = page.url.rsplit("/", 1)[1]
    (order,) = query(bank, "SELECT card_ids FROM mocksession WHERE id = ?", mock_id)[0]
    questions = json.loads(order)

    # The first answer reaches the server, but its answer is lost on the way back: the retry,
    # with the same Idempotency-Key, records nothing more.
    attempts: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        attempts.append(route.request.headers.get("idempotency-key", ""))
        if len(attempts) == 1:
            route.fetch()
            route.abort()
        else:
            route.continue_()

    page.route(ANSWERS, lose_the_first_answer)
    first = answer(page)
    delivered(page, mock_id)
    page.unroute(ANSWERS)
    assert len(attempts) >= 2 and len(set(attempts)) == 1
    assert first == questions[0]

    # Offline: the session goes on, the answers and a recording wait on this device.
    page.context.set_offline(True)
    second = answer(page, record=True)
    expect(page.locator("#sync-status")).to_have_text("Offline · answers waiting: 1")
    third = answer(page, count_as_review=True)
    expect(page.locator("#sync-status")).to_have_text("Offline · answers waiting: 2")
    assert [second, third] == questions[1:3]
    assert query(bank, "SELECT card_id FROM mockanswer") == [(first,)]
    assert query(bank, "SELECT card_id FROM recording") == []

    # A reload while offline shows a page the service worker kept, and loses nothing queued.
    page.reload()
    expect(page.locator("header.top")).to_be_visible()
    page.context.set_offline(False)
    page.goto(f"/interview/mock/{mock_id}")
    delivered(page, mock_id)
    # The page asks the one question left, not one answered offline.
    expect(page.locator("#mock-card")).to_have_attribute("data-card-id", questions[3])
    answers = query(bank, "SELECT card_id, position FROM mockanswer ORDER BY position")
    assert answers == [(first, 0), (second, 1), (third, 2)]
    (size,) = query(bank, "SELECT size FROM recording WHERE card_id = ?", second)[0]
    assert size > 0

    fourth = answer(page, last=True)
    expect(page).to_have_url(re.compile(rf"/interview/mock/{mock_id}/summary$"))
    assert query(bank, "SELECT card_id FROM mockanswer ORDER BY position") == [
        (first,),
        (second,),
        (third,),
        (fourth,),
    ]
    logged = query(bank, "SELECT card_id, mode FROM reviewlog ORDER BY id")
    assert sorted(logged) == sorted(
        [(first, "practice"), (second, "practice"), (third, "study"), (fourth, "practice")]
    )
    (finished,) = query(bank, "SELECT finished_at FROM mocksession WHERE id = ?", mock_id)[0]
    assert finished is not None
    expect(page.locator(f"#result-{second} audio")).to_have_count(1)
