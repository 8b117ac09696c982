"""The settings page's FSRS sections in a real Chromium: the workload chart and the fit."""

import pytest
from playwright.sync_api import expect

from tests.support.browser import NewPage

pytestmark = pytest.mark.browser


def test_the_workload_chart_is_drawn_with_its_numbers_and_advice(new_page: NewPage) -> None:
    page = new_page(locale="en-US")
    page.goto("/settings")
    chart = page.locator("svg.chart.workload")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 150
    # Every 0.03 from 0.70 to 0.97, and every 0.01 within 0.02 of the cheapest of those.
    points = chart.locator("g.point").count()
    assert 12 <= points <= 14
    expect(chart.locator("polyline.reviews")).to_be_visible()
    # A vertical line has no width, which Playwright counts as hidden: check it is there.
    expect(chart.locator("g.best line")).to_have_count(1)
    expect(page.locator("#workload-advice")).to_contain_text("Help me decide: at a desired")

    page.locator("#workload summary").click()
    expect(page.locator("#workload table.numbers tbody tr")).to_have_count(points)
    expect(page.locator("#workload tr.best")).to_have_count(1)


def test_the_fit_button_waits_for_enough_reviews_and_says_why(new_page: NewPage) -> None:
    page = new_page(locale="zh-CN")
    page.goto("/settings")
    button = page.locator('#optimizer button[type="submit"].primary')
    expect(button).to_be_disabled()
    expect(page.locator("#optimize-reason")).to_contain_text("复习记录还不够")
    expect(page.locator("#optimizer-in-use")).to_have_text("正在使用 FSRS 默认参数。")


def test_on_a_phone_the_chart_and_its_numbers_scroll_in_their_boxes(new_page: NewPage) -> None:
    page = new_page(viewport={"width": 390, "height": 844}, locale="en-US")
    page.goto("/settings")
    page.locator("#workload details").evaluate("details => details.open = true")
    expect(page.locator("#workload table.numbers")).to_be_visible()
    # The 640-pixel chart keeps its labels readable and scrolls; the page itself does not.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#workload figure.chart-box").bounding_box()
    assert box is not None and box["width"] <= 390
