"""The study page as a client of the JSON API, in a real Chromium against a real server.

Each test gets its own server over a fresh copy of the bundled bank, and reads the review log
straight from its SQLite file: a rating counts only once it is there, exactly once.
"""

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, Route, expect

from tests.support.browser import NewPage, Traffic, query
from tests.support.study_client import (
    enhanced,
    listening,
    logged,
    network,
    open_study,
    rate,
    saved,
    shown,
)

pytestmark = [pytest.mark.browser, pytest.mark.service_worker]

PHONE = {"width": 390, "height": 844}
SECTION = "CUDA 运行时：stream 与同步"  # a few cards in the bundled content
# The page has moved on from card `old`: to another card, or to the done page.
NEXT_OR_DONE = """old => {
    const done = document.querySelector('#done');
    if (done && done.offsetParent !== null) return true;
    const card = document.querySelector('#card');
    return Boolean(card && card.dataset.cardId && card.dataset.cardId !== old);
}"""
REVIEWS = re.compile(r"/api/reviews(\?|$)")


@pytest.fixture
def live_server(own_server: str) -> str:
    """A server of this test's own (overrides the session-wide one)."""
    return own_server


def schedule(bank: Path) -> list[tuple]:
    return query(bank, "SELECT * FROM cardstate ORDER BY card_id") + query(
        bank, "SELECT new_cursor FROM learner"
    )


def test_ratings_made_offline_arrive_once_when_the_network_returns(page: Page, bank: Path) -> None:
    open_study(page)
    first = rate(page)
    saved(page)
    assert logged(bank) == [first]

    network(page, offline=True)
    offline = [rate(page) for _ in range(5)]
    expect(page.locator("#sync-status")).to_have_text("离线：5 项等待发送")
    assert logged(bank) == [first]

    network(page, offline=False)
    saved(page)
    expect(page.locator("#sync-status")).not_to_contain_text("离线")
    assert logged(bank) == [first, *offline]
    assert len(set(logged(bank))) == 6


def test_a_reload_with_ratings_queued_loses_none(page: Page, bank: Path) -> None:
    open_study(page)
    page.route(REVIEWS, lambda route: route.abort())
    queued = [rate(page) for _ in range(3)]
    assert logged(bank) == []

    page.unroute(REVIEWS)
    page.reload()
    saved(page)
    assert logged(bank) == queued
    assert shown(page) not in queued


def test_a_closed_tab_is_sent_by_the_next_page(new_page: NewPage, bank: Path) -> None:
    page = new_page()
    open_study(page)
    page.route(REVIEWS, lambda route: route.abort())
    queued = [rate(page) for _ in range(2)]
    context = page.context
    page.close()
    # The closing page hands its oldest rating to the browser, which may send it past the page's
    # route (static/outbox.js, pagehide): that one at most, never a later one first.
    assert logged(bank) in ([], queued[:1])

    home = context.new_page()
    home.goto("/")
    saved(home)
    assert logged(bank) == queued


def test_a_double_press_and_a_lost_answer_record_one_review(page: Page, bank: Path) -> None:
    attempts: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        attempts.append(route.request.headers["idempotency-key"])
        if len(attempts) == 1:
            route.fetch()  # the server records the rating...
            route.abort()  # ...and its answer never arrives
        else:
            route.continue_()

    open_study(page)
    page.route(REVIEWS, lose_the_first_answer)
    card = shown(page)
    page.keyboard.press("Space")
    page.keyboard.press("3")
    page.keyboard.press("3")
    page.locator("#rate-form button.rate.good").dispatch_event("click")
    saved(page)

    assert logged(bank) == [card]
    assert len(attempts) == 2 and attempts[0] == attempts[1], "the retry reuses its key"
    assert page.locator("#answer-side").is_hidden(), "the next card waits to be revealed"


