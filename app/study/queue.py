"""The study queue: what is due, what is left today, and the card to show next."""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import and_, bindparam, case, func, literal_column, null
from sqlalchemy.engine import Row
from sqlmodel import Session, col, select

from app import scheduling
from app.cardstate import CardStateValue, Queue, State, aware
from app.cardview import GENERATION, CardView, card_view
from app.interview.pins import next_pinned
from app.learners import new_limit, personal_parameters, study_day
from app.models import Card, CardMark, CardState, Deck, Learner
from app.study.filters import Filters
from app.study.marks import Mark, get_mark, held_cards
from app.study.spread import spread_for
from app.study.today import done_today

# Learning steps due this soon are shown early when nothing else is left.
LEARN_AHEAD = timedelta(minutes=20)
# Up to this many new cards left for the day, they are counted by walking the unseen cards from
# the learner's cursor; beyond, as the cards in scope minus the learner's card states.
WALK_NEW_CARDS = 200


@dataclass(frozen=True)
class Counts:
    new: int
    learning: int
    review: int

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review


@dataclass(frozen=True)
class NextCard:
    card: CardView
    queue: Queue
    state: CardStateValue | None
    version: int
    intervals: dict[int, timedelta]
    mark: Mark


def _inline(*sql: str) -> list[Any]:
    """Constants for `in_`, written into the statement rather than expanded per execution."""
    return [literal_column(value) for value in sql]


def _put_aside() -> Any:
    """The learner's suspended and buried cards, for the statements' `learner_id` and `now`."""
    return held_cards(bindparam("learner_id"), bindparam("now"))


def _new_cards(learner_id: Any, cursor: Any) -> Any:
    """Ids of the cards the learner has never studied and not put aside, in content order."""
    seen = select(CardState.card_id).where(
        CardState.learner_id == learner_id, CardState.card_id == Card.id
    )
    return (
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.ordinal) >= cursor, ~seen.exists(), col(Card.id).not_in(_put_aside()))
        .order_by(col(Card.ordinal))
    )


def _new_left(learner: Learner, now: datetime, done: dict[str, int]) -> int:
    return max(new_limit(learner, now) - done["new"], 0)


def _counts(
    row: Any, learner: Learner, now: datetime, done: dict[str, int], prefix: str = ""
) -> Counts:
    """Counts from a row with the columns of `_count_columns`, within the daily limits."""
    review_left = max(learner.max_reviews_per_day - done["review"], 0)
    return Counts(
        new=min(getattr(row, prefix + "new"), _new_left(learner, now, done)),
        learning=getattr(row, prefix + "learning"),
        review=min(getattr(row, prefix + "review"), review_left),
    )


