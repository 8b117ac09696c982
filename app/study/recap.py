"""Today's study in a few numbers, for the "done for today" page."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, distinct, func, select
from sqlmodel import Session, col

from app.infra.models import Learner, ReviewLog
from app.scheduling.cardstate import Mode
from app.scheduling.studyday import study_day


@dataclass(frozen=True)
class Recap:
    cards: int  # distinct cards studied
    ratings: int
    again: int
    time_ms: int

    @property
    def again_rate(self) -> float | None:
        return self.again / self.ratings if self.ratings else None

    @property
    def minutes(self) -> int:
        return round(self.time_ms / 60_000)


def today_recap(session: Session, *, learner: Learner, now: datetime) -> Recap:
    """The learner's live study ratings of their current study day, summed up."""
    start, end = study_day(learner, now)
    row = session.execute(
        select(
            func.count(distinct(col(ReviewLog.card_id))),
            func.count(),
            func.coalesce(func.sum(case((col(ReviewLog.rating) == 1, 1), else_=0)), 0),
            func.coalesce(func.sum(ReviewLog.duration_ms), 0),
        ).where(
            col(ReviewLog.learner_id) == learner.id,
            col(ReviewLog.mode) == Mode.STUDY.value,
            col(ReviewLog.undone_at).is_(None),
            col(ReviewLog.reviewed_at) >= start,
            col(ReviewLog.reviewed_at) < end,
        )
    ).one()
    return Recap(*(int(value) for value in row))
