"""A cloze card in a real browser: the front hides exactly its own deletion (in prose and inside
a formula, through KaTeX), the back marks it, and the card leads to its note's line. Screenshots
at a phone's and a desk's width, light and dark, land in the test's folder (and in
QBANK_SCREENSHOTS when set) for a look."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from app.config import Settings
from app.content.bank.sync import import_content
from tests.support.browser import open_bank, serve
from tests.support.cloze_notes import NOTES

pytestmark = pytest.mark.browser

RIDGE_FIRST = NOTES["gpu.md"].replace(
    "The H100 SXM has {{c1::132}} SMs and {{c2::50 MB::size}} of L2.\n\n", ""
)


@pytest.fixture
def origin(tmp_path: Path) -> Iterator[str]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "gpu.md").write_text(RIDGE_FIRST, encoding="utf-8")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=f"sqlite:///{tmp_path / 'bank.sqlite'}",
        content_dir=notes,
        mode="local",
    )
    database = open_bank(settings)
    import_content(notes, database)
    database.dispose()
    with serve(settings) as url:
        yield url


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_cloze_card_with_katex_front_and_back(
    browser: Browser, origin: str, tmp_path: Path, width: int, scheme: str
) -> None:
    context = browser.new_context(
        base_url=origin, viewport={"width": width, "height": 800}, color_scheme=scheme, locale="en"
    )
    page = context.new_page()
    page.goto("/study")
    card = page.locator("#card")
    expect(card).to_have_attribute("data-kind", "cloze")
    first = card.get_attribute("data-card-id")
    front = card.locator(".cloze-front")
    expect(front).to_be_visible()
    expect(front.locator(".katex .fbox")).to_have_count(1)
    expect(front).not_to_contain_text("P/B")
    expect(card.locator("h1.question")).to_have_css("position", "absolute")  # for screen readers
    expect(card.locator(".card-meta .source")).to_have_text("gpu.md:5")
    # Nothing wider than the screen.
    wide = page.evaluate(
        "() => Array.from(document.querySelectorAll('#card *'))"
        ".filter(el => el.getBoundingClientRect().right > window.innerWidth + 1).length"
    )
    assert wide == 0
    page.screenshot(path=str(tmp_path / f"cloze-front-{width}-{scheme}.png"))
    page.keyboard.press("Space")
    expect(front).to_be_hidden()
    back = card.locator("#answer-side .answer .prose")
    expect(back).to_contain_text("P/B")
    expect(back.locator(".katex .fbox")).to_have_count(1)
    page.screenshot(path=str(tmp_path / f"cloze-back-{width}-{scheme}.png"))
    shots = tmp_path
    # The next card is painted by the page's script from the JSON API: a cloze card in a list.
    page.keyboard.press("3")
    expect(card).not_to_have_attribute("data-card-id", first)
    expect(card).to_have_attribute("data-kind", "cloze")
    expect(front).to_be_visible()
    expect(front.locator(".cloze-blank")).to_have_text("[…]")
    expect(front).to_contain_text("HBM3 gives about")
    expect(card.locator(".card-meta .source")).to_have_text("gpu.md:7")
    page.keyboard.press("Space")
    expect(front).to_be_hidden()
    expect(card.locator("#answer-side .cloze-answer")).to_have_text("3.35 TB/s")
    page.screenshot(path=str(shots / f"cloze-prose-back-{width}-{scheme}.png"))
    page.locator(".card-meta .source").click()
    expect(page.locator(".note-block.hit")).to_contain_text("HBM3")
    context.close()
    # QBANK_SCREENSHOTS=<folder> keeps them to look at.
    if keep := os.environ.get("QBANK_SCREENSHOTS"):
        Path(keep).mkdir(parents=True, exist_ok=True)
        for shot in tmp_path.glob("cloze-*.png"):
            (Path(keep) / shot.name).write_bytes(shot.read_bytes())
