"""The header on a phone: every destination on screen or one tap away, never past the edge."""

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import NewPage

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PAGES = ["/", "/study", "/stats", "/settings", "/search?q=warp", "/interviews"]
# Every destination the header offers a learner in local mode.
DESTINATIONS = {
    "/",
    "/study",
    "/practice",
    "/interviews",
    "/topics",
    "/stats",
    "/settings",
    "/search",
}


def inside(page: Page, selector: str) -> bool:
    """Whether the element is visible and wholly within the viewport's width and height."""
    return page.locator(selector).evaluate(
        """(el) => {
          const box = el.getBoundingClientRect();
          return box.width > 0 && box.height > 0 && box.left >= 0 && box.top >= 0
            && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
        }"""
    )


def reachable(page: Page) -> set[str]:
    """The header's destinations seen on screen, then after one tap on "More"."""
    links = page.locator("header.top a")
    assert links.count() > 0
    seen = set()
    for i in range(links.count()):
        link = links.nth(i)
        if link.is_visible():
            assert link.evaluate("(el) => el.getBoundingClientRect().right") <= PHONE["width"]
            seen.add(link.get_attribute("href"))
    more = page.locator("header.top .nav-more > summary")
    expect(more).to_be_visible()
    assert inside(page, "header.top .nav-more > summary")
    more.tap()
    menu = page.locator("header.top .nav-menu a")
    assert menu.count() > 0
    for i in range(menu.count()):
        link = menu.nth(i)
        expect(link).to_be_visible()
        box = link.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert box["y"] + box["height"] <= PHONE["height"], box
        assert box["height"] >= 44, "a tap target"
        seen.add(link.get_attribute("href"))
    # A tap elsewhere closes the menu.
    page.touchscreen.tap(3, 500)
    expect(page.locator("header.top .nav-menu")).to_be_hidden()
    return seen


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_destination_is_reachable_on_a_phone(
    new_page: NewPage, lang: str, scheme: str
) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True, color_scheme=scheme)
    page.goto(f"/lang/{lang}")
    for path in PAGES:
        page.goto(path)
        seen = reachable(page)
        switch = "/lang/zh" if lang == "en" else "/lang/en"
        assert seen >= DESTINATIONS | {switch}, (path, DESTINATIONS | {switch} - seen)
        # Nothing in the header runs past the right edge: no sideways scroll to find.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
        header = page.locator("header.top").bounding_box()
        assert header is not None and header["height"] <= 56, (path, header)


def test_the_wide_header_shows_every_link_in_one_row(page: Page) -> None:
    page.goto("/")
    expect(page.locator("header.top .nav-more")).to_be_hidden()
    expect(page.get_by_role("searchbox", name="搜索")).to_be_visible()
    for href in sorted(DESTINATIONS - {"/search"}):
        expect(page.locator(f"header.top nav a[href='{href}']:visible")).to_have_count(1)
