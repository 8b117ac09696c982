"""A learner's lists of marked cards (suspended, buried, flagged, leeches); the team's leeches."""

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, func, select
from sqlmodel import Session, col

from app.infra.models import Card, CardMark, CardState, Deck, Learner, ReviewLog
from app.scheduling.cardstate import Mode
from app.scheduling.studyday import study_day
from app.study.marks import Mark

LIST_LIMIT = 500


class MarkKind(StrEnum):
    SUSPENDED = "suspended"
    BURIED = "buried"
    FLAGGED = "flagged"
    LEECH = "leech"


@dataclass(frozen=True)
class Rating:
    at: datetime
    rating: int


@dataclass(frozen=True)
class MarkedCard:
    mark: Mark
    question: str
    question_html: str
    deck_slug: str
    deck_title: str
    source_path: str  # where the card is written, to rewrite it: decks/x.md
    source_line: int
    retired: bool
    lapses: int
    reps: int
    due: datetime | None
    history: tuple[Rating, ...] = ()

    @property
    def card_id(self) -> str:
        return self.mark.card_id

    @property
    def source(self) -> str:
        return f"{self.source_path}:{self.source_line}"


def _kind_condition(kind: MarkKind, now: datetime, flag: int | None) -> Any:
    if kind is MarkKind.SUSPENDED:
        return col(CardMark.suspended).is_(True)
    if kind is MarkKind.BURIED:
        return col(CardMark.buried_until) > now
    if kind is MarkKind.LEECH:
        return col(CardMark.leech).is_(True)
    return col(CardMark.flag) == flag if flag else col(CardMark.flag) > 0


def marked_cards(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    kind: MarkKind,
    flag: int | None = None,
) -> list[MarkedCard]:
    """The learner's cards with the mark `kind` (`flag`: one colour), in content order.

    Leeches come with their study history, most lapses first.
    """
    state = and_(
        col(CardState.learner_id) == learner.id, col(CardState.card_id) == CardMark.card_id
    )
    rows = session.execute(
        select(
            CardMark,
            col(Card.question),
            col(Card.question_html),
            col(Deck.slug),
            col(Deck.title),
            col(Card.source_path),
            col(Card.source_line),
            col(Card.retired),
            func.coalesce(CardState.lapses, 0).label("lapses"),
            func.coalesce(CardState.reps, 0).label("reps"),
            col(CardState.due),
        )
        .join(Card, col(Card.id) == CardMark.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .outerjoin(CardState, state)
        .where(col(CardMark.learner_id) == learner.id, _kind_condition(kind, now, flag))
        .order_by(col(Card.ordinal))
        .limit(LIST_LIMIT)
    ).all()
    found = [
        MarkedCard(
            Mark.from_row(row.CardMark),
            question=row.question,
            question_html=row.question_html,
            deck_slug=row.slug,
            deck_title=row.title,
            source_path=row.source_path,
            source_line=row.source_line,
            retired=row.retired,
            lapses=row.lapses,
            reps=row.reps,
            due=row.due,
        )
        for row in rows
    ]
    if kind is not MarkKind.LEECH:
        return found
    history = study_history(session, learner=learner, card_ids=[c.card_id for c in found])
    found = [_with_history(c, history.get(c.card_id, ())) for c in found]
    return sorted(found, key=lambda c: -c.lapses)


def _with_history(card: MarkedCard, history: tuple[Rating, ...]) -> MarkedCard:
    return replace(card, history=history)


def study_history(
    session: Session, *, learner: Learner, card_ids: list[str]
) -> dict[str, tuple[Rating, ...]]:
    """Each card's live study ratings by the learner, oldest first."""
    if not card_ids:
        return {}
    rows = session.execute(
        select(col(ReviewLog.card_id), col(ReviewLog.reviewed_at), col(ReviewLog.rating))
        .where(
            col(ReviewLog.learner_id) == learner.id,
            col(ReviewLog.card_id).in_(card_ids),
            col(ReviewLog.mode) == Mode.STUDY.value,
            col(ReviewLog.undone_at).is_(None),
        )
        .order_by(col(ReviewLog.reviewed_at), col(ReviewLog.id))
    ).all()
    history: dict[str, list[Rating]] = defaultdict(list)
    for row in rows:
        history[row.card_id].append(Rating(row.reviewed_at, row.rating))
    return {card_id: tuple(ratings) for card_id, ratings in history.items()}


def failed_today(session: Session, *, learner: Learner, now: datetime) -> list[str]:
    """The cards the learner rated Again in today's study, in the order they were failed."""
    start, end = study_day(learner, now)
    rows = session.execute(
        select(col(ReviewLog.card_id), func.min(ReviewLog.id).label("first"))
        .where(
            col(ReviewLog.learner_id) == learner.id,
            col(ReviewLog.mode) == Mode.STUDY.value,
            col(ReviewLog.undone_at).is_(None),
            col(ReviewLog.reviewed_at) >= start,
            col(ReviewLog.reviewed_at) < end,
            col(ReviewLog.rating) == 1,
        )
        .group_by(col(ReviewLog.card_id))
        .order_by("first")
    ).all()
    return [row.card_id for row in rows]


@dataclass(frozen=True)
class TeamLeech:
    card_id: str
    question: str
    question_html: str
    deck_slug: str
    source: str
    learners: int  # members for whom the card is a leech
    lapses: int  # their lapses of it, together


def team_leeches(session: Session, *, limit: int = 20) -> list[TeamLeech]:
    """The cards the most learners keep failing: a leech for each (lapses at their threshold)."""
    learners = func.count(col(CardState.learner_id)).label("learners")
    rows = session.execute(
        select(
            col(Card.id),
            col(Card.question),
            col(Card.question_html),
            col(Deck.slug),
            col(Card.source_path),
            col(Card.source_line),
            learners,
            func.sum(CardState.lapses).label("lapses"),
        )
        .select_from(CardState)
        .join(Learner, col(Learner.id) == CardState.learner_id)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            col(Card.retired).is_(False),
            col(Learner.leech_threshold) > 0,
            col(CardState.lapses) >= Learner.leech_threshold,
        )
        .group_by(
            col(Card.id),
            col(Card.question),
            col(Card.question_html),
            col(Deck.slug),
            col(Card.source_path),
            col(Card.source_line),
        )
        .order_by(learners.desc(), func.sum(CardState.lapses).desc(), col(Card.id))
        .limit(limit)
    ).all()
    return [
        TeamLeech(
            r.id,
            r.question,
            r.question_html,
            r.slug,
            f"{r.source_path}:{r.source_line}",
            r.learners,
            r.lapses,
        )
        for r in rows
    ]
