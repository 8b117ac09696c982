"""The acceptance flow in a real Chromium: continue reading, search, math, practice, keyboard
access, small screens and the language switch (studying: test_study_client.py).

The bank is shared by the whole session, so no test here rates a card, and practice never
changes the schedule.
"""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from app.web.templating import assets

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

MATH_CARD = "memory-vs-compute-bound"  # a kernels-performance card with formulas and topic links
SECTION = "CUDA、Triton 与编译器"  # a kernels-performance section of four cards


def press(page: Page, key: str) -> None:
    """Press `key` once the page's deferred app.js listens (it has run by DOMContentLoaded).

    Call it only after asserting something about the new page, so that the navigation
    has been committed.
    """
    page.wait_for_load_state("domcontentloaded")
    page.keyboard.press(key)


def test_continue_reading_leads_to_a_topic_listing_the_card(page: Page, live_server: str) -> None:
    page.goto(f"/study?card={MATH_CARD}")
    page.get_by_role("link", name=re.compile("显示答案")).click()
    expect(page.locator("#answer-side")).to_be_visible()

    link = page.locator("#answer-side section.reading a.topic-link").first
    href = link.get_attribute("href")
    assert href is not None
    assert re.fullmatch(r"/topics/[a-z0-9-]+", href)
    link.click()

    expect(page).to_have_url(live_server + href)
    expect(page.locator("article.topic h1")).to_be_visible()
    backlinks = page.locator("section.backlinks a[href^='/cards/']")
    expect(backlinks.first).to_be_visible()
    expect(page.locator(f"section.backlinks a[href='/cards/{MATH_CARD}']")).to_be_visible()


def test_header_search_marks_the_query(page: Page) -> None:
    page.goto("/")
    box = page.get_by_role("searchbox", name="搜索")
    box.fill("融合")
    box.press("Enter")

    expect(page).to_have_url(re.compile(r"/search\?q=%E8%9E%8D%E5%90%88$"))
    hits = page.locator("ol.hits li.hit.card")
    expect(hits.first).to_be_visible()
    assert hits.count() >= 2
    for hit in hits.all():
        expect(hit.locator("a[href^='/cards/']")).to_be_visible()
        expect(hit.locator("mark").first).to_have_text("融合")


def test_formulas_use_katex_fonts_from_the_server(page: Page, live_server: str) -> None:
    fonts_dir = live_server + assets.url("katex/fonts/")
    fetched: list[tuple[str, int]] = []

    def on_response(response: Response) -> None:
        if "/katex/fonts/" in response.url:
            fetched.append((response.url, response.status))

    page.on("response", on_response)
    with page.expect_response(lambda r: r.url.startswith(fonts_dir + "KaTeX_Main-")) as main_font:
        page.goto(f"/cards/{MATH_CARD}")
    assert main_font.value.status == 200

    formula = page.locator(".answer .katex").first
    expect(formula).to_be_visible()
    assert "KaTeX_Main" in formula.evaluate("el => getComputedStyle(el).fontFamily")
    fonts = page.evaluate(
        """async () => {
            await document.fonts.ready;
            return {
                main: document.fonts.check('12px KaTeX_Main'),
                loaded: [...document.fonts]
                    .filter(f => f.family.includes('KaTeX') && f.status === 'loaded')
                    .map(f => f.family.replaceAll('"', '')),
            };
        }"""
    )
    assert fonts["main"]
    assert "KaTeX_Main" in fonts["loaded"]
    assert fetched
    assert all(url.startswith(fonts_dir) and status == 200 for url, status in fetched), fetched
    for family in set(fonts["loaded"]):
        assert any(url.startswith(f"{fonts_dir}{family}-") for url, _ in fetched), family
    # The preloaded fonts are the very files the stylesheet asks for: each is fetched once.
    urls = [url for url, _ in fetched]
    assert fonts_dir + "KaTeX_Main-Regular.woff2" in urls
    assert len(urls) == len(set(urls)), urls


