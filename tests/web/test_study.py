"""Studying through the API and the study page: queue order, daily limits, rollover, undo."""

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.storage


def next_card(client: TestClient, **filters: str) -> dict[str, Any] | None:
    response = client.get("/api/study/next", params=filters)
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.text
    return response.json()


def rate(client: TestClient, card_id: str, rating: int, **extra: Any) -> dict[str, Any]:
    response = client.post("/api/reviews", json={"card_id": card_id, "rating": rating, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def counts(client: TestClient) -> dict[str, int]:
    card = next_card(client)
    return card["counts"] if card else {"new": 0, "learning": 0, "review": 0}


def save_settings(client: TestClient, **changes: str) -> None:
    """Submit the settings form with the defaults plus `changes`."""
    form = {
        "desired_retention": "0.9",
        "new_per_day": "20",
        "max_reviews_per_day": "200",
        "rollover_hour": "4",
        "timezone": "UTC",
    } | changes
    response = client.post("/settings", data=form)
    assert response.status_code == 303, response.text
    assert response.headers["location"] == "/settings?saved=1"


def due_of(state: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(state["due"])


def utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _columns(row: Any) -> dict[str, Any]:
    """Every column of a CardState except the version, which only ever moves forward."""
    return row.model_dump(exclude={"version"})


def study_page(client: TestClient, url: str = "/study") -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.text


# Queue order


def test_due_learning_comes_before_earlier_due_reviews_then_new_cards_in_content_order(
    client, clock
):
    review = rate(client, "roofline", 4)  # Easy on a new card: a review, due in days
    clock.now = due_of(review) + timedelta(hours=1)

    rate(client, "gemm-core", 3)  # a learning step, due in 10 minutes
    clock.advance(minutes=11)
    # The review has been due for over an hour, the learning step for a minute: learning wins.
    first = next_card(client)
    assert (first["id"], first["queue"]) == ("gemm-core", "learning")
    assert first["counts"] == {"new": 3, "learning": 1, "review": 1}

    rate(client, "gemm-core", 3)  # graduates to review, due days later
    second = next_card(client)
    assert (second["id"], second["queue"]) == ("roofline", "review")

    rate(client, "roofline", 1)  # a lapse: relearning, due in 10 minutes
    # Not due yet, so the first unseen card in content order comes next...
    assert next_card(client)["id"] == "kv-cache"
    clock.advance(minutes=11)
    # ...until the relearning step falls due, which then goes before new cards.
    relearning = next_card(client)
    assert (relearning["id"], relearning["queue"]) == ("roofline", "relearning")
    rate(client, "roofline", 3)

    new_order = []
    while (card := next_card(client)) is not None and card["queue"] == "new":
        new_order.append(card["id"])
        rate(client, card["id"], 4)
    # Content order runs across decks: decks/a-kernels.md before decks/b-notes.md.
    assert new_order == ["kv-cache", "fusion", "paged"]


def test_new_cards_per_day_limit_set_through_the_settings_form(client, clock):
    save_settings(client, new_per_day="2")
    assert counts(client)["new"] == 2
    assert 'name="new_per_day" type="number" min="0" max="9999" value="2"' in study_page(
        client, "/settings"
    )

    studied = []
    while (card := next_card(client)) is not None:
        studied.append(card["id"])
        rate(client, card["id"], 4)
    assert studied == ["gemm-core", "roofline"]
    assert counts(client) == {"new": 0, "learning": 0, "review": 0}
    assert "Done for today!" in study_page(client)

    clock.advance(days=1)  # 12:00 UTC the next day, well past the 04:00 rollover
    card = next_card(client)
    assert card["id"] == "kv-cache"
    assert card["counts"]["new"] == 2


def test_settings_form_refuses_bad_values_and_keeps_the_old_ones(client, bank):
    form = {
        "desired_retention": "0.9",
        "new_per_day": "many",
        "max_reviews_per_day": "200",
        "rollover_hour": "4",
        "timezone": "Mars/Olympus",
    }
    response = client.post("/settings", data=form)
    assert response.status_code == 400
    assert "new cards per day must be a number" in response.text
    response = client.post("/settings", data=form | {"new_per_day": "5"})
    assert response.status_code == 400
    assert "unknown time zone" in response.text
    assert bank.learner().new_per_day == 20
    assert bank.learner().timezone == "UTC"


def test_max_reviews_per_day_limit(client, clock, bank):
    for card_id in ("gemm-core", "roofline", "kv-cache"):
        rate(client, card_id, 4)
    bank.configure(max_reviews_per_day=2, new_per_day=0)
    clock.advance(days=30)  # all three reviews are due

    assert counts(client) == {"new": 0, "learning": 0, "review": 2}
    reviewed = []
    while (card := next_card(client)) is not None:
        assert card["queue"] == "review"
        reviewed.append(card["id"])
        rate(client, card["id"], 3)
    assert len(reviewed) == 2
    assert counts(client)["review"] == 0

    clock.advance(days=1)
    leftover = next_card(client)
    assert leftover["queue"] == "review"
    assert leftover["id"] not in reviewed
    assert leftover["counts"]["review"] == 1


def test_day_rolls_over_at_4am_in_the_learners_time_zone(client, clock, bank):
    bank.configure(timezone="Asia/Shanghai", new_per_day=2)

    clock.set_local("2025-03-10 23:50", "Asia/Shanghai")
    rate(client, next_card(client)["id"], 4)
    # After midnight but before 4 am it is still the same study day.
    clock.set_local("2025-03-11 03:50", "Asia/Shanghai")
    assert counts(client)["new"] == 1
    rate(client, next_card(client)["id"], 4)
    clock.set_local("2025-03-11 03:59", "Asia/Shanghai")
    assert next_card(client) is None

    # 04:05 in Shanghai is 20:05 UTC on the 10th: a UTC or midnight rollover would still say 0.
    clock.set_local("2025-03-11 04:05", "Asia/Shanghai")
    card = next_card(client)
    assert card is not None, "the new day should bring new cards again"
    assert card["counts"]["new"] == 2
    assert card["id"] == "kv-cache"
    rate(client, card["id"], 4)
    assert counts(client)["new"] == 1


# Undo


def test_undo_of_a_new_card_removes_its_state_and_keeps_the_log(client, clock, bank):
    before = counts(client)
    rate(client, "gemm-core", 3)
    assert bank.state("gemm-core") is not None
    assert counts(client)["new"] == before["new"] - 1

    clock.advance(minutes=1)
    response = client.post("/api/reviews/undo")
    assert response.status_code == 200
    assert response.json() == {
        "card_id": "gemm-core",
        "state": "new",
        "due": None,
        "stability": None,
        "difficulty": None,
        "reps": 0,
        "lapses": 0,
        "version": 0,
    }
    assert bank.state("gemm-core") is None
    [log] = bank.logs()
    assert (log.card_id, log.rating, log.mode) == ("gemm-core", 3, "study")
    assert log.undone_at is not None
    assert utc(log.undone_at) == clock.now
    assert counts(client) == before
    assert next_card(client)["id"] == "gemm-core"


def test_undo_of_a_review_restores_every_field_of_the_state(client, clock, bank):
    rate(client, "roofline", 4)
    clock.advance(days=30)
    rate(client, "gemm-core", 4)  # another rating in between, to undo only the last one
    clock.advance(minutes=5)
    before = bank.state("roofline")
    before_counts = counts(client)
    assert before.state == 2
    assert before_counts["review"] == 1

    lapse = rate(client, "roofline", 1, version=before.version)
    assert (lapse["state"], lapse["lapses"]) == ("relearning", before.lapses + 1)
    assert counts(client) != before_counts

    clock.advance(minutes=1)
    response = client.post("/study/undo")
    assert response.status_code == 303
    assert response.headers["location"] == "/study?card=roofline&msg=undone"

    after = bank.state("roofline")
    assert _columns(after) == _columns(before)
    # The version keeps moving forward, so a form rendered before the undo is still stale.
    assert after.version == before.version + 2
    assert counts(client) == before_counts
    logs = bank.logs()
    assert [(log.card_id, log.undone_at is not None) for log in logs] == [
        ("roofline", False),
        ("gemm-core", False),
        ("roofline", True),
    ]
    assert bank.state("gemm-core").reps == 1  # untouched

    page = study_page(client, response.headers["location"])
    assert "The last rating was undone." in page
    assert 'data-card-id="roofline"' in page


def test_undo_through_the_api_returns_the_restored_state(client, clock, bank):
    rate(client, "kv-cache", 4)
    clock.advance(days=30)
    before = bank.state("kv-cache")
    rate(client, "kv-cache", 2)
    body = client.post("/api/reviews/undo").json()
    assert body["state"] == "review"
    assert body["reps"] == before.reps
    assert body["stability"] == before.stability
    assert datetime.fromisoformat(body["due"]) == utc(before.due)
    assert _columns(bank.state("kv-cache")) == _columns(before)


def test_undo_with_nothing_to_undo(client):
    response = client.post("/study/undo")
    assert response.status_code == 303
    assert response.headers["location"] == "/study?msg=nothing_to_undo"
    assert "There is no rating to undo." in study_page(client, response.headers["location"])
    response = client.post("/api/reviews/undo")
    assert (response.status_code, response.json()["code"]) == (404, "nothing_to_undo")


def test_each_undo_goes_one_rating_further_back(client, bank):
    rate(client, "gemm-core", 3)
    rate(client, "roofline", 3)
    assert client.post("/api/reviews/undo").json()["card_id"] == "roofline"
    assert client.post("/api/reviews/undo").json()["card_id"] == "gemm-core"
    assert bank.states() == []
    assert client.post("/api/reviews/undo").status_code == 404


# The study page


def test_study_page_shows_the_question_with_the_answer_hidden(client, find):
    page = study_page(client)
    assert find(page, "card").attrs["data-card-id"] == "gemm-core"
    assert "为什么 GEMM 是核心？" in page
    assert find(page, "answer-side").hidden
    assert find(page, "rate-form").hidden
    reveal = find(page, "reveal")
    assert reveal.attrs["href"] == "/study?reveal=1&card=gemm-core"
    assert reveal.text.startswith("Show answer")
    assert find(page, "count-new").text == "5"


def test_revealed_card_shows_answer_extras_links_and_four_rated_intervals(client, find):
    page = study_page(client, "/study?reveal=1&card=gemm-core")
    answer = find(page, "answer-side")
    assert not answer.hidden
    assert "矩阵乘" in answer.text
    assert 'class="katex"' in page
    assert "Follow-ups 追问 tiling 与 shared memory 复用。" in answer.text
    assert "Pitfalls GEMM 快不等于端到端快。" in answer.text
    assert (
        '<a href="/topics/linear-gemm" class="topic-link" data-slot="link-topic">线性层与 GEMM</a>'
        in page
    )
    assert '<a href="/topics/fusion" class="topic-link" data-slot="link-topic">算子融合</a>' in page
    assert not find(page, "rate-form").hidden
    assert find(page, "reveal-row").hidden

    buttons = re.findall(
        r'<button type="submit" name="rating" value="(\d)".*?'
        r'<span class="label">(\w+) <kbd>\d</kbd></span>\s*'
        r'<span class="interval" data-slot="interval">([^<]+)</span>',
        page,
        re.DOTALL,
    )
    assert [(value, label) for value, label, _ in buttons] == [
        ("1", "Again"),
        ("2", "Hard"),
        ("3", "Good"),
        ("4", "Easy"),
    ]
    labels = [interval for _, _, interval in buttons]
    assert labels == [i["label"] for i in next_card(client)["intervals"]]
    # FSRS learning steps are 1 and 10 minutes; Easy skips them by days.
    assert (labels[0], labels[2]) == ("1 min", "10 min")
    assert labels[3].endswith(" d")


def test_rating_on_the_page_redirects_and_the_next_card_appears(client, bank, find):
    revealed = study_page(client, "/study?reveal=1&card=gemm-core")
    # Post exactly what the browser would: the form's hidden fields plus the button pressed.
    rate_form = revealed[revealed.index('id="rate-form"') :]
    rate_form = rate_form[: rate_form.index("</form>")]
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', rate_form))
    assert set(form) == {"card_id", "version", "shown_at", "duration_ms", "idempotency_key"}
    assert (form["card_id"], form["version"], form["duration_ms"]) == ("gemm-core", "0", "")
    response = client.post("/study/review", data=form | {"rating": "3"})
    assert response.status_code == 303
    assert response.headers["location"] == "/study"
    page = study_page(client)
    assert find(page, "card").attrs["data-card-id"] == "roofline"
    assert "Roofline 模型怎么读？" in page
    assert find(page, "count-new").text == "4"
    assert bank.state("gemm-core").reps == 1
    [log] = bank.logs()
    assert log.rating == 3
    assert log.duration_ms is not None
    assert log.duration_ms >= 0


def test_rating_keeps_the_study_scope(client, find):
    page = study_page(client, "/study?deck=notes")
    assert find(page, "card").attrs["data-card-id"] == "fusion"
    assert find(page, "rate-form").attrs["action"] == "/study/review?deck=notes"
    response = client.post(
        "/study/review?deck=notes", data={"card_id": "fusion", "rating": "4", "version": "0"}
    )
    assert response.headers["location"] == "/study?deck=notes"
    assert find(study_page(client, "/study?deck=notes"), "card").attrs["data-card-id"] == "paged"


def test_a_stale_version_gets_the_conflict_notice_and_is_not_applied_twice(client, bank):
    form = {"card_id": "gemm-core", "rating": "3", "version": "0"}
    assert client.post("/study/review", data=form).status_code == 303
    state = bank.state("gemm-core")

    again = client.post("/study/review", data=form)  # a double click, or a second tab
    assert again.status_code == 303
    assert again.headers["location"] == "/study?msg=conflict"
    assert "That card was already rated; refreshed." in study_page(client, "/study?msg=conflict")
    assert len(bank.logs()) == 1
    assert bank.state("gemm-core").model_dump() == state.model_dump()


@pytest.mark.parametrize("msg", ["signed_out", "saving", "../x", "conflict.x"])
def test_the_notice_shows_only_a_known_message(client, find, msg):
    # study.signed_out and study.saving are the study client's strings, not notices.
    notice = find(study_page(client, f"/study?msg={msg}"), "study-notice")
    assert notice is not None
    assert "hidden" in notice.attrs and notice.text == ""


def test_nothing_due_shows_done_page_with_next_due_time_and_practice(client, bank, find):
    for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "paged"):
        rate(client, card_id, 4)
    soonest = min(utc(state.due) for state in bank.states())

    page = study_page(client)
    assert find(page, "done").text == "Done for today!"
    due = find(page, "next-due")
    assert datetime.fromisoformat(due.attrs["datetime"]) == soonest
    assert due.text == soonest.strftime("%Y-%m-%d %H:%M") + " UTC"
    # Practice of this scope at once, or with a timer and an order chosen first.
    assert find(page, "custom-practise").attrs["action"] == "/practice"
    assert re.search(r'<a class="button" href="/practice\??">Timer and order…</a>', page)
    assert client.get("/api/study/next").status_code == 204


def test_done_page_gives_the_next_due_time_in_the_learners_time_zone(client, bank, find):
    for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "paged"):
        rate(client, card_id, 4)
    bank.configure(timezone="Asia/Shanghai")
    soonest = min(utc(state.due) for state in bank.states())

    due = find(study_page(client), "next-due")
    local = soonest.astimezone(ZoneInfo("Asia/Shanghai"))
    assert due.text == local.strftime("%Y-%m-%d %H:%M") + " Asia/Shanghai"
    assert datetime.fromisoformat(due.attrs["datetime"]) == soonest


def test_done_page_before_anything_is_scheduled(client, bank):
    bank.configure(new_per_day=0)
    page = study_page(client, "/study?deck=notes")
    assert "Nothing is scheduled yet." in page
    assert 'href="/practice?deck=notes"' in page


def test_new_cards_skip_those_seen_and_an_imported_card_before_them_comes_next(
    client, app, bank_dir
):
    from app.content.bank.sync import import_content

    assert next_card(client)["id"] == "gemm-core"
    rate(client, "gemm-core", 4)
    rate(client, "kv-cache", 4)  # out of order, as from a deck page
    assert next_card(client)["id"] == "roofline"
    rate(client, "roofline", 4)
    assert next_card(client)["id"] == "fusion"  # past kv-cache, already seen

    # A card added before the learner's place in content order is new like any other.
    deck_file = bank_dir / "decks/a-kernels.md"
    text = deck_file.read_text(encoding="utf-8")
    added = "### Q：什么是 warp？ {#warp}\n\n**面试回答。** 32 个线程一组。\n\n"
    deck_file.write_text(text.replace("### Q：Roofline", added + "### Q：Roofline"), "utf-8")
    import_content(bank_dir, app.state.database)
    card = next_card(client)
    assert (card["id"], card["queue"]) == ("warp", "new")
    assert card["answer_html"].startswith("<p>32")


def test_undo_of_an_earlier_new_card_brings_it_back_before_later_ones(client, clock):
    rate(client, "gemm-core", 4)
    rate(client, "roofline", 4)
    assert next_card(client)["id"] == "kv-cache"
    clock.advance(minutes=1)
    assert client.post("/api/reviews/undo").json()["card_id"] == "roofline"
    assert client.post("/api/reviews/undo").json()["card_id"] == "gemm-core"
    assert next_card(client)["id"] == "gemm-core"


def test_an_import_that_edits_a_card_shows_the_new_text_at_once(client, app, bank_dir):
    from app.content.bank.sync import import_content

    before = next_card(client)
    assert before["id"] == "gemm-core" and "矩阵乘" in before["answer_html"]
    deck_file = bank_dir / "decks/a-kernels.md"
    text = deck_file.read_text(encoding="utf-8")
    deck_file.write_text(text.replace("矩阵乘", "矩阵乘法"), encoding="utf-8")
    import_content(bank_dir, app.state.database)
    assert "矩阵乘法" in next_card(client)["answer_html"]
    assert "矩阵乘法" in client.get("/api/cards/gemm-core").json()["answer_html"]
    assert "矩阵乘法" in client.get("/cards/gemm-core").text


def test_one_learners_new_cards_do_not_move_anothers_place(bank):

    from app.study import Filters, get_learner, record_review
    from app.study import next_card as pick

    now = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
    with bank.database.session() as session:
        ann, bob = get_learner(session, "ann"), get_learner(session, "bob")
        for card_id in ("gemm-core", "roofline"):
            record_review(
                session, learner=ann, card_id=card_id, rating=4, now=now, database=bank.database
            )
        assert ann.new_cursor == 2  # reloaded after the commit
        assert bob.new_cursor == 0
        assert pick(session, learner=ann, now=now, filters=Filters()).card.id == "kv-cache"
        assert pick(session, learner=bob, now=now, filters=Filters()).card.id == "gemm-core"
        record_review(
            session, learner=bob, card_id="gemm-core", rating=4, now=now, database=bank.database
        )
        assert bob.new_cursor == 1
        assert pick(session, learner=bob, now=now, filters=Filters()).card.id == "roofline"
