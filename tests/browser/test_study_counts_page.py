"""The study page's counts against the server's, after every kind of action, in a real Chromium."""

import pytest
from playwright.sync_api import Page, expect

from tests.support.study_client import network, open_study, rate, shown
from tests.support.study_counts import agree

pytestmark = [pytest.mark.browser, pytest.mark.service_worker]


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server of this test's own (overrides the session-wide one)."""
    return own_server


def page_counts(page: Page) -> list[str]:
    return [page.locator(f"#count-{queue}").inner_text() for queue in ("new", "learning", "review")]


def test_the_counts_match_the_server_s_after_every_action(page: Page) -> None:
    open_study(page)
    start = agree(page)
    assert start[1:] == ["0", "0"], "a new learner has only new cards"
    new = int(start[0])

    rate(page, "1")  # Again: a learning step minutes away
    assert page_counts(page) == [str(new - 1), "1", "0"], "painted at once, not after the server"
    assert agree(page) == [str(new - 1), "1", "0"]

    page.keyboard.press("z")
    assert page_counts(page) == start, "the counts before the rating, at once"
    assert agree(page) == start

    card = shown(page)
    page.keyboard.press("@")
    expect(page.locator("#card")).not_to_have_attribute("data-card-id", card)
    # A new card put aside makes room for the next within the day's limit.
    assert page_counts(page) == start
    assert agree(page) == start
    page.keyboard.press("z")
    expect(page.locator("#card")).to_have_attribute("data-card-id", card)
    assert agree(page) == start

    page.keyboard.press("-")
    expect(page.locator("#card")).not_to_have_attribute("data-card-id", card)
    assert agree(page) == start
    page.keyboard.press("z")
    expect(page.locator("#card")).to_have_attribute("data-card-id", card)
    assert agree(page) == start

    page.keyboard.press("Control+2")
    expect(page.locator("#action-flag-2")).to_have_attribute("aria-pressed", "true")
    assert agree(page) == start

    rate(page, "4")  # Easy: days away
    assert agree(page) == [str(new - 1), "0", "0"]

    network(page, offline=True)
    rate(page, "1")
    rate(page, "3")
    rate(page, "4")
    expect(page.locator("#sync-status")).to_have_text("离线：3 项等待发送")
    assert page_counts(page) == [str(new - 4), "2", "0"]
    page.keyboard.press("z")  # taken back before it was sent
    assert page_counts(page) == [str(new - 3), "2", "0"]
    network(page, offline=False)
    assert agree(page) == [str(new - 3), "2", "0"]
