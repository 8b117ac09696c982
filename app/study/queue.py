"""The study queue: the card to show next, with what is left today."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import BindParameter, and_, bindparam, case, func, null
from sqlalchemy.engine import Row
from sqlmodel import Session, col, select

from app.accounts.learners import personal_parameters
from app.infra.generation import GENERATION
from app.infra.models import Card, CardMark, CardState, Deck, Learner
from app.scheduling import schedule
from app.scheduling.cardstate import SCHEDULE_FIELDS, CardStateValue, Queue, State
from app.scheduling.studyday import study_day
from app.study.cardview import CardView, card_view
from app.study.counts import (
    LEARN_AHEAD,
    WALK_NEW_CARDS,
    Counts,
    count_columns,
    counts,
    limited_counts,
    new_cards_query,
    not_put_aside,
    queue_params,
    statement_shape,
)
from app.study.filters import Filters
from app.study.marks import MARK_COLUMNS, Mark, held_cards
from app.study.pinned import NO_PINS, PinnedCards
from app.study.spread import spread_for
from app.study.today import done_today

__all__ = ["Counts", "NextCard", "card_state", "counts", "next_card", "state_row", "study_next"]


@dataclass(frozen=True)
class NextCard:
    card: CardView
    queue: Queue
    state: CardStateValue | None
    version: int
    intervals: dict[int, timedelta]
    mark: Mark


def _first(query: Any, exclude: bool) -> Any:
    """The first card id of `query` as a scalar subquery, without the cards the client holds."""
    if exclude:
        query = query.where(col(Card.id).not_in(bindparam("exclude", expanding=True)))
    return query.limit(1).scalar_subquery()


def _first_due(filters: Filters, condition: Any, exclude: bool) -> Any:
    """The learner's earliest-due card meeting `condition`."""
    due = filters.apply(
        select(Card.id)
        .select_from(CardState)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            CardState.learner_id == bindparam("learner_id"),
            condition,
            not_put_aside(CardState.card_id),
        )
    ).order_by(col(CardState.due))
    return _first(due, exclude)


@lru_cache(maxsize=128)
def _pick_statement(
    filters: Filters, *, reviews: bool, new: bool, walk: bool, exclude: bool
) -> Any:
    """One statement: the first card of each queue, today's counts and the bank's generation.

    Each queue's candidate is an indexed LIMIT 1 lookup; a queue that the daily limits close
    is left out. The caller takes the first queue that has a card.
    """
    review_due = col(CardState.state) == int(State.REVIEW)
    learning_due = and_(~review_due, col(CardState.due) <= bindparam("now"))
    review = and_(review_due, col(CardState.due) < bindparam("day_end"))
    # Nothing else to do: learning steps coming up shortly are shown early rather than waiting.
    ahead = and_(~review_due, col(CardState.due) <= bindparam("ahead"))
    unseen = filters.apply(new_cards_query(bindparam("learner_id"), bindparam("new_cursor")))
    return sa.select(
        _first_due(filters, learning_due, exclude).label("learning"),
        (_first_due(filters, review, exclude) if reviews else null()).label("review"),
        (_first(unseen, exclude) if new else null()).label("new"),
        _first_due(filters, ahead, exclude).label("ahead"),
        *count_columns(filters, walk=walk, prefix="count_"),
        GENERATION.label("generation"),
    )


STATE_COLUMNS = tuple(col(getattr(CardState, name)) for name in (*SCHEDULE_FIELDS, "version"))


@lru_cache(maxsize=1)
def _state_statement() -> Any:
    return sa.select(*STATE_COLUMNS).where(
        col(CardState.learner_id) == bindparam("learner_id"),
        col(CardState.card_id) == bindparam("card"),
    )


@lru_cache(maxsize=1)
def _shown_statement() -> Any:
    """The learner's state of the card to show and their marks on it, in one look-up."""
    learner_id: BindParameter[int] = bindparam("learner_id")
    return (
        sa.select(*STATE_COLUMNS, *MARK_COLUMNS)
        .select_from(Card)
        .outerjoin(
            CardState,
            and_(col(CardState.card_id) == Card.id, col(CardState.learner_id) == learner_id),
        )
        .outerjoin(
            CardMark,
            and_(col(CardMark.card_id) == Card.id, col(CardMark.learner_id) == learner_id),
        )
        .where(col(Card.id) == bindparam("card"))
    )


def state_row(session: Session, *, learner: Learner, card_id: str) -> Row[Any] | None:
    """The learner's state of the card with its version (None if the card is new to them)."""
    params = {"learner_id": learner.id, "card": card_id}
    return session.connection().execute(_state_statement(), params).first()


def card_state(session: Session, *, learner: Learner, card_id: str) -> CardStateValue | None:
    row = state_row(session, learner=learner, card_id=card_id)
    return CardStateValue.from_row(row) if row is not None else None


