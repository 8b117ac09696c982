"""Cards the study queue serves first today: an interview plan's, and a mock interview's misses.

The normal schedule is never rewritten: such a card is rated like any other (moving its FSRS
state on as an early review), and both lists hold for one day only, so the day after an
interview long-term scheduling simply resumes. Today's plan is the one made at the day's first
rating or interview change, kept in the database (DayPlan) so that every worker serves the
same one: ratings during the day take cards off it, they do not reshuffle it; a change of the
interviews, the bank or the learner's limits makes it again at the next rating. Serving the
queue only reads it (`InterviewPins`).
"""

import hashlib
import json
from collections.abc import Sequence
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import BindParameter, bindparam, delete
from sqlmodel import Session, col, select

from app.infra.db import Database
from app.infra.generation import bank_generation
from app.infra.models import (
    Card,
    DayPlan,
    Deck,
    Interview,
    Learner,
    ReviewLog,
    StudyPin,
    table_of,
)
from app.scheduling.cardstate import Mode
from app.scheduling.studyday import local_day, study_day
from app.study.filters import Filters
from app.study.marks import held_cards


def pinned_today(session: Session, *, learner: Learner, now: datetime) -> list[StudyPin]:
    today = local_day(learner, now)
    return list(
        session.exec(
            select(StudyPin)
            .where(StudyPin.learner_id == learner.id, StudyPin.day == today)
            .order_by(col(StudyPin.position))
        )
    )


def set_pins(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    now: datetime,
    card_ids: Sequence[str],
    source: str,
    replace: bool,
) -> int:
    """Pin `card_ids` for today (after those already pinned); `replace` drops `source`'s first.

    Returns how many cards are newly pinned. Writes nothing when nothing changes, so pages may
    call it whenever they show a plan.
    """
    assert learner.id is not None  # a stored learner
    today = local_day(learner, now)
    current = pinned_today(session, learner=learner, now=now)
    mine = [p.card_id for p in current if p.source == source]
    wanted = list(dict.fromkeys(card_ids))
    if replace and mine == wanted:
        return 0
    with database.writing(session):
        if replace:
            session.execute(
                delete(StudyPin).where(
                    col(StudyPin.learner_id) == learner.id,
                    col(StudyPin.day) == today,
                    col(StudyPin.source) == source,
                )
            )
            current = [p for p in current if p.source != source]
        held = {p.card_id for p in current}
        position = max((p.position for p in current), default=-1) + 1
        added = 0
        for card_id in wanted:
            if card_id in held:
                continue
            session.add(
                StudyPin(
                    learner_id=learner.id,
                    day=today,
                    card_id=card_id,
                    position=position,
                    source=source,
                )
            )
            position += 1
            added += 1
        # Pins of past days are never served again.
        session.execute(
            delete(StudyPin).where(
                col(StudyPin.learner_id) == learner.id, col(StudyPin.day) < today
            )
        )
    return added


def refresh_plan(session: Session, *, database: Database, learner: Learner, now: datetime) -> None:
    """Make today's plan for the learner's interviews ahead, unless the kept one still holds.

    The write side of the plan: run after an interview is set or removed and after a rating
    (the day's first makes the day's plan; a later one after an import or a change of limits
    makes it again). Reading the queue only reads the kept plan.
    """
    today = local_day(learner, now)
    params = {"learner_id": learner.id, "today": today}
    interviews, pinned = session.connection().execute(_anything_statement(), params).one()
    # The next card's read in this request needs the same answer: it takes it from here (once)
    # instead of asking again. What it reads stays as the database has it (see `_found`).
    session.info[_FOUND] = (learner.id, today, bool(interviews), bool(pinned))
    if not interviews:
        return
    rows = session.connection().execute(_ahead_statement(), params).all()
    if not rows:
        return
    basis = _basis(session, learner, rows)
    kept = _kept(session, learner, today)
    if kept is not None and kept.basis == basis:
        return
    _keep(
        session,
        learner,
        today,
        basis,
        _plan(session, learner, [row.id for row in rows], now),
        database=database,
    )


def planned_today(session: Session, *, learner: Learner, now: datetime) -> tuple[str, ...]:
    """The cards today's kept plan reviews, in plan order (none until it is made)."""
    kept = _kept(session, learner, local_day(learner, now))
    return tuple(kept.card_ids) if kept is not None else ()


def _basis(session: Session, learner: Learner, rows: Sequence[Any]) -> str:
    """What today's plan is made from, as a short digest: a plan made from another is stale."""
    made_from = (
        bank_generation(session),
        learner.new_per_day,
        learner.max_reviews_per_day,
        list(learner.fsrs_parameters or ()),
        [[str(value) for value in row] for row in rows],
    )
    return hashlib.sha256(json.dumps(made_from).encode()).hexdigest()[:32]


def _kept(session: Session, learner: Learner, today: date) -> DayPlan | None:
    return session.exec(
        select(DayPlan).where(DayPlan.learner_id == learner.id, DayPlan.day == today)
    ).first()


