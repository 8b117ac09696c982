"""Shared test helpers (from test_interview_ui.py)."""

from datetime import UTC, date, datetime, timedelta

from playwright.sync_api import Page, expect

from app.infra.models import Learner
from app.scheduling.studyday import local_day

DECK = "gpu-kernels-interview"  # most of its cards have two follow-up questions


def set_interview(page: Page, name: str, days: int, today: date | None = None) -> str:
    """Add an interview `days` after the learner's study day `today` (now's by default)."""
    page.goto("/interviews")
    page.fill('input[name="name"]', name)
    # Counted from the learner's study day (it rolls over at 04:00 in their zone), not the UTC
    # calendar: between midnight and 04:00 the two differ by one day.
    today = today or local_day(Learner(), datetime.now(UTC))
    day = (today + timedelta(days=days)).isoformat()
    page.fill('input[name="date"]', day)
    page.select_option('select[name="deck"]', DECK)
    page.click("#add-interview")
    expect(page.locator("#readiness")).to_contain_text("ready: 0% of")
    return page.url
