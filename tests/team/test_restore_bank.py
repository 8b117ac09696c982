"""A member's restore never adds to the shared bank, however its card ids are chosen."""

import json

import pytest

from app.infra.models import Card, CardState

pytestmark = pytest.mark.storage


def _upload(data: dict) -> dict:
    return {"file": ("backup.json", json.dumps(data).encode(), "application/json")}


def test_a_members_restore_leaves_out_cards_the_bank_lacks(browser, db):
    member = browser("member")
    assert member.post_json("/api/reviews", {"card_id": "kernel", "rating": 3}).status_code == 200
    data = member.get("/backup.json").json()
    ghost = {**data["states"][0], "card_id": "ghost-card"}
    data["states"].append(ghost)
    data["reviews"].append({**data["reviews"][0], "card_id": "ghost-card"})
    data["cards"]["ghost-card"] = {"question": "<b>planted</b>", "deck": "x", "section": ""}
    data["marks"] = [*data.get("marks", []), {"card_id": "ghost-card", "flag": 3}]
    cards = db.count(Card)

    response = member.submit("/backup/restore", files=_upload(data))
    assert response.status_code == 200
    assert "1 cards are not in the shared bank; their history was left out." in response.text
    assert db.count(Card) == cards
    assert db.count(CardState, card_id="ghost-card") == 0
    assert browser("other").get("/cards/ghost-card").status_code == 404


def test_an_admins_restore_of_a_member_leaves_them_out_too(browser, db):
    member = browser("member")
    data = member.get("/backup.json").json()
    data["states"] = [
        {
            "card_id": "planted",
            "state": 2,
            "due": "2025-03-11T12:00:00+00:00",
            "stability": 3.0,
            "difficulty": 5.0,
            "last_review": "2025-03-09T12:00:00+00:00",
            "reps": 1,
            "lapses": 0,
        }
    ]
    cards = db.count(Card)
    response = browser("admin").submit("/admin/users/member/restore", files=_upload(data))
    assert response.status_code == 303
    assert db.count(Card) == cards
