"""How a learner's card gets its long intervals spread: the fuzz seed and, if on, the load."""

from collections import Counter
from datetime import date, datetime, timedelta

from sqlmodel import Session, col, select

from app.infra.models import CardState, Learner
from app.scheduling.schedule import Spread
from app.scheduling.studyday import day_start, local_day


def easy_weekdays(learner: Learner) -> frozenset[int]:
    return frozenset(int(day) for day in learner.easy_days if day.isdigit() and int(day) < 7)


def due_counts(
    session: Session, *, learner: Learner, today: date, low: int, high: int
) -> dict[int, int]:
    """Cards due on each study day `low`..`high` days after `today`, by that number of days."""
    start = day_start(learner, today + timedelta(days=low))
    end = day_start(learner, today + timedelta(days=high + 1))
    rows = session.connection().execute(
        select(CardState.due).where(
            CardState.learner_id == learner.id, col(CardState.due) >= start, CardState.due < end
        )
    )
    return dict(Counter((local_day(learner, due) - today).days for (due,) in rows))


def spread_for(session: Session, *, learner: Learner, card_id: str, now: datetime) -> Spread:
    """The Spread the learner's rating of `card_id` now (and its preview) is scheduled with."""
    today = local_day(learner, now)

    def load(low: int, high: int) -> dict[int, int]:
        return due_counts(session, learner=learner, today=today, low=low, high=high)

    return Spread(
        seed=f"{learner.id}:{card_id}",
        load=load if learner.load_balance else None,
        today=today,
        easy_days=easy_weekdays(learner),
    )
