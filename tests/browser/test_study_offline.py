"""qbank installed and offline: the app shell from the service worker, a whole day studied in
airplane mode, and every rating on the server once, at the time it was made, after reconnecting."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import NewPage, query
from tests.support.study_client import logged, network, saved
from tests.support.study_counts import agree, server_counts

pytestmark = [pytest.mark.browser, pytest.mark.service_worker]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server of this test's own (overrides the session-wide one)."""
    return own_server


def installed(page: Page, path: str = "/study") -> None:
    """Open `path` once the service worker controls the page and has kept the app shell."""
    page.goto(path)
    page.evaluate("() => navigator.serviceWorker.ready")
    page.reload()  # now through the worker, which keeps a copy of the page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.wait_for_load_state("networkidle")


def times(bank: Path) -> list[datetime]:
    rows = query(
        bank,
        "SELECT reviewed_at FROM reviewlog WHERE mode = 'study' AND undone_at IS NULL ORDER BY id",
    )
    return [datetime.fromisoformat(str(at)).replace(tzinfo=UTC) for (at,) in rows]


def test_the_installed_app_opens_offline_with_its_styles_and_fonts(new_page: NewPage) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    manifest_url = page.goto("/") and page.locator("link[rel=manifest]").get_attribute("href")
    assert manifest_url
    manifest = json.loads(page.request.get(manifest_url).text())
    assert manifest["start_url"] == "/study" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert page.request.get(manifest_url.rsplit("/", 1)[0] + "/" + icon["src"]).ok
    installed(page, "/")

    network(page, offline=True)
    page.goto("/study")  # never opened before: the worker has the shell, not this page
    expect(page.locator("header.top")).to_be_visible()
    # The page's own stylesheet applied, from the worker's cache.
    background = page.locator("header.top").evaluate("el => getComputedStyle(el).backgroundColor")
    assert background == "rgb(255, 255, 255)"
    fonts = page.evaluate(
        "() => caches.keys().then(names => Promise.all(names.map(n => caches.open(n)"
        ".then(c => c.keys())))).then(lists => lists.flat().map(r => r.url))"
    )
    assert any(url.endswith("KaTeX_Main-Regular.woff2") for url in fonts)
    network(page, offline=False)


def test_a_whole_day_studied_offline_arrives_once_in_order_at_its_times(
    new_page: NewPage, bank: Path
) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    installed(page)
    page.locator("#take-along").click()
    expect(page.locator("#study-notice")).to_contain_text("已在本机保存")
    held = int(re.search(r"\d+", page.locator("#study-notice").inner_text()).group())
    start = agree(page)
    assert held == sum(map(int, start)), "the day's whole queue"

    network(page, offline=True)
    page.reload()  # the worker's copy of the page, studying on from the cards kept
    expect(page.locator("#card")).to_have_attribute("data-card-id", re.compile(".+"))
    went_offline = datetime.now(UTC)
    rated = []
    again = None
    for _ in range(held + 5):
        card = page.locator("#card").get_attribute("data-card-id")
        if not card:
            break
        page.locator("#reveal").tap()
        # The first card again: it comes back as a learning step within the session.
        key = "1" if again is None else "4"
        again = again or card
        page.locator(f"#rate-form button[data-key='{key}']").tap()
        expect(page.locator("#card")).not_to_have_attribute("data-card-id", card)
        rated.append(card)
    assert len(rated) == held + 1, "every card, and the learning step once more"
    assert rated.count(again) == 2 and rated[-1] == again, "the step comes back after the rest"
    expect(page.locator("#count-new")).to_have_text("0")
    expect(page.locator("#count-learning")).to_have_text("0")
    assert logged(bank) == []

    back_online = datetime.now(UTC)
    network(page, offline=False)
    saved(page)
    assert logged(bank) == rated, "each once, in the order made"
    made = times(bank)
    assert made == sorted(made)
    assert all(went_offline <= at <= back_online for at in made), (went_offline, made, back_online)
    # Everything saved and nothing left: the server's page for a finished day.
    expect(page.locator("#done")).to_be_visible()
    assert server_counts(page) == ["0", "0", "0"]