def _count_columns(filters: Filters, *, walk: bool, prefix: str = "") -> list[Any]:
    """learning, review and new as scalar subqueries.

    `walk`: new cards counted by walking the unseen ones from the learner's cursor, at most
    `new_left` of them, which costs little when few are wanted however long the learner's
    history; otherwise as the cards in scope minus those with a state, which never walks the
    bank.
    """
    learner_id = bindparam("learner_id")
    # Learning and relearning: two ranges of ix_cardstate_learner_state_due.
    active = col(CardState.card_id).not_in(_put_aside())
    is_learning = (
        col(CardState.state).in_(_inline(str(int(State.LEARNING)), str(int(State.RELEARNING)))),
        col(CardState.due) <= bindparam("ahead"),
        active,
    )
    is_review = (
        CardState.state == int(State.REVIEW),
        col(CardState.due) < bindparam("day_end"),
        active,
    )
    if filters.scoped:

        def states(*conditions: Any) -> Any:
            return filters.apply(
                select(func.count())
                .select_from(CardState)
                .join(Card, col(Card.id) == CardState.card_id)
                .join(Deck, col(Deck.id) == Card.deck_id)
                .where(CardState.learner_id == learner_id, *conditions)
            ).scalar_subquery()

        learning, review, seen = states(*is_learning), states(*is_review), states()
    else:
        # The whole bank: counted in the learner's indexes alone, leaving out the states of
        # retired cards (few) by id instead of reading each card.
        retired = select(Card.id).where(col(Card.retired).is_(True))

        def states(*conditions: Any) -> Any:
            return (
                select(func.count())
                .where(CardState.learner_id == learner_id, *conditions)
                .scalar_subquery()
            )

        learning = states(*is_learning, col(CardState.card_id).not_in(retired))
        review = states(*is_review, col(CardState.card_id).not_in(retired))
        seen = states() - states(col(CardState.card_id).in_(retired))

    if walk:
        unseen = filters.apply(_new_cards(learner_id, bindparam("new_cursor")))
        new = (
            select(func.count())
            .select_from(unseen.limit(bindparam("new_left")).subquery())
            .scalar_subquery()
        )
    else:
        if filters.section or filters.tag:
            in_scope = filters.apply(
                select(func.count()).select_from(Card).join(Deck, col(Deck.id) == Card.deck_id)
            ).scalar_subquery()
        else:  # whole decks: the counts imports keep, instead of counting every card row
            decks = select(func.coalesce(func.sum(Deck.card_count), 0)).where(
                col(Deck.retired).is_(False)
            )
            if filters.deck:
                decks = decks.where(Deck.slug == filters.deck)
            in_scope = decks.scalar_subquery()
        new = in_scope - seen - _aside_unseen(filters, learner_id)
    return [
        learning.label(f"{prefix}learning"),
        review.label(f"{prefix}review"),
        new.label(f"{prefix}new"),
    ]


def _aside_unseen(filters: Filters, learner_id: Any) -> Any:
    """How many cards in scope the learner put aside before ever studying them."""
    seen = select(CardState.card_id).where(
        CardState.learner_id == learner_id, CardState.card_id == CardMark.card_id
    )
    return filters.apply(
        select(func.count())
        .select_from(CardMark)
        .join(Card, col(Card.id) == CardMark.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            CardMark.learner_id == learner_id,
            col(CardMark.card_id).in_(_put_aside()),
            ~seen.exists(),
        )
    ).scalar_subquery()


def _params(
    learner: Learner, now: datetime, done: dict[str, int], filters: Filters
) -> dict[str, Any]:
    _, day_end = study_day(learner, now)
    return {
        "learner_id": learner.id,
        "now": now,
        # Custom study's review ahead: the reviews of the next days are due today.
        "day_end": day_end + timedelta(days=filters.ahead),
        "ahead": now + LEARN_AHEAD,
        "new_cursor": learner.new_cursor,
        "new_left": _new_left(learner, now, done),
    }


def _shape(filters: Filters) -> Filters:
    """The filters a statement depends on (review ahead is only a parameter)."""
    return replace(filters, ahead=0) if filters.ahead else filters


@lru_cache(maxsize=64)
def _counts_statement(filters: Filters, *, walk: bool) -> Any:
    return select(*_count_columns(filters, walk=walk))


def counts(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    done: dict[str, int] | None = None,
) -> Counts:
    """What is left to study today: new (within the daily limit), learning due, reviews due."""
    done = done if done is not None else done_today(session, learner=learner, now=now)
    params = _params(learner, now, done, filters)
    statement = _counts_statement(_shape(filters), walk=params["new_left"] <= WALK_NEW_CARDS)
    return _counts(session.connection().execute(statement, params).one(), learner, now, done)


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
            col(CardState.card_id).not_in(_put_aside()),
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
    review_due = CardState.state == int(State.REVIEW)
    learning_due = and_(~review_due, col(CardState.due) <= bindparam("now"))
    review = and_(review_due, col(CardState.due) < bindparam("day_end"))
    # Nothing else to do: learning steps coming up shortly are shown early rather than waiting.
    ahead = and_(~review_due, col(CardState.due) <= bindparam("ahead"))
    unseen = filters.apply(_new_cards(bindparam("learner_id"), bindparam("new_cursor")))
    return select(
        _first_due(filters, learning_due, exclude).label("learning"),
        (_first_due(filters, review, exclude) if reviews else null()).label("review"),
        (_first(unseen, exclude) if new else null()).label("new"),
        _first_due(filters, ahead, exclude).label("ahead"),
        *_count_columns(filters, walk=walk, prefix="count_"),
        GENERATION.label("generation"),
    )


