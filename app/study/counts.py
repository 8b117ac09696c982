"""What is left to study today: new cards within the daily limit, learning and reviews due."""

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, bindparam, func, literal_column
from sqlmodel import Session, col, select

from app.accounts.learners import new_limit
from app.infra.models import Card, CardMark, CardState, Deck, Learner, SeenCount
from app.scheduling.cardstate import State
from app.scheduling.studyday import study_day
from app.study.filters import Filters, in_folder
from app.study.marks import held_cards
from app.study.today import done_today

# Learning steps due this soon are shown early when nothing else is left.
LEARN_AHEAD = timedelta(minutes=20)
# Up to this many new cards left for the day, they are counted by walking the unseen cards from
# the learner's cursor; beyond, as the cards in scope minus those the learner has studied.
WALK_NEW_CARDS = 200


@dataclass(frozen=True)
class Counts:
    new: int
    learning: int
    review: int

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review


def _inline(*sql: str) -> list[Any]:
    """Constants for `in_`, written into the statement rather than expanded per execution."""
    return [literal_column(value) for value in sql]


def put_aside() -> Any:
    """The learner's suspended and buried cards, for the statements' `learner_id` and `now`."""
    return held_cards(bindparam("learner_id"), bindparam("now"))


def not_put_aside(card_id: Any) -> Any:
    """`card_id` is not suspended or buried by the learner (the statements' `learner_id`, `now`).

    One look-up along card_mark's primary key per row: `NOT IN` the learner's held cards costs
    the same alone, but SQLite evaluates it far slower in a statement with several of them.
    """
    return ~put_aside().where(col(CardMark.card_id) == card_id).exists()


def new_cards_query(learner_id: Any, cursor: Any) -> Any:
    """Ids of the cards the learner has never studied and not put aside, in content order."""
    seen = select(CardState.card_id).where(
        CardState.learner_id == learner_id, CardState.card_id == Card.id
    )
    return (
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.ordinal) >= cursor, ~seen.exists(), not_put_aside(Card.id))
        .order_by(col(Card.ordinal))
    )


def _new_left(learner: Learner, now: datetime, done: dict[str, int]) -> int:
    return max(new_limit(learner, now) - done["new"], 0)


def limited_counts(
    row: Any, learner: Learner, now: datetime, done: dict[str, int], prefix: str = ""
) -> Counts:
    """Counts from a row with the columns of `count_columns`, within the daily limits."""
    review_left = max(learner.max_reviews_per_day - done["review"], 0)
    return Counts(
        new=min(getattr(row, prefix + "new"), _new_left(learner, now, done)),
        learning=getattr(row, prefix + "learning"),
        review=min(getattr(row, prefix + "review"), review_left),
    )


def count_columns(filters: Filters, *, walk: bool, prefix: str = "") -> list[Any]:
    """learning, review and new as scalar subqueries.

    `walk`: new cards counted by walking the unseen ones from the learner's cursor, at most
    `new_left` of them, which costs little when few are wanted however long the learner's
    history; otherwise as the cards in scope minus those with a state, read from the per-deck
    counts for whole decks, so that neither the bank nor the learner's history is walked.
    """
    learner_id: BindParameter[int] = bindparam("learner_id")
    # Learning and relearning: two ranges of ix_cardstate_learner_state_due.
    active = not_put_aside(CardState.card_id)
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

        learning, review = states(*is_learning), states(*is_review)
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

    if walk:
        unseen = filters.apply(new_cards_query(learner_id, bindparam("new_cursor")))
        new = (
            select(func.count())
            .select_from(unseen.limit(bindparam("new_left")).subquery())
            .scalar_subquery()
        )
    elif filters.section or filters.tag:
        in_scope = filters.apply(
            select(func.count()).select_from(Card).join(Deck, col(Deck.id) == Card.deck_id)
        ).scalar_subquery()
        new = in_scope - states() - _aside_unseen(filters, learner_id)
    else:
        # Whole decks: the counts that imports and the database keep per deck (a deck's active
        # cards, and how many of them the learner has studied), not a count of every card.
        in_scope = _in_decks(filters, select(func.coalesce(func.sum(Deck.card_count), 0)))
        seen = _in_decks(
            filters,
            select(func.coalesce(func.sum(SeenCount.seen), 0))
            .select_from(SeenCount)
            .join(Deck, col(Deck.id) == SeenCount.deck_id)
            .where(SeenCount.learner_id == learner_id),
        )
        new = in_scope - seen - _aside_unseen(filters, learner_id)
    return [
        learning.label(f"{prefix}learning"),
        review.label(f"{prefix}review"),
        new.label(f"{prefix}new"),
    ]


def _in_decks(filters: Filters, query: Any) -> Any:
    """`query` over Deck limited to the active decks of a deck or folder scope, as a scalar."""
    query = query.where(col(Deck.retired).is_(False))
    if filters.deck:
        query = query.where(Deck.slug == filters.deck)
    if filters.folder:
        query = query.where(in_folder(filters.folder))
    return query.scalar_subquery()


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
            col(CardMark.card_id).in_(put_aside()),
            ~seen.exists(),
        )
    ).scalar_subquery()


def queue_params(
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


def statement_shape(filters: Filters) -> Filters:
    """The filters a statement depends on (review ahead is only a parameter)."""
    return replace(filters, ahead=0) if filters.ahead else filters


@lru_cache(maxsize=64)
def _counts_statement(filters: Filters, *, walk: bool) -> Any:
    return select(*count_columns(filters, walk=walk))


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
    params = queue_params(learner, now, done, filters)
    statement = _counts_statement(
        statement_shape(filters), walk=params["new_left"] <= WALK_NEW_CARDS
    )
    return limited_counts(session.connection().execute(statement, params).one(), learner, now, done)
