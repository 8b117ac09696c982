"""Interviews a learner prepares for: set, list, delete; each private to its learner."""

from datetime import date, datetime, timedelta

from sqlmodel import Session, col, func, select

from app.errors import Invalid
from app.infra.db import Database
from app.infra.models import Card, Deck, Interview, Learner
from app.infra.owned import owned
from app.scheduling.studyday import local_day
from app.study import Filters

MAX_DAYS_AHEAD = 366
MAX_INTERVIEWS = 50


def scope(interview: Interview) -> Filters:
    return Filters(
        deck=interview.deck, section=interview.section, tag=interview.tag, folder=interview.folder
    )


def scope_size(session: Session, filters: Filters) -> int:
    """The active cards in `filters`."""
    query = filters.apply(
        select(func.count()).select_from(Card).join(Deck, col(Deck.id) == Card.deck_id)
    )
    count: int = session.exec(query).one()
    return count


def create_interview(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    name: str,
    day: date,
    filters: Filters,
    now: datetime,
    target: float = 0.9,
) -> Interview:
    """Set an interview; Invalid says what is wrong with the name, the day or the scope."""
    assert learner.id is not None  # a stored learner
    name = name.strip()
    if not name:
        raise Invalid("interview_name_missing")
    today = local_day(learner, now)
    if day < today:
        raise Invalid("interview_date_past", day=day.isoformat())
    if day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise Invalid("interview_date_too_far", day=day.isoformat())
    if not 0.7 <= target <= 0.99:
        raise Invalid("target_recall_out_of_range")
    if scope_size(session, filters) == 0:
        raise Invalid("scope_empty", scope=filters.label or "—")
    count = session.exec(
        select(func.count()).select_from(Interview).where(Interview.learner_id == learner.id)
    ).one()
    if count >= MAX_INTERVIEWS:
        raise Invalid("too_many_interviews", count=MAX_INTERVIEWS)
    interview = Interview(
        learner_id=learner.id,
        name=name,
        day=day,
        deck=filters.deck,
        section=filters.section,
        tag=filters.tag,
        folder=filters.folder,
        target=target,
        created_at=now,
    )
    with database.writing(session):
        session.add(interview)
    session.refresh(interview)
    return interview


def interviews(session: Session, *, learner: Learner) -> list[Interview]:
    """The learner's interviews, soonest first."""
    return list(
        session.exec(
            select(Interview)
            .where(Interview.learner_id == learner.id)
            .order_by(col(Interview.day), col(Interview.id))
        )
    )


def upcoming(session: Session, *, learner: Learner, now: datetime) -> list[Interview]:
    """The learner's interviews from today on, soonest first."""
    today = local_day(learner, now)
    return [i for i in interviews(session, learner=learner) if i.day >= today]


def get_interview(session: Session, *, learner: Learner, interview_id: int) -> Interview:
    return owned(session, Interview, interview_id, learner=learner, code="interview_not_found")


def delete_interview(
    session: Session, *, database: Database, learner: Learner, interview_id: int
) -> None:
    with database.writing(session):
        found = get_interview(session, learner=learner, interview_id=interview_id)
        session.delete(found)