STATE_COLUMNS = (
    CardState.state,
    CardState.step,
    CardState.stability,
    CardState.difficulty,
    CardState.due,
    CardState.last_review,
    CardState.reps,
    CardState.lapses,
    CardState.version,
)


@lru_cache(maxsize=1)
def _state_statement() -> Any:
    return select(*STATE_COLUMNS).where(
        CardState.learner_id == bindparam("learner_id"), CardState.card_id == bindparam("card")
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
    seen = and_(CardState.card_id == Card.id, CardState.learner_id == bindparam("learner_id"))
    statement = (
        select(
            func.count(Card.id),
            func.count(CardState.card_id),
            func.count(case((CardState.state == int(State.REVIEW), 1))),
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
) -> tuple[NextCard | None, Counts]:
    """The card to study now (None when nothing is due) and what is left today.

    Due learning cards come first, then due reviews, then new cards in content order, then
    learning steps due shortly. `exclude`: cards the client already holds, so the one after
    them is picked; the counts include them. `pinned`: show this card if it may be studied now
    (after an undo).
    """
    done = done_today(session, learner=learner, now=now)
    params = _params(learner, now, done, filters)
    held = _held(session, learner, exclude) if exclude else {"new": 0, "review": 0}
    statement = _pick_statement(
        _shape(filters),
        reviews=done["review"] + held["review"] < learner.max_reviews_per_day,
        new=params["new_left"] > held["new"],
        walk=params["new_left"] <= WALK_NEW_CARDS,
        exclude=bool(exclude),
    )
    if exclude:
        params["exclude"] = list(exclude)
    row = session.connection().execute(statement, params).one()
    today = _counts(row, learner, now, done, prefix="count_")
    card_id = pinned if pinned and _studyable(session, learner, now, filters, pinned) else None
    # While an interview is ahead, its plan's cards for today come right after learning steps.
    planned = next_pinned(session, learner=learner, now=now, filters=filters, exclude=exclude)
    card_id = card_id or row.learning or planned or row.review or row.new or row.ahead
    if card_id is None:
        return None, today
    state = state_row(session, learner=learner, card_id=card_id) if card_id != row.new else None
    return _next(session, learner, now, card_id, state, generation=row.generation), today


def next_card(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    pinned: str | None = None,
    exclude: Sequence[str] = (),
) -> NextCard | None:
    """The card to study now, or None (see `study_next`)."""
    return study_next(
        session, learner=learner, now=now, filters=filters, pinned=pinned, exclude=exclude
    )[0]


def _next(
    session: Session,
    learner: Learner,
    now: datetime,
    card_id: str,
    state: Row[Any] | None,
    generation: int | None = None,
) -> NextCard:
    card = card_view(session, card_id, generation=generation)
    assert card is not None, card_id
    current = CardStateValue.from_row(state) if state is not None else None
    return NextCard(
        card=card,
        queue=scheduling.queue_of(current),
        state=current,
        version=state.version if state is not None else 0,
        intervals=scheduling.preview(
            current,
            now,
            desired_retention=learner.desired_retention,
            parameters=personal_parameters(learner),
            spread=spread_for(session, learner=learner, card_id=card_id, now=now),
        ),
        mark=get_mark(session, learner=learner, card_id=card_id),
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
    return state is None or aware(state.due) < max(day_end, now + LEARN_AHEAD)
