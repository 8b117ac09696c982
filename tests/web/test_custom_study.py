"""Custom study from the done page: more new cards today, review ahead, the cards failed today."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.infra.models import PracticeSession

pytestmark = pytest.mark.storage


def next_card(client: TestClient, **params: Any) -> dict[str, Any] | None:
    response = client.get("/api/study/next", params=params)
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.text
    return response.json()


def rate(client: TestClient, card_id: str, rating: int) -> None:
    response = client.post("/api/reviews", json={"card_id": card_id, "rating": rating})
    assert response.status_code == 200, response.text


def test_more_new_cards_last_one_study_day(client, clock, bank, find):
    bank.configure(new_per_day=1)
    rate(client, "gemm-core", 4)
    assert next_card(client, deck="kernels") is None
    page = client.get("/study", params={"deck": "kernels"})
    assert find(page.text, "custom-new") is not None

    posted = client.post("/study/custom/new?deck=kernels", data={"count": "1"})
    assert (posted.status_code, posted.headers["location"]) == (303, "/study?deck=kernels")
    card = next_card(client, deck="kernels")
    assert (card["id"], card["counts"]["new"]) == ("roofline", 1)
    raised = client.post("/api/study/new-today", json={"count": 5}).json()
    assert (raised["new_per_day"], raised["extra_today"], raised["new_limit"]) == (1, 6, 7)
    assert raised["counts"]["new"] == 4  # the four unseen cards left in the bank

    clock.advance(days=1)  # the next study day: back to one new card
    assert next_card(client, deck="kernels")["counts"]["new"] == 1
    assert client.post("/api/study/new-today", json={"count": 0}).status_code == 422


def test_review_ahead_brings_the_next_days_reviews(client, clock):
    rate(client, "paged", 4)
    rate(client, "fusion", 4)
    assert next_card(client, deck="notes") is None
    ahead = next_card(client, deck="notes", ahead=60)
    assert ahead["queue"] == "review"
    assert ahead["counts"]["review"] == 2
    page = client.get("/study", params={"deck": "notes"})
    assert 'name="ahead"' in page.text
    shown = client.get("/study", params={"deck": "notes", "ahead": "60"})
    assert 'id="card"' in shown.text
    assert client.get("/api/study/next", params={"ahead": 366}).status_code == 422


def test_the_done_page_recaps_today_and_offers_the_failed_cards(client, clock, bank, find):
    bank.configure(new_per_day=2)
    client.post("/api/reviews", json={"card_id": "gemm-core", "rating": 1, "duration_ms": 90_000})
    client.post("/api/reviews", json={"card_id": "roofline", "rating": 4, "duration_ms": 30_000})
    clock.advance(minutes=2)
    client.post("/api/reviews", json={"card_id": "gemm-core", "rating": 4, "duration_ms": 60_000})
    today = client.get("/api/study/today").json()
    assert (today["cards"], today["ratings"], today["again"], today["time_ms"]) == (
        2,
        3,
        1,
        180_000,
    )
    assert round(today["again_rate"], 3) == 0.333
    assert today["failed_today"] == ["gemm-core"]

    page = client.get("/study", params={"deck": "kernels"})
    assert "Today: 2 cards studied in 3 min, again-rate 33%." in find(page.text, "recap").text
    failed = find(page.text, "custom-failed")
    assert failed is not None and "Practise the cards failed today (1)" in failed.text
    started = client.post("/practice", data={"cards": "gemm-core"})
    assert started.status_code == 303


def test_next_due_is_shown_in_the_learners_zone(client, clock, bank, find):
    bank.configure(timezone="Asia/Shanghai", new_per_day=1)
    rate(client, "gemm-core", 4)
    today = client.get("/api/study/today").json()
    assert today["next_due"].endswith("+08:00")
    page = client.get("/study")
    shown = find(page.text, "next-due")
    assert shown.text.endswith("Asia/Shanghai")
    assert shown.attrs["datetime"].endswith("+08:00")


def test_the_deck_page_offers_custom_study(client, find):
    page = client.get("/decks/notes").text
    custom = find(page, "deck-custom")
    assert custom is not None and "Review ahead" in custom.text
    assert 'action="/study/custom/new?deck=notes"' in page


def test_the_done_page_practises_a_deck_section_or_tag(client, bank, find):
    bank.configure(new_per_day=0)
    page = client.get("/study", params={"deck": "kernels", "section": "GPU 基础"}).text
    form = find(page, "custom-practise")
    assert form is not None and form.attrs["action"] == "/practice"
    assert '<option value="kernels" selected>' in page
    assert '<input type="hidden" name="section" value="GPU 基础">' in page

    def practised(**scope: str) -> list[str]:
        started = client.post("/practice", data={"order": "content", **scope})
        assert started.status_code == 303, started.text
        with bank.database.session() as session:
            run_id = int(started.headers["location"].rsplit("/", 1)[1])
            return session.get(PracticeSession, run_id).card_ids

    assert practised(deck="kernels", section="GPU 基础") == ["gemm-core", "roofline"]
    assert practised(deck="", tag="notes") == ["fusion", "paged"]
    # The tag list offers the decks' tags.
    assert '<option value="notes">#notes' in page
