"""The team page: each member's progress per deck, for administrators."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy import case, func
from sqlmodel import Session, col, select

from app.infra.models import Card, CardState, Deck, Learner, ReviewLog
from app.scheduling.studyday import MATURE_DAYS


@dataclass
class DeckProgress:
    seen: int = 0
    mature: int = 0
    reviews_30d: int = 0  # ratings of cards in the review queue, for true retention
    passed_30d: int = 0
    reviews_week: int = 0

    @property
    def retention(self) -> float | None:
        return self.passed_30d / self.reviews_30d if self.reviews_30d else None


@dataclass
class MemberProgress:
    learner: Learner
    last_active: datetime | None
    decks: dict[int, DeckProgress] = field(default_factory=lambda: defaultdict(DeckProgress))

    @property
    def reviews_week(self) -> int:
        return sum(d.reviews_week for d in self.decks.values())


def team_progress(session: Session, *, now: datetime) -> tuple[list[Deck], list[MemberProgress]]:
    """Every account's progress per active deck, in a handful of grouped queries."""
    decks = list(
        session.exec(select(Deck).where(col(Deck.retired).is_(False)).order_by(col(Deck.path)))
    )
    learners = session.exec(
        select(Learner).where(col(Learner.password_hash).is_not(None)).order_by(col(Learner.name))
    ).all()
    last = dict(
        session.exec(
            select(ReviewLog.learner_id, func.max(ReviewLog.reviewed_at)).group_by(
                col(ReviewLog.learner_id)
            )
        ).all()
    )
    members: dict[int, MemberProgress] = {}
    for m in learners:
        assert m.id is not None  # read back from the database
        members[m.id] = MemberProgress(m, last[m.id] if last.get(m.id) else None)
    states = (
        select(
            CardState.learner_id,
            Card.deck_id,
            func.count(),
            func.sum(case((col(CardState.stability) >= MATURE_DAYS, 1), else_=0)),
        )
        .join(Card, col(Card.id) == CardState.card_id)
        .where(col(Card.retired).is_(False))
        .group_by(col(CardState.learner_id), col(Card.deck_id))
    )
    for learner_id, deck_id, seen, mature in session.exec(states):
        if learner_id in members:
            members[learner_id].decks[deck_id].seen = seen
            members[learner_id].decks[deck_id].mature = mature or 0
    logs = (
        sa.select(
            col(ReviewLog.learner_id),
            col(Card.deck_id),
            func.sum(case((col(ReviewLog.queue) == "review", 1), else_=0)).label("reviews"),
            func.sum(
                case(((col(ReviewLog.queue) == "review") & (col(ReviewLog.rating) > 1), 1), else_=0)
            ).label("passed"),
            func.sum(
                case((col(ReviewLog.reviewed_at) >= now - timedelta(days=7), 1), else_=0)
            ).label("week"),
        )
        .join(Card, col(Card.id) == ReviewLog.card_id)
        .where(
            col(ReviewLog.mode) == "study",
            col(ReviewLog.undone_at).is_(None),
            col(ReviewLog.reviewed_at) >= now - timedelta(days=30),
        )
        .group_by(col(ReviewLog.learner_id), col(Card.deck_id))
    )
    for row in session.execute(logs):
        if row.learner_id in members:
            progress = members[row.learner_id].decks[row.deck_id]
            progress.reviews_30d, progress.passed_30d = row.reviews, row.passed
            progress.reviews_week = row.week
    return decks, list(members.values())