def _held(session: Session, learner: Learner, exclude: Sequence[str]) -> dict[str, int]:
    """How many of the cards the client holds are new to the learner, and how many reviews.

    They count against the daily limits as if rated already, so that a client holding cards
    ahead is never handed more new cards or reviews than the day allows.
    """
    seen = and_(
        col(CardState.card_id) == Card.id, col(CardState.learner_id) == bindparam("learner_id")
    )
    statement = (
        select(
            func.count(col(Card.id)),
            func.count(col(CardState.card_id)),
            func.count(case((col(CardState.state) == int(State.REVIEW), 1))),
        )
        .select_from(Card)
        .outerjoin(CardState, seen)
        .where(col(Card.id).in_(bindparam("exclude", expanding=True)))
    )
    params = {"learner_id": learner.id, "exclude": list(exclude)}
    cards, known, reviews = session.connection().execute(statement, params).one()
    return {"new": cards - known, "review": reviews}


def study_next(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    exclude: Sequence[str] = (),
    pinned: str | None = None,
    pins: PinnedCards = NO_PINS,
) -> tuple[NextCard | None, Counts]:
    """The card to study now (None when nothing is due) and what is left today.

    Due learning cards come first, then due reviews, then new cards in content order, then
    learning steps due shortly. `exclude`: cards the client already holds, so the one after
    them is picked; the counts include them. `pinned`: show this card if it may be studied now
    (after an undo). `pins`: cards another feature (an interview's plan) serves first today.
    """
    done = done_today(session, learner=learner, now=now)
    params = queue_params(learner, now, done, filters)
    held = _held(session, learner, exclude) if exclude else {"new": 0, "review": 0}
    statement = _pick_statement(
        statement_shape(filters),
        reviews=done["review"] + held["review"] < learner.max_reviews_per_day,
        new=params["new_left"] > held["new"],
        walk=params["new_left"] <= WALK_NEW_CARDS,
        exclude=bool(exclude),
    )
    if exclude:
        params["exclude"] = list(exclude)
    row = session.connection().execute(statement, params).one()
    today = limited_counts(row, learner, now, done, prefix="count_")
    card_id = pinned if pinned and _studyable(session, learner, now, filters, pinned) else None
    # Pinned cards (an interview's plan for today) come right after learning steps.
    planned = pins.next_pinned(session, learner=learner, now=now, filters=filters, exclude=exclude)
    card_id = card_id or row.learning or planned or row.review or row.new or row.ahead
    if card_id is None:
        return None, today
    params = {"learner_id": learner.id, "card": card_id}
    shown = session.connection().execute(_shown_statement(), params).one()
    return _next(session, learner, now, card_id, shown, generation=row.generation), today


def next_card(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    pinned: str | None = None,
    exclude: Sequence[str] = (),
    pins: PinnedCards = NO_PINS,
) -> NextCard | None:
    """The card to study now, or None (see `study_next`)."""
    return study_next(
        session,
        learner=learner,
        now=now,
        filters=filters,
        pinned=pinned,
        exclude=exclude,
        pins=pins,
    )[0]


def _next(
    session: Session,
    learner: Learner,
    now: datetime,
    card_id: str,
    shown: Row[Any],
    generation: int | None = None,
) -> NextCard:
    """The card with the learner's state (`_shown_statement`'s row) and the buttons' intervals."""
    card = card_view(session, card_id, generation=generation)
    assert card is not None, card_id
    current = CardStateValue.from_row(shown) if shown.version is not None else None
    return NextCard(
        card=card,
        queue=schedule.queue_of(current),
        state=current,
        version=shown.version or 0,
        intervals=schedule.preview(
            current,
            now,
            desired_retention=learner.desired_retention,
            parameters=personal_parameters(learner),
            spread=spread_for(session, learner=learner, card_id=card_id, now=now),
        ),
        mark=Mark.from_row(shown) if shown.card_id is not None else Mark(card_id),
    )


def _studyable(
    session: Session, learner: Learner, now: datetime, filters: Filters, card_id: str
) -> bool:
    """Whether `card_id` is in scope, active, and due today or new (to show it after an undo)."""
    in_scope = filters.apply(
        select(Card.id).join(Deck, col(Deck.id) == Card.deck_id).where(col(Card.id) == card_id)
    )
    if session.connection().execute(in_scope).first() is None:
        return False
    held = held_cards(learner.id, now).where(CardMark.card_id == card_id)
    if session.connection().execute(held).first() is not None:
        return False
    state = state_row(session, learner=learner, card_id=card_id)
    _, day_end = study_day(learner, now)
    day_end += timedelta(days=filters.ahead)
    return state is None or state.due < max(day_end, now + LEARN_AHEAD)
