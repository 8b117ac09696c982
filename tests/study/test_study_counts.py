"""New cards left today, counted either way, are the unseen cards within the daily limit."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from app.content.bank.sync import import_content
from app.study import Filters, counts, get_learner, record_review, study_next
from app.study import queue as study
from tests.support.banks import commit
from tests.support.content_files import DRILL_CARDS

pytestmark = pytest.mark.storage

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
EARLIER = ["q01", "q02", "q03", "q10", "q20"]  # the cursor moves past q03; q10 and q20 beyond it


@pytest.mark.parametrize("new_per_day", [0, 1, 5, 30, 1000])
@pytest.mark.parametrize("filters", [Filters(), Filters(deck="drill")], ids=["all", "deck"])
@pytest.mark.parametrize("walk_up_to", [0, 10_000], ids=["count-states", "walk-from-cursor"])
def test_new_cards_left_are_the_unseen_ones_within_the_daily_limit(
    database,
    engine: Engine,
    drill_dir: Path,
    new_per_day: int,
    filters: Filters,
    walk_up_to: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(study, "WALK_NEW_CARDS", walk_up_to)
    import_content(drill_dir, database)
    with database.session() as session:
        learner = get_learner(session, "ana")
        learner.new_per_day = new_per_day
        learner.max_reviews_per_day = 1000
        session.add(learner)
        commit(session)
        for card_id in EARLIER:
            record_review(
                session,
                learner=learner,
                card_id=card_id,
                rating=3,
                now=NOW - timedelta(days=2),
                database=database,
            )
        rated_today = 1 if new_per_day else 0
        if rated_today:
            found = study.next_card(session, learner=learner, now=NOW, filters=Filters())
            assert found is not None and found.queue == "learning"  # yesterday's learning first
            record_review(
                session, learner=learner, card_id="q04", rating=3, now=NOW, database=database
            )
        session.refresh(learner)
        unseen = DRILL_CARDS - len(EARLIER) - rated_today
        expected = min(unseen, max(new_per_day - rated_today, 0))

        assert counts(session, learner=learner, now=NOW, filters=filters).new == expected
        _, today = study_next(session, learner=learner, now=NOW, filters=filters)
        assert today.new == expected
