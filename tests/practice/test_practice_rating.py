"""A practice rating moves the run on by compare-and-set: a double submit logs once."""

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import select

from app.content.bank.sync import import_content
from app.infra.models import Learner, PracticeSession, ReviewLog
from app.practice.quiz import rate_practice, start_practice
from app.study import Filters
from tests.support.banks import commit

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def test_a_double_submit_read_before_either_wrote_logs_once(
    database, engine: Engine, drill_dir: Path
) -> None:
    import_content(drill_dir, database)
    with database.session() as session:
        learner = Learner(name="ana")
        session.add(learner)
        commit(session)
        run_id = start_practice(
            session,
            learner=learner,
            filters=Filters(),
            order="content",
            seconds_per_card=0,
            now=NOW,
            database=database,
        ).id
    with database.session() as first, database.session() as second:
        # Both submissions read the run at its first card before either writes.
        runs = [s.get(PracticeSession, run_id) for s in (first, second)]
        learners = [s.exec(select(Learner)).one() for s in (first, second)]
        assert [r.position for r in runs if r is not None] == [0, 0]
        for session, run, learner in zip((first, second), runs, learners, strict=True):
            assert run is not None
            rate_practice(
                session,
                learner=learner,
                run=run,
                card_id="q01",
                rating=3,
                now=NOW,
                database=database,
            )
    with database.session() as session:
        logs = session.exec(select(ReviewLog).where(ReviewLog.practice_id == run_id)).all()
        assert [(log.card_id, log.rating) for log in logs] == [("q01", 3)]
        run = session.get(PracticeSession, run_id)
        assert run is not None and run.position == 1
