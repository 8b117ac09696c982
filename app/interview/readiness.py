"""How ready a learner is for an interview: predicted recall on the day, per deck and section."""

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Row, and_
from sqlmodel import Session, col, func, select

from app.accounts.learners import personal_parameters
from app.infra.models import Card, CardState, Deck, Interview, Learner, ReviewLog
from app.interview.interviews import scope
from app.interview.plan import Plan, Scheduling, make_plan, recall
from app.scheduling.cardstate import SCHEDULE_FIELDS, CardStateValue
from app.scheduling.studyday import day_start, local_day

WEAKEST = 10


@dataclass(frozen=True)
class CardRecall:
    card_id: str
    deck: str
    deck_title: str
    section: str
    question_html: str
    recall: float  # predicted on the day; 0 for a card never studied
    studied: bool


@dataclass(frozen=True)
class Group:
    """A deck or a section of one, with how many of its cards are ready."""

    deck: str
    title: str
    section: str | None
    cards: int
    ready: int

    @property
    def share(self) -> float:
        return self.ready / self.cards if self.cards else 0.0


@dataclass(frozen=True)
class Readiness:
    interview: Interview
    days_left: int
    cards: tuple[CardRecall, ...]
    plan: Plan

    @property
    def target(self) -> float:
        return self.interview.target

    @property
    def ready(self) -> int:
        return sum(c.recall >= self.target for c in self.cards)

    @property
    def share_ready(self) -> float:
        return self.ready / len(self.cards) if self.cards else 0.0

    @property
    def weakest(self) -> list[CardRecall]:
        unready = [c for c in self.cards if c.recall < self.target]
        return sorted(unready, key=lambda c: (c.studied, c.recall))[:WEAKEST]

    def groups(self, *, sections: bool) -> list[Group]:
        found: OrderedDict[tuple[str, str | None], list[CardRecall]] = OrderedDict()
        for card in self.cards:
            found.setdefault((card.deck, card.section if sections else None), []).append(card)
        return [
            Group(
                deck=deck,
                title=members[0].deck_title,
                section=section,
                cards=len(members),
                ready=sum(c.recall >= self.target for c in members),
            )
            for (deck, section), members in found.items()
        ]


def _anchor(session: Session, learner: Learner, now: datetime) -> datetime:
    """When the plan starts: the start of the study day, or the learner's last review after it.

    Taken from the database rather than the clock, so that every worker, whenever in the day
    it asks, makes the same plan from the same state, and never before a review it simulates
    from.
    """
    start = day_start(learner, local_day(learner, now))
    last = session.exec(
        select(func.max(CardState.last_review)).where(CardState.learner_id == learner.id)
    ).one()
    latest = last.astimezone(UTC) if last is not None else start
    return max(start, latest)


def _scheduling(
    learner: Learner, interview: Interview, now: datetime, anchor: datetime
) -> Scheduling:
    return Scheduling(
        today=local_day(learner, now),
        day=interview.day,
        moment=day_start(learner, interview.day),
        now=anchor,
        target=interview.target,
        parameters=personal_parameters(learner),
        new_per_day=learner.new_per_day,
        max_reviews_per_day=learner.max_reviews_per_day,
    )


def _cards(session: Session, learner: Learner, interview: Interview) -> list[Row[*tuple[Any, ...]]]:
    seen = and_(col(CardState.card_id) == Card.id, col(CardState.learner_id) == learner.id)
    query = scope(interview).apply(
        sa.select(
            col(Card.id),
            col(Deck.slug),
            col(Deck.title),
            col(Card.section),
            col(Card.question_html),
            *(col(getattr(CardState, name)) for name in SCHEDULE_FIELDS),
        )
        .select_from(Card)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .outerjoin(CardState, seen)
        .order_by(col(Card.ordinal))
    )
    return list(session.exec(query))


# Plans computed, per learner: made again when the learner rates a card, the bank changes, the
# interview or the day changes. The key is all database state, so a plan is the same in every
# worker. A plan over a few thousand cards takes a second or so.
_CACHE: OrderedDict[tuple[object, ...], tuple[tuple[CardRecall, ...], Plan]] = OrderedDict()
_LOCK = threading.Lock()
CACHE_SIZE = 64


def _version(session: Session, learner: Learner) -> tuple[object, ...]:
    from app.infra.generation import bank_generation

    last = session.exec(
        select(func.max(ReviewLog.id), func.count(col(ReviewLog.undone_at))).where(
            ReviewLog.learner_id == learner.id
        )
    ).one()
    return (bank_generation(session), *last)


def readiness(
    session: Session, *, learner: Learner, interview: Interview, now: datetime
) -> Readiness:
    """The learner's readiness for `interview` and the plan to be ready, as of `now`."""
    plan_input = _scheduling(learner, interview, now, _anchor(session, learner, now))
    key = (
        learner.id,
        learner.new_per_day,
        learner.max_reviews_per_day,
        tuple(learner.fsrs_parameters or ()),
        interview.id,
        interview.day,
        interview.target,
        scope(interview),
        plan_input.today,
        plan_input.now,
        *_version(session, learner),
    )
    with _LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return Readiness(interview, plan_input.days_left, *cached)
    cards: list[CardRecall] = []
    states: list[tuple[str, CardStateValue | None]] = []
    for row in _cards(session, learner, interview):
        # The row names the card_state columns that CardStateValue reads (None: unseen).
        state = CardStateValue.from_row(row) if row.state is not None else None
        states.append((row.id, state))
        cards.append(
            CardRecall(
                card_id=row.id,
                deck=row.slug,
                deck_title=row.title,
                section=row.section,
                question_html=row.question_html,
                recall=recall(state, plan_input),
                studied=state is not None,
            )
        )
    computed = (tuple(cards), make_plan(states, plan_input))
    with _LOCK:
        _CACHE[key] = computed
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return Readiness(interview, plan_input.days_left, *computed)
