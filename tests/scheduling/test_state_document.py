"""A card's schedule has one written form: the review log's JSON and the backup's, old ones too."""

import json
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from app.backup import dump_backup, export_learner, restore_learner
from app.content.bank.sync import import_content
from app.infra.db import Database
from app.infra.models import CardState, ReviewLog
from app.scheduling.cardstate import CardStateValue, State
from app.scheduling.statedoc import StateDoc, log_json, logged_state
from app.study import get_learner, record_review, undo_last

pytestmark = pytest.mark.storage

DECK = """
---
title: GPU
---

## 计算

### Q：为什么 GEMM 是核心？ {#gemm-core}

**面试回答。** 计算量大。

### Q：Roofline 怎么读？ {#roofline}

**面试回答。** 看算术强度。
"""
NOW = datetime(2025, 3, 3, 1, 0, tzinfo=UTC)


@pytest.fixture
def bank(write_content: Callable[[Mapping[str, str]], Path], database: Database) -> Database:
    import_content(write_content({"decks/gpu.md": DECK}), database)
    return database


def _rate(database: Database, card_id: str, rating: int, now: datetime) -> None:
    with database.session() as session:
        learner = get_learner(session, "local")
        record_review(
            session, learner=learner, card_id=card_id, rating=rating, now=now, database=database
        )


def _state(database: Database, card_id: str) -> CardState | None:
    with database.session() as session:
        return session.exec(select(CardState).where(CardState.card_id == card_id)).first()


def test_the_log_keeps_the_document_and_reads_it_back() -> None:
    value = CardStateValue(
        state=State.REVIEW,
        step=None,
        stability=3.25,
        difficulty=5.5,
        due=datetime(2025, 3, 13, 8, tzinfo=UTC),
        last_review=datetime(2025, 3, 10, 8, tzinfo=UTC),
        reps=4,
        lapses=1,
    )
    logged = log_json(value)
    # The form every row has had: an int state, ISO moments with +00:00, no other keys.
    assert logged == {
        "state": 2,
        "step": None,
        "stability": 3.25,
        "difficulty": 5.5,
        "due": "2025-03-13T08:00:00+00:00",
        "last_review": "2025-03-10T08:00:00+00:00",
        "reps": 4,
        "lapses": 1,
    }
    assert logged_state(json.loads(json.dumps(logged))) == value


def test_a_log_row_written_before_reps_and_lapses_is_still_undone(bank: Database) -> None:
    _rate(bank, "gemm-core", 3, NOW)
    _rate(bank, "gemm-core", 3, NOW + timedelta(days=2))
    with bank.session() as session:
        last = session.exec(select(ReviewLog).order_by(col(ReviewLog.id).desc())).first()
        assert last is not None and last.state_before is not None
        old = {
            key: value for key, value in last.state_before.items() if key not in ("reps", "lapses")
        }
        with bank.writing(session):
            session.execute(
                update(ReviewLog).where(col(ReviewLog.id) == last.id).values(state_before=old)
            )
        undone = undo_last(
            session,
            learner=get_learner(session, "local"),
            now=NOW + timedelta(days=2),
            database=bank,
        )
    assert undone.state is not None
    assert undone.state.due == datetime.fromisoformat(old["due"])
    assert (undone.state.reps, undone.state.lapses) == (0, 0)
    restored = _state(bank, "gemm-core")
    assert restored is not None and restored.due == undone.state.due


def test_a_backup_in_the_older_layout_restores(bank: Database, other: Database) -> None:
    _rate(bank, "gemm-core", 3, NOW)
    _rate(bank, "roofline", 1, NOW)
    with bank.session() as session:
        learner = get_learner(session, "local")
        data = json.loads(dump_backup(export_learner(session=session, learner=learner)))
    # As an older qbank wrote it: the card id first, moments in another offset, log states
    # without reps and lapses.
    beijing = timezone(timedelta(hours=8))
    data["states"] = [
        {"card_id": state["card_id"]}
        | {key: value for key, value in state.items() if key != "card_id"}
        | {"due": datetime.fromisoformat(state["due"]).astimezone(beijing).isoformat()}
        for state in data["states"]
    ]
    for review in data["reviews"]:
        review["state_after"] = {
            key: value for key, value in review["state_after"].items() if key not in _COUNTS
        }
    with other.session() as session:
        restore_learner(
            session=session, learner=get_learner(session, "local"), data=data, database=other
        )
    for card_id in ("gemm-core", "roofline"):
        before, after = _state(bank, card_id), _state(other, card_id)
        assert before is not None and after is not None
        assert (after.due, after.state, after.stability) == (
            before.due,
            before.state,
            before.stability,
        )
    with other.session() as session:
        logged = session.exec(select(ReviewLog).order_by(col(ReviewLog.id))).all()
    # Restored in today's form: the counts the older log lacked are filled in as none.
    assert [log.state_after for log in logged] == [
        StateDoc.model_validate(review["state_after"]).to_json() for review in data["reviews"]
    ]
    assert all(log.state_after and log.state_after["reps"] == 0 for log in logged)


_COUNTS = ("reps", "lapses")


@pytest.fixture
def other(make_database_url: Callable[[str], str]) -> Iterator[Database]:
    """A second, empty instance to restore into."""
    database = Database.open(make_database_url("other"))
    database.upgrade()
    yield database
    database.dispose()


def test_the_schedule_fields_are_named_once() -> None:
    from app.scheduling.cardstate import SCHEDULE_FIELDS

    assert SCHEDULE_FIELDS[:2] == ("state", "step") and "lapses" in SCHEDULE_FIELDS
    assert set(StateDoc.model_fields) == set(SCHEDULE_FIELDS)
    assert set(SCHEDULE_FIELDS) < set(CardState.model_fields)
    value = CardStateValue(
        State.REVIEW, None, 3.5, 5.0, datetime(2026, 1, 2, tzinfo=UTC), None, 4, 1
    )
    assert CardStateValue.from_row(CardState(**value.columns())) == value
    assert StateDoc.of(value).value() == value
    assert value.to_fsrs().stability == 3.5