def test_undo_three_deep_restores_all_three_cards(page: Page, bank: Path) -> None:
    open_study(page)
    kept = [rate(page, key) for key in "134"]
    saved(page)
    before = schedule(bank)

    undone = [rate(page, key) for key in "432"]
    saved(page)
    assert logged(bank) == kept + undone
    for _ in range(3):
        page.keyboard.press("z")
    expect(page.locator("#study-notice")).to_have_text("已撤销上一次评分。")
    saved(page)

    assert schedule(bank) == before
    assert logged(bank) == kept
    assert shown(page) == undone[0]
    assert rate(page) == undone[0], "an undone card can be rated again"
    saved(page)
    assert logged(bank) == [*kept, undone[0]]


def test_undo_of_ratings_not_yet_sent_stays_on_the_page(page: Page, bank: Path) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_study(page)
    first = shown(page)
    network(page, offline=True)
    rate(page)
    rate(page)
    # Both wait in the outbox; an attempt still in the air would rightly be undone by the server.
    page.wait_for_function(
        "() => document.body.dataset.outbox === 'offline'"
        " && document.body.dataset.outboxSending === 'false'"
        " && document.body.dataset.outboxWaiting === '2'"
    )
    page.keyboard.press("z")
    page.keyboard.press("z")
    expect(page.locator("#card")).to_have_attribute("data-card-id", first)
    network(page, offline=False)
    page.wait_for_timeout(300)
    saved(page)
    assert logged(bank) == []
    assert not [url for url in requests if "/api/reviews/undo" in url]


# What a learner sees of a card with every collapsible open, and the shape of its markup.
ANSWER_SIDE = """() => {
  const text = (node) => node.innerText.replace(/\\s+/g, ' ').trim();
  const side = document.querySelector('#answer-side');
  side.querySelectorAll('details').forEach((box) => { box.open = true; });
  return {
    text: text(side),
    shape: [...side.querySelectorAll('*')].map((n) => n.tagName + '.' + n.className),
    meta: text(document.querySelector('.card-meta')),
    intervals: [...document.querySelectorAll('.rate .interval')].map((n) => n.textContent),
  };
}"""


def test_cards_painted_by_the_client_match_the_server_s(new_page: NewPage) -> None:
    studying, reference = new_page(), new_page()
    open_study(studying, "/study?deck=kernels-performance")
    compared = 0
    for _ in range(6):
        rate(studying)
        card = shown(studying)
        studying.keyboard.press("Space")
        reference.goto(f"/study?card={card}&reveal=1")
        for view in (studying, reference):
            view.evaluate(
                "document.querySelectorAll('#answer-side details').forEach(d => d.open = true)"
            )
        painted, rendered = (view.evaluate(ANSWER_SIDE) for view in (studying, reference))
        assert painted == rendered, card
        compared += 1
    assert compared == 6


# What can push the rating bar off a phone's screen: a long card, and wide or tall blocks.
LAYOUT_BLOCKS = ("<table", "<pre", "katex-display", "<img", "<details")


def layout_sample(bank: Path) -> list[str]:
    """Cards whose layout stands for all the bank's: the ten longest, each deck's longest and
    shortest, and the longest holding each kind of block."""
    rows = query(
        bank,
        "SELECT id, deck_id, question_html || answer_html || followups_html || pitfalls_html"
        " FROM card WHERE NOT retired ORDER BY id",
    )
    assert len(rows) >= 50
    longest = sorted(rows, key=lambda row: -len(row[2]))
    sample = {card for card, _, _ in longest[:10]}
    for deck in {deck for _, deck, _ in rows}:
        cards = [card for card, of, _ in longest if of == deck]
        sample |= {cards[0], cards[-1]}
    for block in LAYOUT_BLOCKS:
        sample.update([card for card, _, html in longest if block in html][:1])
    return sorted(sample)


def test_the_rating_bar_is_in_reach_on_a_phone_for_every_kind_of_card(
    new_page: NewPage, bank: Path
) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    cards = layout_sample(bank)
    assert len(cards) >= 15
    for card in cards:
        page.goto(f"/study?card={card}&reveal=1")
        expect(page.locator("#card")).to_have_attribute("data-card-id", card)
        assert_bar_in_reach(page, card)

    header = page.locator("header.top").bounding_box()
    assert header is not None and header["height"] <= 56, header
    expect(page.locator("#rate-form kbd").first).to_be_hidden()

    # And on the cards the client paints, after a rating.
    open_study(page)
    for _ in range(3):
        card = rate(page)
        page.keyboard.press("Space")
        assert_bar_in_reach(page, shown(page))


