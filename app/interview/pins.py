"""Cards the study queue serves first today: an interview plan's, and a mock interview's misses.

The normal schedule is never rewritten: such a card is rated like any other (moving its FSRS
state on as an early review), and both lists hold for one day only, so the day after an
interview long-term scheduling simply resumes. Today's plan is the one made at the day's first
look (kept per process): ratings during the day take cards off it, they do not reshuffle it.
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, delete
from sqlmodel import Session, col, select

from app.cardstate import Mode
from app.cardview import bank_generation
from app.learners import local_day, study_day
from app.models import Card, Deck, Interview, Learner, ReviewLog, StudyPin
from app.study.filters import Filters
from app.study.marks import held_cards

_PLANS: OrderedDict[tuple[object, ...], tuple[str, ...]] = OrderedDict()
_LOCK = threading.Lock()
PLANS_KEPT = 256


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
    today = local_day(learner, now)
    current = pinned_today(session, learner=learner, now=now)
    mine = [p.card_id for p in current if p.source == source]
    wanted = list(dict.fromkeys(card_ids))
    if replace and mine == wanted:
        return 0
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
                learner_id=learner.id,  # type: ignore[arg-type]
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
        delete(StudyPin).where(col(StudyPin.learner_id) == learner.id, col(StudyPin.day) < today)
    )
    session.commit()
    return added


def today_plan(session: Session, *, learner: Learner, now: datetime) -> tuple[str, ...]:
    """The cards today's plan for the learner's interviews ahead reviews, in plan order."""
    from app.interview.readiness import readiness

    today = local_day(learner, now)
    rows = (
        session.connection()
        .execute(_ahead_statement(), {"learner_id": learner.id, "today": today})
        .all()
    )
    if not rows:
        return ()
    key = (learner.id, today, bank_generation(session), tuple(tuple(row) for row in rows))
    with _LOCK:
        cached = _PLANS.get(key)
    if cached is not None:
        return cached
    found = [session.get(Interview, row.id) for row in rows]
    planned = tuple(
        dict.fromkeys(
            card_id
            for interview in found
            if interview is not None
            for card_id in readiness(
                session, learner=learner, interview=interview, now=now
            ).plan.today()
        )
    )
    with _LOCK:
        _PLANS[key] = planned
        while len(_PLANS) > PLANS_KEPT:
            _PLANS.popitem(last=False)
    return planned


@lru_cache(maxsize=64)
def _open_statement(filters: Filters) -> Any:
    """Which of the candidate cards are in scope, active, held by nothing and not studied today."""
    learner = bindparam("learner_id")
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
        select(
            Interview.id,
            Interview.day,
            Interview.deck,
            Interview.section,
            Interview.tag,
            Interview.target,
        )
        .where(
            Interview.learner_id == bindparam("learner_id"), col(Interview.day) > bindparam("today")
        )
        .order_by(col(Interview.day), col(Interview.id))
    )


@lru_cache(maxsize=1)
def _anything_statement() -> Any:
    """Whether the learner has an interview ahead, and whether any card is pinned today."""
    learner, today = bindparam("learner_id"), bindparam("today")
    ahead = select(Interview.id).where(Interview.learner_id == learner, col(Interview.day) > today)
    pinned = select(StudyPin.card_id).where(StudyPin.learner_id == learner, StudyPin.day == today)
    return select(ahead.exists().label("interviews"), pinned.exists().label("pinned"))


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
    params = {"learner_id": learner.id, "today": today}
    interviews, pinned = session.connection().execute(_anything_statement(), params).one()
    if not (interviews or pinned):
        return None  # most requests: one indexed look in each table
    pins = [p.card_id for p in pinned_today(session, learner=learner, now=now)] if pinned else []
    plan = today_plan(session, learner=learner, now=now) if interviews else ()
    held = set(exclude)
    candidates = [c for c in dict.fromkeys([*plan, *pins]) if c not in held]
    if not candidates:
        return None
    start, end = study_day(learner, now)
    params = {"learner_id": learner.id, "start": start, "end": end, "now": now}
    found = session.connection().execute(
        _open_statement(filters), {**params, "candidates": candidates}
    )
    open_ = set(found.scalars())
    return next((c for c in candidates if c in open_), None)
