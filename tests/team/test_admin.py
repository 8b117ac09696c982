"""The administrators' pages: the team's progress per deck, and re-importing the content."""

import re
import threading
from html.parser import HTMLParser

import pytest
from sqlmodel import select

from app.content.bank.imports import KIND
from app.infra.jobs import start_job, wait_for_all
from app.infra.models import Card, CardState, Deck
from app.scheduling.studyday import MATURE_DAYS
from tests.support import cards
from tests.support.team import NOTES_DECK

pytestmark = pytest.mark.storage

CARD = """
## 3. What is continuous batching? {#batching}

**Answer.** Requests join and leave the running batch at every decoding step.
"""


class _Team(HTMLParser):
    """Each member section of /admin/team: its heading, its summary line and its table rows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.members: dict[str, dict[str, object]] = {}
        self.current: dict[str, object] | None = None
        self.where: str | None = None
        self.row: list[str] | None = None
        self.buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section" and ("class", "member") in attrs:
            self.current = {"rows": {}, "summary": ""}
        elif self.current is not None and tag in ("h2", "p", "td"):
            self.where, self.buffer = tag, []
        elif self.current is not None and tag == "tr":
            self.row = []

    def handle_endtag(self, tag: str) -> None:
        if self.current is None:
            return
        text = " ".join("".join(self.buffer).split())
        if tag == "h2" and self.where == "h2":
            self.members[text.split()[0]] = self.current
        elif tag == "p" and self.where == "p":
            self.current["summary"] = text
        elif tag == "td" and self.row is not None:
            self.row.append(text)
        elif tag == "tr" and self.row:
            self.current["rows"][self.row[0]] = self.row[1:]  # type: ignore[index]
            self.row = None
        elif tag == "section":
            self.current = None
        if tag == self.where:
            self.where = None

    def handle_data(self, data: str) -> None:
        if self.where:
            self.buffer.append(data)


def team_page(html: str) -> dict[str, dict[str, object]]:
    """{name: {"summary": "Last active: … · Reviews this week: N", "rows": {deck: [cells]}}}."""
    parser = _Team()
    parser.feed(html)
    return parser.members


def mature(db, name: str, deck: str) -> int:
    """Cards of `deck` with a stability of MATURE_DAYS or more for `name`, counted directly."""
    learner_id = db.learner(name).id
    with db.database.session() as session:
        rows = session.exec(
            select(CardState)
            .join(Card, Card.id == CardState.card_id)
            .join(Deck, Deck.id == Card.deck_id)
            .where(CardState.learner_id == learner_id, Deck.slug == deck)
        )
        return sum(1 for row in rows if (row.stability or 0) >= MATURE_DAYS)


def rate(browser, card_id: str, rating: int) -> str:
    response = browser.post_json("/api/reviews", {"card_id": card_id, "rating": rating})
    assert response.status_code == 200, response.text
    return response.json()["state"]


def test_the_team_page_shows_each_members_progress(make_app, browser, clock, db):
    app = make_app(session_days=365)  # the sessions outlive the weeks travelled through
    member, other, admin = (browser(name, app=app) for name in ("member", "other", "admin"))
    # Day 0: member learns all of gpu, other one gpu card and both notes cards.
    for card_id in ("kernel", "fusion", "gemm"):
        assert rate(member, card_id, 4) == "review"
    rate(other, "kernel", 3)
    rate(other, "paged", 1)
    rate(other, "kv", 1)
    # Day 40: every gpu card of member is due; two are reviewed, one passed and one failed.
    clock.advance(days=40)
    # (Fuzzed intervals put the three in any order; which two are reviewed is what matters.)
    card = member.get("/api/study/next", params={"deck": "gpu"}).json()
    assert card["queue"] == "review" and card["id"] in {"kernel", "fusion", "gemm"}
    for card_id, rating in (("kernel", 3), ("fusion", 1)):
        rate(member, card_id, rating)
    rate(other, "paged", 3)
    clock.advance(hours=1)

    page = admin.get("/admin/team")
    assert page.status_code == 200
    team = team_page(page.text)
    assert set(team) == {"admin", "member", "other"}

    m = team["member"]
    assert "Reviews this week: 2" in m["summary"]
    assert "2025-04-19 12:00" in m["summary"]  # the last rating: day 40, noon (+3 s), in UTC
    # deck: seen, mature, retention (30 days), reviews this week
    assert m["rows"]["GPU Basics"] == ["3", str(mature(db, "member", "gpu")), "50%", "2"]
    assert m["rows"]["Interview Notes"] == ["0", "0", "—", "0"]
    assert mature(db, "member", "gpu") >= 1  # kernel, passed after 40 days, is mature

    o = team["other"]
    assert "Reviews this week: 1" in o["summary"]
    # Day 0 is more than 30 days ago: other has no review-queue ratings in the window.
    assert o["rows"]["GPU Basics"] == ["1", "0", "—", "0"]
    assert o["rows"]["Interview Notes"] == ["2", "0", "—", "1"]

    a = team["admin"]
    assert "Last active: —" in a["summary"]
    assert a["rows"]["GPU Basics"] == ["0", "0", "—", "0"]


def test_reviews_this_week_and_retention_windows(make_app, browser, clock, db):
    app = make_app(session_days=365)
    member, admin = browser("member", app=app), browser("admin", app=app)
    rate(member, "paged", 4)
    rate(member, "kv", 4)
    clock.advance(days=25)
    rate(member, "paged", 3)  # a review-queue pass on day 25
    clock.advance(days=8)
    rate(member, "kv", 1)  # a review-queue failure on day 33
    notes = team_page(admin.get("/admin/team").text)["member"]["rows"]["Interview Notes"]
    # Day 0 is outside both windows; day 25 is within 30 days but not 7; day 33 within both.
    assert notes == ["2", str(mature(db, "member", "notes")), "50%", "1"]
    clock.advance(days=23)  # day 56: only the failure of day 33 is within 30 days
    notes = team_page(admin.get("/admin/team").text)["member"]["rows"]["Interview Notes"]
    assert notes[2:] == ["0%", "0"]


def test_members_and_nobody_cannot_see_the_team_page(browser):
    assert browser("member").get("/admin/team").status_code == 403
    response = browser().get("/admin/team")
    assert (response.status_code, response.headers["location"]) == (
        303,
        "/login?next=%2Fadmin%2Fteam",
    )


def _imported(admin):
    """Start an import as `admin`; the page it leads to once the job has finished."""
    started = admin.submit("/admin/import")
    assert started.status_code == 303
    page = started.headers["location"]
    assert page.startswith("/admin/import?job=")
    wait_for_all(admin.client.app.state.database, timeout=30)
    return admin.get(page)


def test_an_admin_reimports_the_content(browser, write_content, db):
    admin, member = browser("admin"), browser("member")
    write_content({"decks/b-notes.md": NOTES_DECK + CARD})
    assert member.submit("/admin/import").status_code == 403
    assert member.get("/api/cards/batching").status_code == 404

    assert admin.get("/admin/import").status_code == 200
    page = _imported(admin)
    assert page.status_code == 200
    assert 'id="import-report"' in page.text and "cards: 1 added," in page.text
    assert 'http-equiv="refresh"' not in page.text
    assert member.get("/api/cards/batching").json()["question"] == "What is continuous batching?"
    # Without a job named, the page shows the latest import.
    assert 'id="import-report"' in admin.get("/admin/import").text
    chinese = admin.get("/admin/import", headers={"Accept-Language": "zh"}).text
    assert "卡片新增 1、" in chinese and "added" not in chinese


def test_a_running_import_refreshes_its_page_and_is_not_started_twice(app, browser):
    """While the import job runs, the page says so and reloads; a second click joins it."""
    admin = browser("admin")
    gate = threading.Event()
    held = start_job(
        app.state.database,
        kind=KIND,
        learner_id=None,
        work=lambda s, j: (gate.wait(30), None),
    )
    try:
        page = admin.get(f"/admin/import?job={held.id}")
        assert 'id="import-status"' in page.text
        assert '<meta http-equiv="refresh" content="1">' in page.text
        again = admin.submit("/admin/import")
        assert again.headers["location"] == f"/admin/import?job={held.id}"
        # The job's status is in the API as well, for the administrator who polls it.
        status = admin.get(f"/api/jobs/{held.id}").json()
        assert status["kind"] == "import" and not status["finished"]
    finally:
        gate.set()
        wait_for_all(app.state.database, timeout=30)
    assert admin.get(f"/api/jobs/{held.id}").json()["finished"]


def test_a_broken_note_is_reported_and_the_rest_imports(browser, write_content):
    admin, member = browser("admin"), browser("member")
    write_content({"decks/c-broken.md": "---\ntitle: [unclosed\n---\n\n## Q: 没有答案 {#q}\n"})
    page = _imported(admin)
    assert page.status_code == 200
    assert 'id="import-report"' in page.text
    assert "decks/c-broken.md:2: invalid YAML in front matter" in page.text
    # A question with no answer is no card, and the report says so.
    assert "decks/c-broken.md:5: question" in page.text
    assert "was not made a card" in page.text
    assert member.get("/api/cards/q").status_code == 404
    assert member.get("/api/cards/kernel").status_code == 200
    assert member.get("/admin/import?job=1").status_code == 403
    assert admin.get("/admin/import?job=999").status_code == 404


def test_admin_backs_up_and_restores_a_members_history(browser):
    """An administrator takes any member's backup and restores it; a member cannot."""
    member = browser("member")
    studied = member.client.get("/api/study/next").json()
    rated = member.post_json("/api/reviews", {"card_id": studied["id"], "rating": 3})
    assert rated.status_code == 200
    admin = browser("admin")

    backup = admin.get("/admin/users/member/backup.json")
    assert backup.status_code == 200
    assert backup.headers["content-disposition"].startswith("attachment;")
    document = backup.json()
    assert [r["card_id"] for r in document["reviews"]] == [studied["id"]]
    log = admin.get("/admin/users/member/log.csv")
    assert log.status_code == 200 and studied["id"] in log.text

    files = {"file": ("backup.json", backup.content, "application/json")}
    restored = admin.post(
        "/admin/users/member/restore", files=files, headers={"X-CSRF-Token": admin.csrf or ""}
    )
    assert (restored.status_code, restored.headers["location"]) == (
        303,
        "/admin/users?done=restored",
    )
    again = admin.get("/admin/users/member/backup.json").json()
    assert (again["reviews"], again["states"]) == (document["reviews"], document["states"])

    assert member.get("/admin/users/admin/backup.json").status_code == 403
    assert admin.get("/admin/users/nobody/backup.json").status_code == 404


