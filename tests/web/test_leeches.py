"""Leeches: caught at the lapse threshold, warned every half threshold, listed with their line."""

from datetime import datetime, timedelta

import pytest

from app.study.marks import leech_hit
from tests.support import cards

pytestmark = pytest.mark.storage


def test_leech_warnings_fall_at_the_threshold_then_every_half_threshold():
    assert [n for n in range(1, 25) if leech_hit(n, 8)] == [8, 12, 16, 20, 24]
    assert [n for n in range(1, 8) if leech_hit(n, 3)] == [3, 4, 5, 6, 7]
    assert not any(leech_hit(n, 0) for n in range(50))  # 0: off


def lapsed_review(bank, clock, card_id: str, lapses: int, learner: str = "local") -> None:
    cards.lapsed_review(bank.database, bank.learner(learner).id, card_id, lapses, clock.now)


def rate(client, card_id: str, rating: int) -> dict:
    response = client.post("/api/reviews", json={"card_id": card_id, "rating": rating})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_eighth_lapse_marks_a_leech_and_suspends_it(client, clock, bank):
    lapsed_review(bank, clock, "roofline", 7)
    rated = rate(client, "roofline", 1)
    assert (rated["lapses"], rated["leech"]) == (8, True)
    marks = client.get("/api/cards/roofline/marks").json()
    assert (marks["leech"], marks["suspended"]) == (True, True)
    # Out of study: relearning would otherwise bring it back in minutes.
    clock.advance(minutes=30)
    assert client.get("/api/study/next", params={"deck": "kernels"}).json()["id"] == "gemm-core"

    listed = client.get("/api/marks/leech").json()
    assert [(c["card_id"], c["lapses"]) for c in listed] == [("roofline", 8)]
    assert listed[0]["source"] == "decks/a-kernels.md:24"


def test_the_leech_page_points_at_the_line_and_shows_the_history(client, clock, bank, find):
    lapsed_review(bank, clock, "roofline", 7)
    rate(client, "roofline", 1)
    page = client.get("/marks/leech")
    row = find(page.text, "marked-roofline")
    assert row is not None
    assert "decks/a-kernels.md:24" in row.text
    assert "Roofline" in row.text
    assert "8" in row.text


def test_undoing_the_lapse_undoes_the_leech(client, clock, bank):
    lapsed_review(bank, clock, "roofline", 7)
    rate(client, "roofline", 1)
    assert client.post("/api/reviews/undo").status_code == 200
    marks = client.get("/api/cards/roofline/marks").json()
    assert (marks["leech"], marks["suspended"]) == (False, False)


def test_tag_only_marks_the_leech_and_warns_again_at_twelve(client, clock, bank):
    bank.configure(leech_action="tag")
    lapsed_review(bank, clock, "paged", 7)
    assert rate(client, "paged", 1)["leech"] is True
    marks = client.get("/api/cards/paged/marks").json()
    assert (marks["leech"], marks["suspended"]) == (True, False)
    assert client.get("/api/study/next", params={"deck": "notes"}).json()["id"] == "fusion"
    clock.advance(minutes=15)
    assert client.get("/api/study/next", params={"deck": "notes"}).json()["id"] == "paged"


def test_the_threshold_is_a_setting(client, clock, bank):
    bank.configure(leech_threshold=3)
    lapsed_review(bank, clock, "paged", 2)
    assert rate(client, "paged", 1)["leech"] is True
    lapsed_review(bank, clock, "fusion", 3)
    assert rate(client, "fusion", 1)["leech"] is True  # 4: the next half-threshold warning
    lapsed_review(bank, clock, "gemm-core", 0)
    assert rate(client, "gemm-core", 1)["leech"] is False


def test_clearing_a_leech_brings_it_back(client, clock, bank):
    lapsed_review(bank, clock, "roofline", 7)
    rate(client, "roofline", 1)
    cleared = client.post("/api/cards/roofline/unleech").json()
    assert (cleared["leech"], cleared["suspended"]) == (False, False)
    assert cleared["undo"] == {
        "method": "POST",
        "path": "/api/cards/roofline/leech",
        "body": {"suspended": True},
    }
    assert client.get("/api/marks/leech").json() == []


def test_undoing_a_cleared_leech_puts_back_its_mark_and_its_suspension(client, clock, bank):
    lapsed_review(bank, clock, "roofline", 7)
    rate(client, "roofline", 1)
    undo = client.post("/api/cards/roofline/unleech").json()["undo"]
    back = client.request(undo["method"], undo["path"], json=undo["body"]).json()
    assert (back["leech"], back["suspended"], back["changed"]) == (True, True, True)
    assert [c["card_id"] for c in client.get("/api/marks/leech").json()] == ["roofline"]
    assert [c["card_id"] for c in client.get("/api/marks/suspended").json()] == ["roofline"]
    # Its own undo clears it again; a tagged-only leech comes back unsuspended.
    assert back["undo"]["path"] == "/api/cards/roofline/unleech"
    client.post("/api/cards/roofline/unsuspend")
    undo = client.post("/api/cards/roofline/unleech").json()["undo"]
    assert undo["body"] == {"suspended": False}
    back = client.request(undo["method"], undo["path"], json=undo["body"]).json()
    assert (back["leech"], back["suspended"]) == (True, False)
    assert client.post("/api/cards/nope/leech", json={}).status_code == 404


def test_a_log_of_real_lapses_warns_at_eight_then_twelve(client, clock, bank):
    """Rated day after day through the API: Again on every review, Good to relearn."""
    bank.configure(leech_action="tag")  # stays in study, so the warnings can recur
    warned, rated = [], rate(client, "roofline", 3)
    while rated["lapses"] < 13:
        clock.now = max(clock.now, datetime.fromisoformat(rated["due"])) + timedelta(minutes=1)
        again = rated["state"] == "review"
        rated = rate(client, "roofline", 1 if again else 3)
        if rated["leech"]:
            warned.append(rated["lapses"])
        assert rated["leech"] == (again and rated["lapses"] in (8, 12))
    assert warned == [8, 12]
    marks = client.get("/api/cards/roofline/marks").json()
    assert (marks["leech"], marks["suspended"]) == (True, False)
    listed = client.get("/api/marks/leech").json()
    assert [(c["card_id"], c["lapses"]) for c in listed] == [("roofline", 13)]
    ratings = [r["rating"] for r in listed[0]["history"]]
    assert ratings.count(1) == 13 and ratings[0] == 3 and len(ratings) == listed[0]["reps"]
