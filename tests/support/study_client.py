"""Shared test helpers (from test_study_client.py)."""

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.support.browser import query

# Generous: a retry after a dropped connection waits out the outbox's backoff.
SAVED_WITHIN_MS = 30_000


def logged(bank: Path) -> list[str]:
    """Cards of the live study ratings, oldest first."""
    rows = query(
        bank, "SELECT card_id FROM reviewlog WHERE mode = 'study' AND undone_at IS NULL ORDER BY id"
    )
    return [card for (card,) in rows]


def shown(page: Page) -> str:
    card = page.locator("#card")
    expect(card).to_have_attribute("data-card-id", re.compile(r".+"))
    return card.get_attribute("data-card-id") or ""


def rate(page: Page, key: str = "3") -> str:
    """Reveal the card shown and rate it with `key`; the id of the card rated."""
    card = shown(page)
    if page.locator("#card").get_attribute("data-revealed") != "true":
        page.keyboard.press("Space")
    expect(page.locator("#answer-side")).to_be_visible()
    page.keyboard.press(key)
    expect(page.locator("#card")).not_to_have_attribute("data-card-id", card)
    return card


def saved(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.outboxWaiting === '0'"
        " && document.body.dataset.outboxSending === 'false'",
        timeout=SAVED_WITHIN_MS,
    )


def open_study(page: Page, url: str = "/study") -> None:
    """Open the study page and let it fill its buffer of cards ahead."""
    page.goto(url)
    listening(page)


def listening(page: Page) -> None:
    """Wait until the study page's script runs: it says so once its first top-up is done."""
    page.wait_for_function("() => document.body.dataset.ahead !== undefined")


def enhanced(page: Page) -> None:
    """Wait until static/app.js has enhanced the page's keys and forms (any page but study)."""
    page.wait_for_function("() => document.body.dataset.enhanced === 'true'")


def network(page: Page, *, offline: bool) -> None:
    """Cut or restore the page's network (Playwright does it with CDP's network emulation)."""
    page.context.set_offline(offline)