def lapsed(db, clock, name: str, card_id: str, lapses: int) -> None:
    cards.lapsed_review(db.database, db.learner(name).id, card_id, lapses, clock.now)


def test_the_team_page_lists_the_cards_most_members_keep_failing(browser, clock, db):
    member, other, admin = browser("member"), browser("other"), browser("admin")
    lapsed(db, clock, "member", "kernel", 7)
    lapsed(db, clock, "other", "kernel", 7)
    lapsed(db, clock, "member", "paged", 9)
    lapsed(db, clock, "other", "fusion", 3)  # far from other's threshold
    for who, card_id in ((member, "kernel"), (other, "kernel"), (member, "paged")):
        rate(who, card_id, 1)
    rate(other, "fusion", 1)

    page = admin.get("/admin/team")
    assert page.status_code == 200
    # The page's title is the title alone (the list once spilled into <title>).
    assert "<title>Team" in page.text and "team-leeches" not in page.text.split("</title>")[0]
    rows = re.findall(
        r'<tr id="team-leech-(\w+)">.*?<code>([^<]+)</code></td><td>(\d+)</td><td>(\d+)</td>',
        page.text,
    )
    # Two members' leech first; each row says where the card is written, to rewrite it.
    assert rows == [
        ("kernel", "decks/a-gpu.md:" + str(line_of(db, "kernel")), "2", "16"),
        ("paged", "decks/b-notes.md:" + str(line_of(db, "paged")), "1", "10"),
    ]
    assert member.get("/admin/team").status_code == 403


def line_of(db, card_id: str) -> int:
    with db.database.session() as session:
        return session.exec(select(Card.source_line).where(Card.id == card_id)).one()


def test_the_import_report_page_is_for_administrators(browser, write_content, db):
    admin, member = browser("admin"), browser("member")
    write_content({"decks/b-notes.md": NOTES_DECK + CARD})
    assert member.get("/import").status_code == 403
    _imported(admin)
    page = admin.get("/import")
    assert page.status_code == 200
    assert 'id="import-figures"' in page.text and 'data-figure="added">1<' in page.text
    assert 'href="/import"' in admin.get("/admin/import").text
