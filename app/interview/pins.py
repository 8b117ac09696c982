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
    found = list(
        session.exec(
            select(Interview)
            .where(Interview.learner_id == learner.id, col(Interview.day) > today)
            .order_by(col(Interview.day), col(Interview.id))
        )
    )
    if not found:
        return ()
    key = (
        learner.id,
        today,
        bank_generation(session),
        tuple((i.id, i.day, i.deck, i.section, i.tag, i.target) for i in found),
    )
    with _LOCK:
        cached = _PLANS.get(key)
    if cached is not None:
        return cached
    planned = tuple(
        dict.fromkeys(
            card_id
            for interview in found
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


def next_pinned(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    exclude: Sequence[str] = (),
) -> str | None:
    """Today's first plan or pinned card in scope that was not studied today, if any."""
    pins = [p.card_id for p in pinned_today(session, learner=learner, now=now)]
    candidates = [
        c
        for c in dict.fromkeys([*today_plan(session, learner=learner, now=now), *pins])
        if c not in set(exclude)
    ]
    if not candidates:
        return None
    start, end = study_day(learner, now)
    rated = select(ReviewLog.card_id).where(
        ReviewLog.learner_id == learner.id,
        ReviewLog.mode == Mode.STUDY.value,
        col(ReviewLog.undone_at).is_(None),
        col(ReviewLog.reviewed_at) >= start,
        col(ReviewLog.reviewed_at) < end,
        ReviewLog.card_id == Card.id,
    )
    query = filters.apply(
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            col(Card.id).in_(bindparam("candidates", expanding=True)),
            ~rated.exists(),
            # Suspended and buried cards stay out, plan or not.
            col(Card.id).not_in(held_cards(learner.id, now)),
        )
    )
    open_ = set(session.exec(query, params={"candidates": candidates}))  # type: ignore[call-overload]
    return next((c for c in candidates if c in open_), None)