def assert_bar_in_reach(page: Page, card: str) -> None:
    bar = page.locator("#rate-form").bounding_box()
    assert bar is not None, card
    assert bar["y"] >= 0 and bar["y"] + bar["height"] <= PHONE["height"], (card, bar)
    buttons = page.locator("#rate-form button.rate").all()
    assert len(buttons) == 4, card
    for button in buttons:
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, (card, box)


def test_a_card_rated_elsewhere_meanwhile_gets_a_notice_and_the_page_moves_on(
    page: Page, bank: Path, traffic: Traffic
) -> None:
    open_study(page)
    held = page.evaluate("() => JSON.parse(document.getElementById('study-state').textContent)")
    first = held["current"]["id"]
    rate(page)
    saved(page)
    following = shown(page)
    # Another tab rates the card this page holds.
    state = page.request.get(f"/api/study/next?exclude={first}").json()
    assert state["id"] == following
    elsewhere = page.request.post(
        "/api/reviews", data={"card_id": following, "rating": 4, "version": state["version"]}
    )
    assert elsewhere.ok

    rate(page, "1")
    expect(page.locator("#study-notice")).to_have_text(
        "这张卡片的评分未记录：它在别处已被评分或修改。"
    )
    saved(page)
    assert logged(bank) == [first, following], "the stale rating is refused, not recorded"
    assert shown(page) not in (first, following)
    refused = [(url, status) for url, status in traffic.failed() if "/api/reviews?" in url]
    assert [status for _, status in refused] == [409]
    traffic.responses = [r for r in traffic.responses if r not in refused]  # expected, not a fault


def test_suspend_and_bury_from_the_keyboard_and_undo_them(page: Page, bank: Path) -> None:
    def marks() -> list[tuple]:
        return query(
            bank,
            "SELECT card_id, suspended, buried_until IS NOT NULL FROM cardmark"
            " WHERE suspended OR buried_until IS NOT NULL ORDER BY card_id",
        )

    open_study(page)
    suspended = shown(page)
    page.keyboard.press("@")
    expect(page.locator("#card")).not_to_have_attribute("data-card-id", suspended)
    buried = shown(page)
    page.keyboard.press("Space")
    page.keyboard.press("-")
    expect(page.locator("#card")).not_to_have_attribute("data-card-id", buried)
    saved(page)
    assert marks() == sorted([(suspended, 1, 0), (buried, 0, 1)])

    page.keyboard.press("z")
    expect(page.locator("#card")).to_have_attribute("data-card-id", buried)
    page.keyboard.press("z")
    expect(page.locator("#card")).to_have_attribute("data-card-id", suspended)
    saved(page)
    assert marks() == []
    assert logged(bank) == []


def test_flags_from_the_keyboard_and_a_cleared_leech_undo_with_z(page: Page, bank: Path) -> None:
    def flag_of(card: str) -> list[tuple]:
        return query(bank, "SELECT flag, leech FROM cardmark WHERE card_id = ?", card)

    def pressed() -> list[str]:
        buttons = page.locator("#card-actions button[aria-pressed=true]")
        return [b.get_attribute("data-flag") or "" for b in buttons.all()]

    open_study(page)
    card = shown(page)
    page.keyboard.press("Space")
    page.keyboard.press("Control+3")
    page.keyboard.press("Control+5")
    expect(page.locator("#action-flag-5")).to_have_attribute("aria-pressed", "true")
    saved(page)
    assert flag_of(card) == [(5, 0)]
    page.keyboard.press("z")  # back to green, the card still shown with its answer
    expect(page.locator("#action-flag-3")).to_have_attribute("aria-pressed", "true")
    assert pressed() == ["3"]
    expect(page.locator("#study-notice")).to_have_text("已撤销上一步卡片操作。")
    saved(page)
    assert flag_of(card) == [(3, 0)]

    rate(page)
    page.keyboard.press("z")  # the rating
    expect(page.locator("#card")).to_have_attribute("data-card-id", card)
    page.keyboard.press("z")  # the green flag
    saved(page)
    assert flag_of(card) == [(0, 0)]
    assert logged(bank) == []

    # A leech that is only tagged is studied with its mark; clearing it undoes with Z too.
    query(bank, "UPDATE learner SET leech_action = 'tag'")
    query(bank, "UPDATE cardmark SET leech = 1 WHERE card_id = ?", card)
    open_study(page)
    assert shown(page) == card
    page.keyboard.press("Space")
    page.locator("#action-unleech").click()
    expect(page.locator("#action-unleech")).to_have_count(0)
    saved(page)
    assert flag_of(card) == [(0, 0)]
    page.keyboard.press("z")
    expect(page.locator("#action-unleech")).to_be_visible()
    saved(page)
    assert flag_of(card) == [(0, 1)]
    assert query(bank, "SELECT suspended FROM cardmark WHERE card_id = ?", card) == [(0,)]


