"""Suspend, bury and flag: through the JSON API and the forms, kept out of study and practice."""

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.infra.models import CardState, PracticeSession
from tests.support.banks import commit
from tests.support.web_bank import START

pytestmark = pytest.mark.storage


def next_id(client: TestClient, **params: Any) -> str | None:
    response = client.get("/api/study/next", params=params)
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.text
    return response.json()["id"]


def act(client: TestClient, card_id: str, action: str, **params: Any) -> dict[str, Any]:
    response = client.post(f"/api/cards/{card_id}/{action}", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_suspended_new_card_leaves_the_queue_and_the_counts_until_unsuspended(client):
    assert next_id(client, deck="kernels") == "gemm-core"
    before = client.get("/api/study/next", params={"deck": "kernels"}).json()["counts"]
    done = act(client, "gemm-core", "suspend", deck="kernels")
    assert (done["suspended"], done["changed"], done["leech"]) == (True, True, False)
    assert done["undo"] == {
        "method": "POST",
        "path": "/api/cards/gemm-core/unsuspend",
        "body": None,
    }
    assert done["next"]["id"] == "roofline"
    assert done["counts"]["new"] == before["new"] - 1
    assert next_id(client, deck="kernels") == "roofline"
    assert next_id(client) == "roofline"  # the whole bank too
    again = act(client, "gemm-core", "suspend")
    assert (again["suspended"], again["changed"]) == (True, False)  # a repeat changes nothing
    assert again["undo"]["path"] == "/api/cards/gemm-core/suspend"

    undone = act(client, "gemm-core", "unsuspend", deck="kernels")
    assert (undone["suspended"], undone["next"]["id"]) == (False, "gemm-core")
    assert undone["counts"] == before


def test_a_suspended_review_is_never_due_and_the_done_page_skips_it(client, clock):
    response = client.post("/api/reviews", json={"card_id": "paged", "rating": 4})
    assert response.status_code == 200
    clock.advance(days=60)
    assert client.get("/api/study/next", params={"deck": "notes"}).json()["queue"] == "review"
    act(client, "paged", "suspend")
    card = client.get("/api/study/next", params={"deck": "notes"}).json()
    assert card["id"] == "fusion"
    assert card["counts"]["review"] == 0
    client.post("/api/reviews", json={"card_id": "fusion", "rating": 4})
    assert next_id(client, deck="notes") is None
    page = client.get("/study", params={"deck": "notes"})
    # fusion is due in days, paged (suspended, overdue) is not "next due".
    assert "Nothing is scheduled yet" not in page.text
    assert client.get("/api/marks/suspended").json()[0]["card_id"] == "paged"


def test_bury_lasts_until_the_learners_next_study_day(client, clock, bank):
    bank.configure(timezone="Asia/Shanghai", rollover_hour=4)
    clock.set_local("2025-03-11 23:30", "Asia/Shanghai")
    done = act(client, "gemm-core", "bury")
    assert done["buried"] is True
    assert done["buried_until"] == "2025-03-11T20:00:00Z"  # 04:00 in Beijing, in UTC
    assert next_id(client, deck="kernels") == "roofline"
    assert [c["card_id"] for c in client.get("/api/marks/buried").json()] == ["gemm-core"]
    clock.set_local("2025-03-12 03:59", "Asia/Shanghai")
    assert next_id(client, deck="kernels") == "roofline"
    clock.set_local("2025-03-12 04:00", "Asia/Shanghai")
    assert next_id(client, deck="kernels") == "gemm-core"
    assert client.get("/api/marks/buried").json() == []


def test_unbury_brings_the_card_back_today(client):
    act(client, "gemm-core", "bury")
    undone = act(client, "gemm-core", "unbury", deck="kernels")
    assert (undone["buried"], undone["buried_until"], undone["next"]["id"]) == (
        False,
        None,
        "gemm-core",
    )


def test_flags_are_set_cleared_and_listed_with_their_undo(client):
    response = client.post("/api/cards/roofline/flag", json={"flag": 3})
    assert response.status_code == 200
    flagged = response.json()
    assert (flagged["flag"], flagged["flag_colour"]) == (3, "green")
    assert flagged["undo"] == {
        "method": "POST",
        "path": "/api/cards/roofline/flag",
        "body": {"flag": 0},
    }
    client.post("/api/cards/paged/flag", json={"flag": 1})
    assert [c["card_id"] for c in client.get("/api/marks/flagged").json()] == ["roofline", "paged"]
    assert [c["card_id"] for c in client.get("/api/marks/flagged", params={"flag": 1}).json()] == [
        "paged"
    ]
    # Flagging does not take a card out of study.
    assert next_id(client, deck="kernels") == "gemm-core"
    cleared = client.post("/api/cards/roofline/flag", json={"flag": 0}).json()
    assert (cleared["flag"], cleared["flag_colour"], cleared["undo"]["body"]) == (
        0,
        None,
        {"flag": 3},
    )
    assert client.get("/api/cards/roofline/marks").json()["flag"] == 0


def test_bad_card_and_bad_flag_are_clear_errors(client):
    refused = client.post("/api/cards/nope/suspend")
    assert (refused.status_code, refused.json()["code"]) == (404, "card_not_found")
    assert client.get("/api/cards/nope/marks").status_code == 404
    response = client.post("/api/cards/paged/flag", json={"flag": 8})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "flag"]
    assert client.get("/api/marks/frozen").status_code == 422


