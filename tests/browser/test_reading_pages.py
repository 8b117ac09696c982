"""Reading pages in a real browser: highlighted code, search results, statistics on a phone."""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import NewPage

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
CODE_CARD = "gk-warp-shuffle-reduce"  # a CUDA warp-shuffle reduction in a fenced block

PAGE_WIDTH = "() => document.documentElement.scrollWidth"
# The size a chart's text is drawn at: its font size times the chart's scale on screen.
CHART_TEXT = """() => [...document.querySelectorAll('svg.chart')].map(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const text = svg.querySelector('text');
    return [svg.classList[1], text ? parseFloat(getComputedStyle(text).fontSize) * scale : 99];
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_cuda_code_is_highlighted_in_both_themes(new_page: NewPage, scheme: str) -> None:
    page = new_page(color_scheme=scheme)
    page.goto(f"/cards/{CODE_CARD}")
    keyword = page.locator("pre code.language-cuda .hl-k", has_text="return").first
    expect(keyword).to_be_visible()
    colour = keyword.evaluate("el => getComputedStyle(el).color")
    plain = page.locator("pre code.language-cuda").evaluate("el => getComputedStyle(el).color")
    assert colour != plain  # the keyword really has its own colour
    page_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (page_bg == "rgb(21, 23, 26)") == (scheme == "dark")


def test_long_code_scrolls_inside_its_box_on_a_phone(new_page: NewPage) -> None:
    page = new_page(viewport=PHONE)
    page.goto(f"/cards/{CODE_CARD}")
    box = page.locator(".prose pre").first
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    assert box.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    # The hint: a shadow on the clipped side, drawn by the box's background.
    assert "radial-gradient" in box.evaluate("el => getComputedStyle(el).backgroundImage")
    assert page.evaluate(PAGE_WIDTH) <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    box.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "code-390-light.png")


def test_statistics_page_at_phone_width(new_page: NewPage) -> None:
    page = new_page(viewport=PHONE)
    page.goto("/stats")
    expect(page.locator("svg.chart.heatmap")).to_be_visible()
    assert page.evaluate(PAGE_WIDTH) <= PHONE["width"]
    sizes = page.evaluate(CHART_TEXT)
    assert sizes, "no charts"
    for kind, size in sizes:
        assert size >= 11, f"{kind} labels drawn at {size:.1f} px"
    # Charts wider than the phone scroll inside their own box; the calendar opens on its
    # newest weeks.
    heat = page.locator("#reviews .chart-box")
    assert heat.evaluate("el => el.scrollWidth > el.clientWidth")
    newest = page.locator("svg.heatmap .cells rect").last
    assert newest.evaluate("el => el.getBoundingClientRect().right") <= PHONE["width"]
    # The numbers stay in tables, which scroll rather than widen the page.
    page.locator("#reviews summary").click()
    table = page.locator("#reviews .table-wrap")
    expect(table).to_be_visible()
    assert page.evaluate(PAGE_WIDTH) <= PHONE["width"]


def test_statistics_page_on_a_desktop_shows_charts_whole(page: Page) -> None:
    page.goto("/stats")
    boxes = page.locator(".chart-box").all()
    assert boxes, "no charts"
    for box in boxes:
        assert box.evaluate("el => el.scrollWidth <= el.clientWidth")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_search_results_wrap_in_the_page_with_the_match_marked(
    new_page: NewPage, scheme: str, width: int
) -> None:
    page = new_page(viewport={"width": width, "height": 844}, color_scheme=scheme)
    # An English word inside long runs of Chinese text, which has no spaces to break at.
    page.goto("/search?q=roofline")
    hits = page.locator("ol.hits li.hit")
    expect(hits.first).to_be_visible()
    assert hits.count() >= 5
    assert page.evaluate(PAGE_WIDTH) <= width
    for snippet in page.locator("p.snippet").all()[:10]:
        assert snippet.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        assert "\\" not in snippet.inner_text() and "$" not in snippet.inner_text()
    mark = page.locator("p.snippet mark, li.hit a mark").first
    expect(mark).to_be_visible()
    background = mark.evaluate("el => getComputedStyle(el).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"search-{width}-{scheme}.png", full_page=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_bundled_card_shows_its_figure(new_page: NewPage, scheme: str, width: int) -> None:
    page = new_page(viewport={"width": width, "height": 844}, color_scheme=scheme)
    page.goto("/cards/notes-roofline-optimize")
    figure = page.get_by_role("img", name="Roofline 图", exact=False)
    expect(figure).to_be_visible()
    # It loads lazily, once near the viewport: scrolled to, it must arrive and decode.
    figure.scroll_into_view_if_needed()
    page.wait_for_function(
        "el => el.complete && el.naturalWidth > 0", arg=figure.element_handle(), timeout=15_000
    )
    assert figure.evaluate("el => el.getBoundingClientRect().right") <= width
    assert page.evaluate(PAGE_WIDTH) <= width
    ARTIFACTS.mkdir(exist_ok=True)
    figure.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / f"card-figure-{width}-{scheme}.png")