def test_z_on_the_done_page_takes_back_the_suspensions_then_the_rating(
    page: Page, bank: Path
) -> None:
    def suspended() -> set[str]:
        return {card for (card,) in query(bank, "SELECT card_id FROM cardmark WHERE suspended")}

    # A section's cards: one rated easy (days away), the rest suspended, and the day is done.
    open_study(page, "/study?" + urlencode({"deck": "gpu-kernels-interview", "section": SECTION}))
    rated = rate(page, "4")
    put_aside: list[str] = []
    while not page.locator("#done").is_visible():
        card = shown(page)
        put_aside.append(card)
        page.keyboard.press("@")
        page.wait_for_function(NEXT_OR_DONE, arg=card)
        assert len(put_aside) < 20, "the section never ran out"
    assert len(put_aside) >= 2
    enhanced(page)  # the done page's script is listening
    assert logged(bank) == [rated] and suspended() == set(put_aside)

    for back in reversed(put_aside):  # the last suspension first, back through the page's steps
        page.keyboard.press("z")
        expect(page.locator("#card")).to_have_attribute("data-card-id", back)
        listening(page)  # the study page's script is listening
        assert back not in suspended()
    assert suspended() == set()
    assert logged(bank) == [rated]
    page.keyboard.press("z")  # then the rating, which the server undoes
    expect(page.locator("#card")).to_have_attribute("data-card-id", rated)
    saved(page)
    assert logged(bank) == []


def test_study_reveal_rate_and_undo(page: Page) -> None:
    """Reveal with Space, rate with 3, take it back with Z: the schedule is as before."""
    page.goto("/")
    before = page.request.get("/api/study/next").json()
    page.locator("#study-all").click()

    expect(page).to_have_url(re.compile(r"/study$"))
    card = page.locator("#card")
    expect(card).to_have_attribute("data-card-id", before["id"])
    expect(card.locator("h1.question")).to_be_visible()
    expect(page.locator("#answer-side")).to_be_hidden()
    expect(page.locator("#rate-form")).to_be_hidden()

    page.wait_for_load_state("domcontentloaded")
    page.keyboard.press("Space")
    expect(page.locator("#answer-side")).to_be_visible()
    expect(page.locator("#reveal-row")).to_be_hidden()
    expect(card).to_have_attribute("data-revealed", "true")
    expect(page.locator("#rate-form button.rate.good")).to_be_focused()

    page.keyboard.press("3")
    expect(card).not_to_have_attribute("data-card-id", before["id"])
    expect(page.locator("#answer-side")).to_be_hidden()
    saved(page)  # the next card is painted before the rating reaches the server
    rated = page.request.get("/api/study/next").json()
    assert rated["id"] != before["id"]
    assert rated["counts"]["new"] == before["counts"]["new"] - 1

    page.keyboard.press("Z")
    expect(page.locator("p.notice[role=status]")).to_have_text("已撤销上一次评分。")
    expect(card).to_have_attribute("data-card-id", before["id"])
    expect(page.locator("#answer-side")).to_be_hidden()
    expect(card.locator(".badge")).to_have_text("新卡")
    saved(page)
    after = page.request.get("/api/study/next").json()
    for key in ("id", "queue", "version", "counts", "intervals"):
        assert after[key] == before[key], key