def test_practice_leaves_out_suspended_and_buried_cards(client):
    act(client, "roofline", "suspend")
    act(client, "kv-cache", "bury")
    started = client.post("/practice", data={"deck": "kernels", "order": "content"})
    assert started.status_code == 303, started.text
    run = client.get(started.headers["location"])
    assert "为什么 GEMM 是核心" in run.text
    assert "</b> / 1" in run.text  # gemm-core alone
    given = client.post("/practice", data={"cards": "roofline,kv-cache"})
    assert given.status_code == 404


@pytest.mark.parametrize(
    "scope",
    [{"deck": "kernels"}, {"deck": "kernels", "section": "GPU 基础"}, {"tag": "gpu"}, {}],
    ids=["deck", "section", "tag", "all"],
)
def test_held_cards_stay_out_of_every_scope_until_due_back(client, clock, bank, scope):
    act(client, "gemm-core", "suspend")
    act(client, "roofline", "bury")

    def studied() -> set[str]:
        seen = set()
        while (card := next_id(client, **scope, exclude=sorted(seen))) is not None:
            seen.add(card)
        return seen

    def practised() -> set[str]:
        started = client.post("/practice", data={**scope, "order": "content"})
        if started.status_code == 404:  # nothing left to practise in the scope
            return set()
        run_id = int(started.headers["location"].rsplit("/", 1)[1])
        with bank.database.session() as session:
            return set(session.get(PracticeSession, run_id).card_ids)

    held = {"gemm-core", "roofline"}
    assert not studied() & held and not practised() & held
    clock.advance(days=1)  # the burial ends with the study day
    assert "roofline" in studied() and "roofline" in practised()
    assert "gemm-core" not in studied() | practised()
    act(client, "gemm-core", "unsuspend")
    assert "gemm-core" in studied()