def test_timed_practice_of_a_section(page: Page) -> None:
    page.clock.install()  # the page's timers run when the test runs its clock on
    # Record every value the countdown shows, from before its first tick.
    page.add_init_script(
        """addEventListener('DOMContentLoaded', () => {
            const clock = document.querySelector('#timer b');
            if (!clock) return;
            window.seen = [clock.textContent];
            new MutationObserver(() => window.seen.push(clock.textContent))
                .observe(clock, {childList: true, characterData: true, subtree: true});
        });"""
    )
    page.goto("/decks/kernels-performance")
    section = page.locator("section.section").filter(
        has=page.get_by_role("heading", name=SECTION, exact=True)
    )
    section.get_by_role("link", name="练习本节").click()

    expect(page.locator("#practice-form select[name=deck]")).to_have_value("kernels-performance")
    expect(page.locator("#practice-form input[name=section]")).to_have_value(SECTION)
    page.get_by_label("每题限时").fill("2")
    page.locator("#start-practice").click()

    expect(page).to_have_url(re.compile(r"/practice/\d+$"))
    progress = page.locator(".study-head .counts")
    expect(progress).to_contain_text(SECTION)
    total = int(re.search(r"/ (\d+)", progress.inner_text()).group(1))  # type: ignore[union-attr]
    assert total >= 2

    # The countdown runs down to zero, on the page's clock run on by the test.
    clock = page.locator("#timer b")
    expect(page.locator("#timer")).to_have_attribute("data-seconds", "2")
    expect(clock).to_be_visible()
    page.clock.run_for(2_500)
    expect(page.locator("#time-up")).to_be_visible()
    expect(page.locator("#time-up")).to_have_text("时间到")
    expect(clock).to_have_text("0:00")
    expect(page.locator("#timer")).to_have_class(re.compile(r"\blow\b"))
    seen = list(dict.fromkeys(page.evaluate("window.seen")))
    assert seen[0] == "0:02", seen
    assert seen[-1] == "0:00", seen
    assert seen == sorted(seen, reverse=True), seen

    ratings = ["1", "2"] + ["3"] * (total - 2)
    card = page.locator("#card")
    questions = []
    for position, rating in enumerate(ratings, start=1):
        expect(page.locator("#practice-pos")).to_have_text(str(position))
        card_id = card.get_attribute("data-card-id")
        questions.append(card_id)
        expect(page.locator("#answer-side")).to_be_hidden()
        press(page, "Space")
        expect(page.locator("#answer-side")).to_be_visible()
        expect(page.locator("#timer")).to_be_hidden()
        # Every card of the deck has follow-up questions: they are what the interviewer presses.
        prompt = page.locator(".followup-prompt").first
        expect(prompt).to_be_visible()
        expect(prompt.get_by_role("heading")).to_have_text("面试官追问")
        expect(prompt.locator("li details summary").first).to_be_visible()
        press(page, rating)
        if position < total:
            expect(card).not_to_have_attribute("data-card-id", card_id or "")

    expect(page).to_have_url(re.compile(r"/practice/\d+/summary$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("练习总结")
    expect(page.locator("p.counts")).to_contain_text(f"已作答 {total} / {total}")
    missed = page.locator("section.missed").filter(has_text="没答上来")
    shaky = page.locator("section.missed").filter(has_text="答得吃力")
    expect(missed.locator(f"a[href='/cards/{questions[0]}']")).to_be_visible()
    expect(shaky.locator(f"a[href='/cards/{questions[1]}']")).to_be_visible()
    expect(page.get_by_role("button", name="再练一次没答上的")).to_be_visible()


def test_keyboard_only_navigation(page: Page) -> None:
    page.goto("/")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("跳到正文")
    expect(skip).to_be_in_viewport()
    nav = page.locator("header.top nav a:visible:not(.lang)")
    hrefs = [link.get_attribute("href") for link in nav.all()]
    assert {"/", "/study", "/practice", "/topics", "/settings"} <= set(hrefs), hrefs
    for link in nav.all():
        page.keyboard.press("Tab")
        expect(link).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("searchbox", name="搜索")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("header.top a.lang:visible")).to_be_focused()

    # The skip link jumps past the header: the next stop is the first control of the page.
    for _ in range(len(hrefs) + 2):
        page.keyboard.press("Shift+Tab")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    page.keyboard.press("Tab")
    # Until the learner has chosen a time zone, its offer comes first.
    offer = page.locator("#zone-offer button:visible")
    first = offer.first if offer.count() else page.locator("#study-all")
    expect(first).to_be_focused()

    page.goto(f"/study?card={MATH_CARD}")
    press(page, "Space")
    labels = {"again": "重来", "hard": "困难", "good": "良好", "easy": "简单"}
    for key, (name, label) in enumerate(labels.items(), start=1):
        button = page.get_by_role("button", name=re.compile(f"^{label}"))
        expect(button).to_be_visible()
        expect(button).to_have_class(re.compile(rf"\brate {name}\b"))
        expect(button).to_have_attribute("data-key", str(key))
        assert button.evaluate("el => el.tagName") == "BUTTON"
        expect(button.locator(".label")).to_be_visible()
        expect(button.locator(".label")).to_contain_text(f"{label} {key}")
    page.keyboard.press("Tab")
    easy = page.locator("#rate-form button.rate.easy")
    expect(easy).to_be_focused()
    assert easy.evaluate("el => getComputedStyle(el).outlineStyle") == "solid"


@pytest.mark.parametrize(
    ("name", "viewport"),
    [pytest.param("desktop", DESKTOP, id="desktop"), pytest.param("phone", PHONE, id="phone")],
)
def test_revealed_study_page_fits_the_screen(
    new_page: Callable[..., Page], name: str, viewport: dict[str, int]
) -> None:
    page = new_page(viewport=viewport)
    page.goto(f"/study?card={MATH_CARD}")
    press(page, "Space")
    expect(page.locator("#answer-side")).to_be_visible()
    page.evaluate("async () => { await document.fonts.ready; }")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"study-{name}.png", full_page=True)

    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"horizontal overflow at {viewport['width']}px: {width}"
    for button in page.locator("#rate-form button.rate").all():
        button.scroll_into_view_if_needed()
        expect(button).to_be_visible()
        expect(button).to_be_in_viewport()


def test_language_switch(page: Page) -> None:
    page.goto(f"/study?card={MATH_CARD}")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#reveal")).to_contain_text("显示答案")
    expect(page.locator("header.top nav a[href='/study']")).to_have_text("学习")

    page.locator("header.top a.lang:visible").click()
    expect(page).to_have_url(re.compile(rf"/study\?card={MATH_CARD}$"))
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#reveal")).to_contain_text("Show answer")
    expect(page.locator("header.top nav a[href='/study']")).to_have_text("Study")
    expect(page.locator("header.top a.lang:visible")).to_have_text("中文")

    page.locator("header.top a.lang:visible").click()
    expect(page.locator("#reveal")).to_contain_text("显示答案")
    expect(page.locator("header.top a.lang:visible")).to_have_text("English")


def test_api_docs_render_without_external_requests(page: Page) -> None:
    # The page fixture aborts and reports any request that leaves the test server.
    page.goto("/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("qbank")
    expect(page.locator(".opblock-summary-path", has_text="/api/study/next").first).to_be_visible()
