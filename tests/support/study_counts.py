"""Shared test helpers (from test_study_counts_page.py)."""

from playwright.sync_api import Page, expect

from tests.support.study_client import saved


def server_counts(page: Page) -> list[str]:
    """New, learning and review left today, as the server counts them now."""
    answer = page.request.get("/api/study/next")
    if answer.status == 204:
        return ["0", "0", "0"]
    counts = answer.json()["counts"]
    return [str(counts[queue]) for queue in ("new", "learning", "review")]


def agree(page: Page) -> list[str]:
    """Once everything is sent, the page shows the server's counts; those counts."""
    saved(page)
    expected = server_counts(page)
    for queue, count in zip(("new", "learning", "review"), expected, strict=True):
        expect(page.locator(f"#count-{queue}")).to_have_text(count)
    return expected