def test_the_forms_work_without_javascript(client, find):
    page = client.get("/study", params={"deck": "kernels", "reveal": "1"})
    actions = find(page.text, "card-actions")
    assert actions is not None and "Suspend" in actions.text
    posted = client.post("/cards/gemm-core/suspend", data={"next": "/study?deck=kernels"})
    assert posted.status_code == 303
    assert posted.headers["location"] == "/study?deck=kernels&msg=suspend"
    page = client.get(posted.headers["location"])
    assert "Card suspended" in page.text
    assert find(page.text, "card").attrs["data-card-id"] == "roofline"

    listed = client.get("/marks/suspended")
    assert find(listed.text, "marked-gemm-core") is not None
    back = client.post("/cards/gemm-core/unsuspend", data={"next": "/marks/suspended"})
    assert back.headers["location"] == "/marks/suspended?msg=unsuspend"
    assert find(client.get("/marks/suspended").text, "marked-empty") is not None

    flagged = client.post("/cards/paged/flag", data={"flag": "5"})
    assert flagged.headers["location"] == "/cards/paged?msg=flagged"
    card = client.get("/cards/paged")
    assert find(card.text, "action-flag-5").attrs["aria-pressed"] == "true"
    assert "Pink" in find(client.get("/marks/flagged").text, "marked-paged").text


def test_a_form_never_redirects_off_the_site(client):
    posted = client.post("/cards/paged/bury", data={"next": "//evil.example/x"})
    assert posted.headers["location"] == "/cards/paged?msg=bury"


def test_marks_and_leech_settings_go_through_a_backup_and_back(client, bank):
    act(client, "gemm-core", "suspend")
    act(client, "roofline", "bury")
    client.post("/api/cards/paged/flag", json={"flag": 2})
    bank.configure(leech_threshold=5, leech_action="tag")
    backup = client.get("/backup.json")
    data = backup.json()
    assert {m["card_id"]: (m["suspended"], m["flag"]) for m in data["marks"]} == {
        "gemm-core": (True, 0),
        "paged": (False, 2),
        "roofline": (False, 0),
    }
    assert [m["buried_until"] for m in data["marks"] if m["card_id"] == "roofline"] == [
        "2025-03-11T04:00:00+00:00"
    ]
    assert (
        data["learner"]["settings"]["leech_threshold"],
        data["learner"]["settings"]["leech_action"],
    ) == (5, "tag")

    act(client, "gemm-core", "unsuspend")
    client.post("/api/cards/paged/flag", json={"flag": 0})
    bank.configure(leech_threshold=8, leech_action="suspend")
    upload = {"file": ("backup.json", backup.content, "application/json")}
    restored = client.post("/backup/restore", files=upload)
    assert restored.status_code == 200
    assert "Suspend, bury, flag or leech marks restored on 2 cards." in restored.text
    assert client.get("/api/cards/gemm-core/marks").json()["suspended"] is True
    assert client.get("/api/cards/paged/marks").json()["flag"] == 2
    assert (bank.learner().leech_threshold, bank.learner().leech_action) == (5, "tag")
    again = client.post("/backup/restore", files=upload)
    assert "Everything in this backup was already here; nothing changed." in again.text


def test_an_interview_plan_never_brings_back_a_suspended_or_buried_card(client, bank):
    with bank.database.session() as session:
        for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "paged"):
            session.add(
                CardState(
                    learner_id=bank.learner().id,
                    card_id=card_id,
                    state=2,
                    stability=3.0,
                    difficulty=5.0,
                    due=START + timedelta(days=40),
                    last_review=START - timedelta(days=2),
                    reps=3,
                    version=1,
                )
            )
        commit(session)
    date = (START + timedelta(days=6)).date().isoformat()
    made = client.post("/api/interviews", json={"name": "Notes", "date": date, "deck": "notes"})
    assert made.status_code == 201
    assert next_id(client) in ("fusion", "paged")  # the plan's cards come first
    act(client, "fusion", "suspend")
    act(client, "paged", "bury")
    assert next_id(client) is None


def test_deck_counts_leave_suspended_reviews_out_of_due(client, clock):
    client.post("/api/reviews", json={"card_id": "paged", "rating": 4})
    clock.advance(days=60)
    due = {d["slug"]: d["due"] for d in client.get("/api/decks").json()}
    assert due["notes"] == 1
    act(client, "paged", "suspend")
    assert {d["slug"]: d["due"] for d in client.get("/api/decks").json()}["notes"] == 0
