"""What the learner did today (for the daily limits) and when their next card falls due."""

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, case, func, literal_column, or_
from sqlmodel import Session, col, select

from app.infra.models import Card, CardMark, CardState, Deck, Learner, ReviewLog
from app.scheduling.cardstate import Mode
from app.scheduling.studyday import study_day
from app.study.filters import Filters


def _rated_today() -> list[Any]:
    """A learner's live study ratings of one study day (`learner_id`, `start`, `end`)."""
    return [
        ReviewLog.learner_id == bindparam("learner_id"),
        ReviewLog.mode == Mode.STUDY.value,
        col(ReviewLog.undone_at).is_(None),
        col(ReviewLog.reviewed_at) >= bindparam("start"),
        col(ReviewLog.reviewed_at) < bindparam("end"),
    ]


def _day_params(learner: Learner, now: datetime) -> dict[str, Any]:
    start, end = study_day(learner, now)
    return {"learner_id": learner.id, "start": start, "end": end}


@lru_cache(maxsize=1)
def _done_today_statement() -> Any:
    return (
        select(ReviewLog.queue, func.count())
        .where(
            *_rated_today(),
            col(ReviewLog.queue).in_([literal_column("'new'"), literal_column("'review'")]),
        )
        .group_by(ReviewLog.queue)
    )


def done_today(session: Session, *, learner: Learner, now: datetime) -> dict[str, int]:
    """Study ratings given today to new cards and to reviews (for the daily limits).

    A card is new only until its first rating (an undone one does not count), and a review
    rated today is not due again today, so these are also numbers of cards. Counted along the
    ix_reviewlog_study_day index, without reading log rows.
    """
    rows = session.connection().execute(_done_today_statement(), _day_params(learner, now))
    return {"new": 0, "review": 0} | dict(rows.all())


def reviewed_today(session: Session, *, learner: Learner, now: datetime) -> int:
    """Study ratings given so far in the learner's current day (for the progress bar)."""
    statement = select(func.count()).where(*_rated_today())
    return session.connection().execute(statement, _day_params(learner, now)).scalar_one()


def next_due(
    session: Session, *, learner: Learner, filters: Filters, now: datetime
) -> datetime | None:
    """When the next scheduled card, not suspended, falls due (for the 'done for today' page).

    A card buried today counts from when it is back, the start of the next study day.
    """
    mark = (col(CardMark.learner_id) == learner.id) & (col(CardMark.card_id) == CardState.card_id)
    due = case(
        (col(CardMark.buried_until) > CardState.due, CardMark.buried_until), else_=CardState.due
    )
    statement = filters.apply(
        select(func.min(due))
        .select_from(CardState)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .outerjoin(CardMark, mark)
        .where(
            CardState.learner_id == learner.id,
            or_(col(CardMark.suspended).is_(None), col(CardMark.suspended).is_(False)),
        )
    )
    return session.connection().execute(statement).scalar_one()
