"""Reading the study queue writes nothing: the interview plan is made on the write side."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import select

from app.infra.models import DayPlan
from tests.support.interview import bank_dir, days, set_state

__all__ = ["bank_dir"]  # the interview tests' bank, three decks

WRITES = ("insert", "update", "delete", "begin immediate")


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """Every statement run on `engine` meanwhile, lower-cased."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement.strip().lower())

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def writes(seen: list[str]) -> list[str]:
    return [s for s in seen if s.startswith(WRITES) or " for update" in s]


def test_the_study_queue_and_page_write_nothing_on_a_new_day(client, bank, clock):
    for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "line", "tlb"):
        set_state(bank, card_id, stability=3.0, days_ago=2, due_in=40)
    made = client.post("/api/interviews", json={"name": "Notes", "date": days(6), "deck": "notes"})
    assert made.status_code == 201
    with bank.database.session() as session:
        assert session.exec(select(DayPlan)).one().day == clock.now.date()

    # A new study day with an interview ahead: the day's plan is not made yet.
    clock.advance(days=1)
    with statements(bank.engine) as seen:
        for path in ("/api/study/next", "/study", "/api/study/next?deck=notes", "/study?deck=x"):
            assert client.get(path).status_code in (200, 204), path
    assert seen, "the requests ran no statements"
    assert writes(seen) == []

    # The day's first rating makes the day's plan.
    card = client.get("/api/study/next").json()
    rated = client.post(
        "/api/reviews", json={"card_id": card["id"], "rating": 3, "version": card["version"]}
    )
    assert rated.status_code == 200
    with bank.database.session() as session:
        assert session.exec(select(DayPlan)).one().day == clock.now.date()
