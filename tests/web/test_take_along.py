"""Take today's cards along: the day's whole queue in one answer, in the order of study, within
the daily limits, however many more cards it holds than a client may exclude at once."""

from collections.abc import Callable
from pathlib import Path

import pytest

from app.web.routes.api import ExcludeQuery

CARDS = 80


def _exclude_limit() -> int:
    (query,) = ExcludeQuery.__metadata__
    return next(m.max_length for m in query.metadata if hasattr(m, "max_length"))


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    """One deck of 80 cards, q00 … q79 in content order, and a second deck of two."""
    card = "### Q：第 {i} 题是什么？ {{#q{i:02}}}\n\n**面试回答。** 答案 {i}。\n"
    questions = "\n".join(card.format(i=i) for i in range(CARDS))
    head = "---\ntitle: {title}\nslug: {slug}\nlanguage: zh\nstyle: question\n---\n\n"
    other = card.format(i=1).replace("q01", "o1") + "\n" + card.format(i=2).replace("q02", "o2")
    return write_content(
        {
            "decks/a-many.md": head.format(title="Many", slug="many") + questions,
            "decks/b-other.md": head.format(title="Other", slug="other") + other,
        }
    )


def test_the_whole_day_comes_in_one_answer_past_the_exclude_limit(client, bank):
    bank.configure(new_per_day=70)
    day = client.get("/api/study/day", params={"deck": "many"})
    assert day.status_code == 200
    cards = day.json()
    assert len(cards) == 70 > _exclude_limit()
    assert [card["id"] for card in cards] == [f"q{i:02}" for i in range(70)]
    # Each card as /api/study/next gives it, the day's counts on every one.
    assert cards[0] == client.get("/api/study/next", params={"deck": "many"}).json()
    assert {tuple(card["counts"].values()) for card in cards} == {(70, 0, 0)}


def test_the_day_keeps_to_the_order_of_study_and_the_daily_limits(client, bank, clock):
    bank.configure(new_per_day=60)
    rated = client.post("/api/reviews", json={"card_id": "q00", "rating": 1, "version": 0})
    assert rated.status_code == 200
    clock.advance(minutes=2)  # the Again step is due
    ids = [card["id"] for card in client.get("/api/study/day").json()]
    # The learning step first, then the 59 new cards the day has left, then nothing more.
    assert ids == ["q00"] + [f"q{i:02}" for i in range(1, 60)]


def test_the_day_takes_a_scope_and_a_limit(client, bank):
    bank.configure(new_per_day=100)
    other = client.get("/api/study/day", params={"deck": "other"}).json()
    assert [card["id"] for card in other] == ["o1", "o2"]
    assert len(client.get("/api/study/day", params={"limit": 5}).json()) == 5
    assert client.get("/api/study/day", params={"limit": 0}).status_code == 422


def test_nothing_due_is_an_empty_day(client, bank):
    bank.configure(new_per_day=0)
    assert client.get("/api/study/day").json() == []
