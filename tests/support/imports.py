"""Shared test helpers (from test_import.py)."""

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.content.bank.sync import ImportReport
from app.infra.db import Database
from app.infra.models import CardState, Learner, ReviewLog
from tests.support.banks import commit

NOW = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


MakeLearner = Callable[..., Learner]


def add_history(database: Database, card_id: str, learner: Learner) -> int:
    """Give `learner` a schedule and a review for `card_id`; return the learner id."""
    assert learner.id is not None
    with database.session() as session:
        session.add(CardState(learner_id=learner.id, card_id=card_id, state=2, due=NOW, reps=3))
        session.add(ReviewLog(learner_id=learner.id, card_id=card_id, rating=3, reviewed_at=NOW))
        commit(session)
    return learner.id


def history(engine: Engine, card_id: str) -> tuple[list[int], list[int]]:
    """(learner ids with a schedule, learner ids with reviews) for `card_id`."""
    with Session(engine) as session:
        states = session.exec(select(CardState).where(CardState.card_id == card_id)).all()
        logs = session.exec(select(ReviewLog).where(ReviewLog.card_id == card_id)).all()
        return [s.learner_id for s in states], [log.learner_id for log in logs]


def counts(report: ImportReport) -> dict[str, int]:
    return {
        name: getattr(report, name)
        for name in ("added", "updated", "unchanged", "retired", "resumed")
        if getattr(report, name)
    }
