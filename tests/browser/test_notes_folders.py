"""A folder of other people's notes in a real browser: the folder tree, its scopes, the report."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.config import Settings
from app.content.bank.imports import recorded_import
from tests.support.browser import NewPage, open_bank, serve

NOTES = Path(__file__).resolve().parents[1] / "fixtures" / "notes"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PAGE_WIDTH = "document.documentElement.scrollWidth"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local-mode qbank over the nested notes folder and the folder of problems beside it."""
    root = tmp_path_factory.mktemp("notes")
    shutil.copytree(NOTES / "nested", root / "notes")
    shutil.copytree(NOTES / "problems", root / "notes" / "problems")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=f"sqlite:///{root / 'qbank.db'}",
        content_dir=root / "notes",
        mode="local",
    )
    database = open_bank(settings)
    recorded_import(database, settings.content_dir, source="cli")
    try:
        with serve(settings) as origin:
            yield origin
    finally:
        database.dispose()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_a_folder_opens_on_its_own_page_and_studies(
    new_page: NewPage, scheme: str, width: int, height: int
) -> None:
    page = new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.goto("/")
    gpu = page.locator('li.folder-row[data-folder="gpu"]')
    expect(gpu).to_be_visible()
    expect(page.locator('li.folder-row[data-folder="gpu/memory"]')).to_have_count(0)
    gpu.locator("a.folder-name").click()
    expect(page).to_have_url("/folders/gpu")
    memory = page.locator('li.folder-row[data-folder="gpu/memory"]')
    memory.locator("a.folder-name").click()
    expect(page).to_have_url("/folders/gpu/memory")
    expect(page.locator("ul.decks-list .deck-row")).to_have_count(2)
    assert page.evaluate(PAGE_WIDTH) <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"folders-{width}-{scheme}.png", full_page=True)

    page.locator("p.actions a.primary").click()
    expect(page).to_have_url("/study?folder=gpu/memory")
    card = page.locator("#card")
    expect(card).to_be_visible()
    expect(page.locator("p.scope")).to_contain_text("gpu/memory/")
    assert "tiling" not in page.locator("#card .card-meta").inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_the_import_report_lists_warnings_by_file(
    new_page: NewPage, scheme: str, width: int, height: int
) -> None:
    page = new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.goto("/settings")
    page.locator("#import-report-link").click()
    expect(page).to_have_url("/import")
    # The URL changes before the new page's stylesheet has loaded: its width is measured after.
    page.wait_for_load_state("load")
    expect(page.locator("h1")).to_have_text("导入报告")
    files = page.locator("details.import-file > summary code")
    expect(files.first).to_be_visible()
    paths = files.all_inner_texts()
    assert paths, "the problems folder gives warnings"
    assert "problems/bad-formula.md" in paths and paths == sorted(paths)
    first_line = page.locator("details.import-file").first.locator("td.line").first
    assert int(first_line.inner_text()) >= 1
    assert page.evaluate(PAGE_WIDTH) <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"import-report-{width}-{scheme}.png", full_page=True)