def _plan(
    session: Session, learner: Learner, interview_ids: Sequence[int], now: datetime
) -> tuple[str, ...]:
    from app.interview.readiness import readiness

    found = [session.get(Interview, interview_id) for interview_id in interview_ids]
    return tuple(
        dict.fromkeys(
            card_id
            for interview in found
            if interview is not None
            for card_id in readiness(
                session, learner=learner, interview=interview, now=now
            ).plan.today()
        )
    )


def _keep(
    session: Session,
    learner: Learner,
    today: date,
    basis: str,
    card_ids: Sequence[str],
    *,
    database: Database,
) -> None:
    """Store today's plan; past days' plans go. Workers that make it at once write the same."""
    table = table_of(DayPlan)
    values = {"learner_id": learner.id, "day": today, "basis": basis, "card_ids": list(card_ids)}
    with database.writing(session) as connection:
        connection.execute(
            database.upsert(table)
            .values(values)
            .on_conflict_do_update(
                index_elements=["learner_id", "day"],
                set_={"basis": basis, "card_ids": list(card_ids)},
            )
        )
        connection.execute(
            delete(DayPlan).where(col(DayPlan.learner_id) == learner.id, col(DayPlan.day) < today)
        )


@lru_cache(maxsize=64)
def _open_statement(filters: Filters) -> Any:
    """Which of the candidate cards are in scope, active, held by nothing and not studied today."""
    learner: BindParameter[int] = bindparam("learner_id")
    rated = select(ReviewLog.card_id).where(
        ReviewLog.learner_id == learner,
        ReviewLog.mode == Mode.STUDY.value,
        col(ReviewLog.undone_at).is_(None),
        col(ReviewLog.reviewed_at) >= bindparam("start"),
        col(ReviewLog.reviewed_at) < bindparam("end"),
        ReviewLog.card_id == Card.id,
    )
    return filters.apply(
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            col(Card.id).in_(bindparam("candidates", expanding=True)),
            ~rated.exists(),
            # Suspended and buried cards stay out, plan or not.
            col(Card.id).not_in(held_cards(learner, bindparam("now"))),
        )
    )


@lru_cache(maxsize=1)
def _ahead_statement() -> Any:
    return (
        sa.select(
            col(Interview.id),
            col(Interview.day),
            col(Interview.deck),
            col(Interview.section),
            col(Interview.tag),
            col(Interview.target),
        )
        .where(
            col(Interview.learner_id) == bindparam("learner_id"),
            col(Interview.day) > bindparam("today"),
        )
        .order_by(col(Interview.day), col(Interview.id))
    )


@lru_cache(maxsize=1)
def _anything_statement() -> Any:
    """Whether the learner has an interview ahead, and whether any card is pinned today."""
    learner: BindParameter[int] = bindparam("learner_id")
    today: BindParameter[date] = bindparam("today")
    ahead = select(Interview.id).where(Interview.learner_id == learner, col(Interview.day) > today)
    pinned = select(StudyPin.card_id).where(StudyPin.learner_id == learner, StudyPin.day == today)
    return select(ahead.exists().label("interviews"), pinned.exists().label("pinned"))


# Where `refresh_plan` leaves what it found for the read after it: (learner, day, any interview
# ahead, any card pinned today).
_FOUND = "interview pins found"


def _found(session: Session, learner: Learner, today: date) -> tuple[bool, bool]:
    """Whether the learner has an interview ahead and a card pinned today.

    Taken once from the rating's `refresh_plan` in the same request, which asked a moment
    before; otherwise asked. Pins a mock interview adds meanwhile are served from the next
    request on.
    """
    kept = session.info.pop(_FOUND, None)
    if kept is not None and kept[:2] == (learner.id, today):
        return kept[2], kept[3]
    params = {"learner_id": learner.id, "today": today}
    interviews, pinned = session.connection().execute(_anything_statement(), params).one()
    return bool(interviews), bool(pinned)


def next_pinned(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    exclude: Sequence[str] = (),
) -> str | None:
    """Today's first plan or pinned card in scope that was not studied today, if any."""
    today = local_day(learner, now)
    interviews, pinned = _found(session, learner, today)
    if not (interviews or pinned):
        return None  # most requests: one indexed look in each table, or none after a rating
    pins = [p.card_id for p in pinned_today(session, learner=learner, now=now)] if pinned else []
    plan = planned_today(session, learner=learner, now=now) if interviews else ()
    held = set(exclude)
    candidates = [c for c in dict.fromkeys([*plan, *pins]) if c not in held]
    if not candidates:
        return None
    start, end = study_day(learner, now)
    params = {"learner_id": learner.id, "start": start, "end": end, "now": now}
    found = session.connection().execute(
        _open_statement(filters), {**params, "candidates": candidates}
    )
    open_: set[str] = set(found.scalars())
    return next((c for c in candidates if c in open_), None)


class InterviewPins:
    """The study queue's pinned cards: today's interview plan, then a mock interview's misses."""

    def next_pinned(
        self,
        session: Session,
        *,
        learner: Learner,
        now: datetime,
        filters: Filters,
        exclude: Sequence[str] = (),
    ) -> str | None:
        return next_pinned(session, learner=learner, now=now, filters=filters, exclude=exclude)

    def refresh(
        self, session: Session, *, database: Database, learner: Learner, now: datetime
    ) -> None:
        refresh_plan(session, learner=learner, now=now, database=database)
