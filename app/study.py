"""The study queue, ratings and undo: queries plus scheduling, one transaction each."""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import (
    String,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal_column,
    update,
)
from sqlalchemy.engine import Result, Row
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from app import scheduling
from app.cardview import GENERATION, CardView, card_view
from app.db import Prepared, serialized_writes
from app.models import Card, CardState, Deck, Learner, ReviewLog, as_utc

LEARN_AHEAD = timedelta(minutes=20)


class StudyError(Exception):
    """A request the study functions refuse; `status` is the HTTP status it maps to."""

    status = 400


class NotFound(StudyError):
    status = 404


class Conflict(StudyError):
    status = 409


@dataclass(frozen=True)
class Filters:
    deck: str | None = None
    section: str | None = None
    tag: str | None = None

    def apply(self, query: SelectOfScalar) -> SelectOfScalar:  # type: ignore[type-arg]
        query = query.where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
        if self.deck:
            query = query.where(Deck.slug == self.deck)
        if self.section:
            query = query.where(Card.section == self.section)
        if self.tag:
            # Tags are stored as JSON text; match the serialised tag so this is portable.
            needle = (
                json.dumps(self.tag).replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_")
            )
            query = query.where(cast(Card.tags, String).like(f"%{needle}%", escape="\\"))
        return query

    @property
    def label(self) -> str:
        """The scope as people read it: deck · section · #tag."""
        tag = f"#{self.tag}" if self.tag else None
        return " · ".join(v for v in (self.deck, self.section, tag) if v)

    def as_params(self) -> dict[str, str]:
        return {
            k: v
            for k, v in (("deck", self.deck), ("section", self.section), ("tag", self.tag))
            if v
        }


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
    queue: str  # new | learning | review | relearning
    state: scheduling.StateDict | None
    version: int
    intervals: dict[int, timedelta]


def get_learner(session: Session, name: str, timezone: str = "UTC") -> Learner:
    """Return the learner called `name`, creating it on first use."""
    learner = session.exec(select(Learner).where(Learner.name == name)).first()
    if learner is None:
        learner = Learner(name=name, timezone=timezone)
        session.add(learner)
        try:
            session.commit()
        except IntegrityError:  # another process created it first
            session.rollback()
            return session.exec(select(Learner).where(Learner.name == name)).one()
        session.refresh(learner)
    return learner


def personal_parameters(learner: Learner) -> scheduling.Parameters | None:
    """The learner's fitted FSRS parameters (see app.optimize), or None for the defaults."""
    return tuple(learner.fsrs_parameters) if learner.fsrs_parameters else None


def learner_zone(learner: Learner) -> ZoneInfo:
    """The learner's time zone (UTC if the stored name is not a known zone)."""
    try:
        return ZoneInfo(learner.timezone)
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def study_day(learner: Learner, now: datetime) -> tuple[datetime, datetime]:
    """The [start, end) of the learner's current study day, which rolls over at rollover_hour."""
    local = now.astimezone(learner_zone(learner))
    start = local.replace(hour=learner.rollover_hour, minute=0, second=0, microsecond=0)
    if local < start:
        start -= timedelta(days=1)
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def state_dict(row: CardState | Row[Any] | None) -> scheduling.StateDict | None:
    """A learner's state of a card (a CardState, or a row of its columns) as FSRS takes it."""
    if row is None:
        return None
    return {
        "state": row.state,
        "step": row.step,
        "stability": row.stability,
        "difficulty": row.difficulty,
        "due": as_utc(row.due).isoformat(),
        "last_review": as_utc(row.last_review).isoformat() if row.last_review else None,
        "reps": row.reps,
        "lapses": row.lapses,
    }


def _rated_today() -> list[Any]:
    """Conditions selecting a learner's live study ratings of one study day.

    Bound parameters: `learner_id`, and the day's `start` and `end` (from `_day_params`).
    """
    return [
        ReviewLog.learner_id == bindparam("learner_id"),
        ReviewLog.mode == "study",
        col(ReviewLog.undone_at).is_(None),
        col(ReviewLog.reviewed_at) >= bindparam("start"),
        col(ReviewLog.reviewed_at) < bindparam("end"),
    ]


def _day_params(learner: Learner, now: datetime) -> dict[str, Any]:
    start, end = study_day(learner, now)
    return {"learner_id": learner.id, "start": start, "end": end}


def done_today(session: Session, *, learner: Learner, now: datetime) -> dict[str, int]:
    """Study ratings given today to new cards, and to reviews (for the daily limits).

    A card is new only until its first rating (an undone rating does not count), and a review
    rated today is not due again today, so these are also the numbers of cards; a review rated
    again out of turn (through the API) counts again, as in Anki. Counted along the
    ix_reviewlog_study_day index, without reading log rows.

    next_card and counts each query this unless given it: a request calling both passes it.
    """
    rows = _done_today_statement().rows(session.connection(), _day_params(learner, now))
    return {"new": 0, "review": 0} | dict(rows)


# The study queue's statements are built once and run with bound parameters: building a
# SQLAlchemy statement costs more than running these indexed queries. Each builder is cached
# per set of filters (a frozen dataclass), so the number of variants stays small. They run on
# the session's connection as plain rows: the ORM's per-statement work, identity map and
# flushes cost several times what SQLite spends on these queries. The reads of every study
# request are compiled once too (app.db.Prepared).


def _inline(*sql: str) -> list[Any]:
    """Constants for `in_`, written into the statement: a list of values would be an expanding
    parameter, which SQLAlchemy renders into the SQL anew on every execution."""
    return [literal_column(value) for value in sql]


def _run(session: Session, statement: Any, params: dict[str, Any]) -> Result[Any]:
    return session.connection().execute(statement, params)


@lru_cache(maxsize=1)
def _done_today_statement() -> Prepared:
    return Prepared(
        select(ReviewLog.queue, func.count())
        .where(*_rated_today(), col(ReviewLog.queue).in_(_inline("'new'", "'review'")))
        .group_by(ReviewLog.queue)
    )


@lru_cache(maxsize=1)
def _reviewed_today_statement() -> Any:
    return select(func.count()).where(*_rated_today())


def reviewed_today(session: Session, *, learner: Learner, now: datetime) -> int:
    """Study ratings given so far in the learner's current day (for the progress bar)."""
    return _run(session, _reviewed_today_statement(), _day_params(learner, now)).scalar_one()


def _states(learner: Learner) -> SelectOfScalar:  # type: ignore[type-arg]
    return (
        select(CardState)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(CardState.learner_id == learner.id)
    )


def _new_cards(learner_id: Any, cursor: Any) -> SelectOfScalar:  # type: ignore[type-arg]
    """Ids of the cards the learner has never studied, in content order, from `cursor` on."""
    seen = select(CardState.card_id).where(
        CardState.learner_id == learner_id, CardState.card_id == Card.id
    )
    return (
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.ordinal) >= cursor, ~seen.exists())
        .order_by(col(Card.ordinal))
    )


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
    _, day_end = study_day(learner, now)
    params = {
        "learner_id": learner.id,
        "ahead": now + LEARN_AHEAD,
        "day_end": day_end,
        "new_cursor": learner.new_cursor,
        "new_left": _new_left(learner, done),
    }
    statement = _counts_statement(filters, walk=params["new_left"] <= WALK_NEW_CARDS)
    return _counts(_run(session, statement, params).one(), learner, done)


# Up to this many new cards left for the day, they are counted by walking the unseen cards from
# the learner's cursor; beyond, as the cards in scope minus the learner's card states.
WALK_NEW_CARDS = 200


def _new_left(learner: Learner, done: dict[str, int]) -> int:
    return max(learner.new_per_day - done["new"], 0)


def _counts(row: Row[Any], learner: Learner, done: dict[str, int]) -> Counts:
    """Counts from a row with the columns of `_count_columns`, within the daily limits."""
    review_left = max(learner.max_reviews_per_day - done["review"], 0)
    return Counts(
        new=min(row.new, _new_left(learner, done)),
        learning=row.learning,
        review=min(row.review, review_left),
    )


@lru_cache(maxsize=64)
def _counts_statement(filters: Filters, *, walk: bool) -> Any:
    return select(*_count_columns(filters, walk=walk))


def _count_columns(filters: Filters, *, walk: bool) -> list[Any]:
    """learning, review and new as scalar subqueries (parameters: see `counts`).

    `walk`: new cards counted by walking the unseen ones from the learner's cursor, at most
    `new_left` of them, which costs little when few are wanted (20 a day by default) however
    long the learner's history; otherwise as the cards in scope minus those with a state,
    which counts every state of the learner but never walks the bank.
    """
    learner_id = bindparam("learner_id")
    # State 1 is learning, 3 relearning: two ranges of ix_cardstate_learner_state_due.
    is_learning = (
        col(CardState.state).in_(_inline("1", "3")),
        col(CardState.due) <= bindparam("ahead"),
    )
    is_review = (CardState.state == 2, col(CardState.due) < bindparam("day_end"))
    if filters.deck or filters.section or filters.tag:

        def states(*conditions: Any) -> Any:
            return filters.apply(
                select(func.count())  # type: ignore[arg-type]
                .select_from(CardState)
                .join(Card, col(Card.id) == CardState.card_id)
                .join(Deck, col(Deck.id) == Card.deck_id)
                .where(CardState.learner_id == learner_id, *conditions)
            ).scalar_subquery()

        learning, review = states(*is_learning), states(*is_review)

        def seen() -> Any:
            return states()

    else:
        # The whole bank: counted in the learner's indexes alone, leaving out the states of
        # retired cards (few) by id instead of reading each card. Imports retire a retired
        # deck's cards with it.
        retired = select(Card.id).where(col(Card.retired).is_(True))

        def states(*conditions: Any) -> Any:
            return (
                select(func.count())
                .where(CardState.learner_id == learner_id, *conditions)
                .scalar_subquery()
            )

        learning = states(*is_learning, col(CardState.card_id).not_in(retired))
        review = states(*is_review, col(CardState.card_id).not_in(retired))

        def seen() -> Any:
            return states() - states(col(CardState.card_id).in_(retired))

    if walk:
        unseen = filters.apply(_new_cards(learner_id, bindparam("new_cursor")))
        new = (
            select(func.count())
            .select_from(unseen.limit(bindparam("new_left")).subquery())
            .scalar_subquery()
        )
        return [learning.label("learning"), review.label("review"), new.label("new")]
    if filters.section or filters.tag:
        in_scope = filters.apply(
            select(func.count()).select_from(Card).join(Deck, col(Deck.id) == Card.deck_id)  # type: ignore[arg-type]
        ).scalar_subquery()
    else:  # whole decks: the counts imports keep, instead of counting every card row
        decks = select(func.coalesce(func.sum(Deck.card_count), 0)).where(
            col(Deck.retired).is_(False)
        )
        if filters.deck:
            decks = decks.where(Deck.slug == filters.deck)
        in_scope = decks.scalar_subquery()
    # New cards are those in scope minus those with a state, so no anti-join walks the whole
    # bank however many new cards remain.
    return [learning.label("learning"), review.label("review"), (in_scope - seen()).label("new")]


def next_card(
    session: Session,
    *,
    learner: Learner,
    now: datetime,
    filters: Filters,
    pinned: str | None = None,
    done: dict[str, int] | None = None,
) -> NextCard | None:
    """The card to study now: due learning cards, then due reviews, then new cards in order."""
    row = _pinned(session, learner, now, filters, pinned) if pinned else None
    if row is None:
        picked = _pick(session, learner, now, filters, done)
        row = picked and picked[:2]
    if row is None:
        return None
    return _next(session, learner, now, *row)


def next_with_counts(
    session: Session, *, learner: Learner, now: datetime, filters: Filters
) -> tuple[NextCard, Counts] | None:
    """`next_card` and `counts` (None when nothing is due), queried in fewer statements.

    For the study API, called for every card: the counts and the bank's generation (for the
    card's view) come in the statement that picks the card.
    """
    done = done_today(session, learner=learner, now=now)
    picked = _pick(session, learner, now, filters, done, counted=True)
    if picked is None:
        return None
    card_id, state, row = picked
    current = _next(session, learner, now, card_id, state, generation=row.generation)
    return current, _counts(row, learner, done)


def _next(
    session: Session,
    learner: Learner,
    now: datetime,
    card_id: str,
    state: Row[Any] | None,
    generation: int | None = None,
) -> NextCard:
    card = card_view(session, card_id, generation=generation)
    assert card is not None
    current = state_dict(state)
    return NextCard(
        card=card,
        queue=scheduling.queue_of(current),
        state=current,
        version=state.version if state else 0,
        intervals=scheduling.preview(
            current,
            now,
            desired_retention=learner.desired_retention,
            parameters=personal_parameters(learner),
        ),
    )


def _pinned(
    session: Session, learner: Learner, now: datetime, filters: Filters, card_id: str
) -> tuple[str, Row[Any] | None] | None:
    """Show `card_id` again (after an undo) if it is studyable right now."""
    found = _card_and_state(session, learner, card_id)
    if found is None or found.retired:
        return None
    state = found if found.state is not None else None
    _, day_end = study_day(learner, now)
    if state is not None and as_utc(state.due) >= max(day_end, now + LEARN_AHEAD):
        return None
    return card_id, state


def _pick(
    session: Session,
    learner: Learner,
    now: datetime,
    filters: Filters,
    done: dict[str, int] | None,
    *,
    counted: bool = False,
) -> tuple[str, Row[Any] | None, Row[Any]] | None:
    """(card id, its state or None if new, the statement's row) of the card to study now.

    `counted`: the row also has the columns of `_count_columns` and the bank's generation.
    """
    _, day_end = study_day(learner, now)
    done = done if done is not None else done_today(session, learner=learner, now=now)
    new_left = _new_left(learner, done)
    statement = _pick_statement(
        filters,
        reviews=done["review"] < learner.max_reviews_per_day,
        new=new_left > 0,
        counted=counted,
        walk=counted and new_left <= WALK_NEW_CARDS,
    )
    params = {
        "learner_id": learner.id,
        "now": now,
        "day_end": day_end,
        "ahead": now + LEARN_AHEAD,
        "new_cursor": learner.new_cursor,
        "new_left": new_left,
    }
    row = statement.one(session.connection(), params)
    if row.tagged is None:
        return None
    priority, card_id = int(row.tagged[0]), row.tagged[1:]
    if priority == 2:  # a new card: no state yet
        return card_id, None, row
    params = {"learner_id": learner.id, "card_id": card_id}
    return card_id, _state_statement().first(session.connection(), params), row


_STATE_COLUMNS = (
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
def _state_statement() -> Prepared:
    return Prepared(
        select(*_STATE_COLUMNS).where(  # type: ignore[call-overload]
            CardState.learner_id == bindparam("learner_id"),
            CardState.card_id == bindparam("card_id"),
        )
    )


@lru_cache(maxsize=1)
def _card_and_state_statement() -> Prepared:
    # The card's flag, not its row: a card row carries kilobytes of rendered HTML.
    return Prepared(
        select(Card.retired, *_STATE_COLUMNS)  # type: ignore[call-overload]
        .select_from(Card)
        .outerjoin(
            CardState,
            and_(
                col(CardState.card_id) == Card.id,
                col(CardState.learner_id) == bindparam("learner_id"),
            ),
        )
        .where(Card.id == bindparam("card_id"))
    )


def _card_and_state(session: Session, learner: Learner, card_id: str) -> Row[Any] | None:
    """The card's retired flag with the learner's state of it (None columns if unseen)."""
    params = {"learner_id": learner.id, "card_id": card_id}
    return _card_and_state_statement().first(session.connection(), params)


@lru_cache(maxsize=64)
def _pick_statement(
    filters: Filters, *, reviews: bool, new: bool, counted: bool, walk: bool = False
) -> Prepared:
    """One round trip: the first card of the first queue that has one, tagged with its queue.

    COALESCE evaluates its arguments in order and stops at the first that is not NULL, on
    SQLite as on PostgreSQL: the later queues are not looked at once an earlier one has a card
    (a UNION of the four, ordered, evaluated them all). Each value is the queue's priority
    digit followed by the card id.
    """
    due_learning = and_(col(CardState.state) != 2, col(CardState.due) <= bindparam("now"))
    candidates = [_first_due(filters, due_learning, priority=0)]
    if reviews:
        due_review = and_(CardState.state == 2, col(CardState.due) < bindparam("day_end"))
        candidates.append(_first_due(filters, due_review, priority=1))
    if new:
        new_cards = _new_cards(bindparam("learner_id"), bindparam("new_cursor"))
        candidates.append(_tagged(filters.apply(new_cards), priority=2))
    # Nothing else to do: learning steps coming up shortly are shown early rather than waiting.
    ahead = and_(col(CardState.state) != 2, col(CardState.due) <= bindparam("ahead"))
    candidates.append(_first_due(filters, ahead, priority=3))
    tagged = func.coalesce(*candidates).label("tagged")
    if counted:
        counts = _count_columns(filters, walk=walk)
        return Prepared(select(tagged, *counts, GENERATION.label("generation")))
    return Prepared(select(tagged))


def _tagged(query: Any, *, priority: int) -> Any:
    """The first card id of `query`, prefixed with the priority digit, as a scalar subquery."""
    tag = literal_column(f"'{priority}'", String)
    return query.with_only_columns(tag.concat(Card.id)).limit(1).scalar_subquery()


def _first_due(filters: Filters, condition: Any, *, priority: int) -> Any:
    """The learner's earliest-due card meeting `condition` (see `_tagged`)."""
    due = filters.apply(
        select(Card.id)
        .select_from(CardState)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(CardState.learner_id == bindparam("learner_id"), condition)
    ).order_by(col(CardState.due))
    return _tagged(due, priority=priority)


def next_due(session: Session, *, learner: Learner, filters: Filters) -> datetime | None:
    """When the next scheduled card falls due (for the 'done for today' page)."""
    due = session.exec(
        filters.apply(_states(learner).with_only_columns(func.min(CardState.due)))
    ).one()
    return as_utc(due) if due else None


@dataclass(frozen=True)
class ReviewResult:
    card_id: str
    rating: int
    state: scheduling.StateDict
    due: datetime
    version: int
    log_id: int


_RELOAD = "reload to see its current state"


def record_review(
    session: Session,
    *,
    learner: Learner,
    card_id: str,
    rating: int,
    now: datetime,
    duration_ms: int | None = None,
    expected_version: int | None = None,
) -> ReviewResult:
    """Apply a rating and append it to the log, atomically; refuse stale or repeated submissions."""
    if rating not in scheduling.RATINGS:
        raise StudyError("rating must be 1, 2, 3 or 4")
    if duration_ms is not None and not 0 <= duration_ms <= 24 * 3600 * 1000:
        raise StudyError("duration_ms must be between 0 and 86400000")
    with serialized_writes(session):
        found = _card_and_state(session, learner, card_id)
        if found is None or found.retired:
            raise NotFound(f"no card '{card_id}' to study")
        row = found if found.state is not None else None
        current_version = row.version if row else 0
        if expected_version is not None and expected_version != current_version:
            raise Conflict(f"this card was rated or changed meanwhile; {_RELOAD}")
        before = state_dict(row)
        after = scheduling.review(
            before,
            rating,
            now,
            desired_retention=learner.desired_retention,
            parameters=personal_parameters(learner),
        )
        values = _state_values(after)
        key = {"learner_id": learner.id, "card_id": card_id}
        connection = session.connection()
        try:
            if row is None:
                _insert_state().write(connection, {**key, "version": 1, **values})
                _lock_learner(session, learner)
                _advance_cursor().write(connection, {"learner_id": learner.id})
            else:
                # Compare-and-set on the version: a concurrent submission of the same rating loses.
                where = {
                    "b_learner_id": learner.id,
                    "b_card_id": card_id,
                    "b_version": current_version,
                }
                changes = {**values, "version": current_version + 1}
                moved = _update_state().write(connection, where | changes)
                if moved.rowcount != 1:
                    raise Conflict(f"this card was rated meanwhile; {_RELOAD}")
        except IntegrityError as exc:
            session.rollback()
            raise Conflict(f"this card was rated meanwhile; {_RELOAD}") from exc
        logged = _insert_log().write(
            connection,
            {
                **key,
                "rating": rating,
                "mode": "study",
                "queue": scheduling.queue_of(before),
                "practice_id": None,
                "reviewed_at": now,
                "duration_ms": duration_ms,
                "state_before": before,
                "state_after": after,
                "undone_at": None,
            },
        )
        log_id = logged.key
        session.commit()
        due = datetime.fromisoformat(after["due"])
        return ReviewResult(card_id, rating, after, due, current_version + 1, log_id)


def _lock_learner(session: Session, learner: Learner) -> None:
    """PostgreSQL: ratings and undos of one learner take turns on its new-card cursor.

    The statement that then moves the cursor sees every state committed before it (READ
    COMMITTED takes a snapshot per statement). NO KEY UPDATE, the lock the cursor's UPDATE
    takes: a plain FOR UPDATE also waits for the key-share lock that inserting a row referring
    to the learner takes, and two first ratings at once deadlocked. SQLite has one writer at a
    time: nothing to do.
    """
    if session.get_bind().dialect.name != "sqlite":
        _run(session, _lock_learner_statement(), {"learner_id": learner.id})


@lru_cache(maxsize=1)
def _lock_learner_statement() -> Any:
    learner = col(Learner.id)
    # key_share: FOR NO KEY UPDATE.
    return select(learner).where(learner == bindparam("learner_id")).with_for_update(key_share=True)


@lru_cache(maxsize=1)
def _advance_cursor() -> Prepared:
    """Move the learner's new-card cursor to their first unseen active card at or after it."""
    learner = Learner.__table__  # type: ignore[attr-defined]
    card = Card.__table__  # type: ignore[attr-defined]
    seen = select(CardState.card_id).where(
        CardState.learner_id == bindparam("learner_id"), CardState.card_id == card.c.id
    )
    first_unseen = (
        select(card.c.ordinal)
        .where(card.c.retired.is_(False), card.c.ordinal >= learner.c.new_cursor, ~seen.exists())
        .order_by(card.c.ordinal)
        .limit(1)
        .scalar_subquery()
    )
    # No unseen card left: past the last one, where new cards an import adds would go (and
    # an import resets every cursor anyway).
    end = select(func.coalesce(func.max(card.c.ordinal), -1) + 1).scalar_subquery()
    return Prepared(
        update(learner)
        .where(learner.c.id == bindparam("learner_id"))
        .values(new_cursor=func.coalesce(first_unseen, end))
    )


@lru_cache(maxsize=1)
def _rewind_cursor() -> Any:
    """Move the learner's new-card cursor back to a card that is new again, if it is past it."""
    learner = Learner.__table__  # type: ignore[attr-defined]
    ordinal = select(Card.ordinal).where(col(Card.id) == bindparam("card_id")).scalar_subquery()
    return (
        update(learner)
        .where(learner.c.id == bindparam("learner_id"), learner.c.new_cursor > ordinal)
        .values(new_cursor=ordinal)
    )


def _binds(table: Any, names: Iterable[str]) -> dict[str, Any]:
    """A bound parameter of each named column's own name and type (for app.db.Prepared)."""
    return {name: bindparam(name, type_=table.c[name].type) for name in names}


# A rating's writes run back to back, their parameters converted just before each: on SQLite
# they hold the database's write lock from the first to the commit, and a shorter hold makes
# the other server processes' ratings wait less (app.db.Prepared, app.web.threads.run_write).
@lru_cache(maxsize=1)
def _insert_state() -> Prepared:
    table = CardState.__table__  # type: ignore[attr-defined]
    return Prepared(insert(table).values(_binds(table, [c.key for c in table.c])))


@lru_cache(maxsize=1)
def _update_state() -> Prepared:
    # The WHERE parameters are prefixed: the columns' own names are the SET clause's.
    table = CardState.__table__  # type: ignore[attr-defined]
    return Prepared(
        update(table)
        .where(
            table.c.learner_id == bindparam("b_learner_id"),
            table.c.card_id == bindparam("b_card_id"),
            table.c.version == bindparam("b_version"),
        )
        .values(_binds(table, (*_STATE_FIELDS, "version")))
    )


@lru_cache(maxsize=1)
def _insert_log() -> Prepared:
    table = ReviewLog.__table__  # type: ignore[attr-defined]
    return Prepared(insert(table).values(_binds(table, [c.key for c in table.c if c.key != "id"])))


_STATE_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")


def _state_values(state: scheduling.StateDict) -> dict[str, object]:
    return {
        "state": state["state"],
        "step": state["step"],
        "stability": state["stability"],
        "difficulty": state["difficulty"],
        "due": datetime.fromisoformat(state["due"]),
        "last_review": datetime.fromisoformat(state["last_review"])
        if state["last_review"]
        else None,
        "reps": state["reps"],
        "lapses": state["lapses"],
    }


def undo_last(session: Session, *, learner: Learner, now: datetime) -> ReviewLog:
    """Restore the card of the learner's last study rating to exactly its state before it."""
    with serialized_writes(session):
        log = session.exec(
            select(ReviewLog)
            .where(
                ReviewLog.learner_id == learner.id,
                ReviewLog.mode == "study",
                col(ReviewLog.undone_at).is_(None),
            )
            .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc())
            .limit(1)
        ).first()
        if log is None:
            raise NotFound("there is no rating to undo")
        row = session.get(CardState, (learner.id, log.card_id))
        # Compare-and-set on the version, as in record_review: a rating of this card committed
        # meanwhile (another tab, another process) makes the undo lose instead of overwriting it.
        unchanged = (
            col(CardState.learner_id) == learner.id,
            col(CardState.card_id) == log.card_id,
            col(CardState.version) == (row.version if row else 0),
        )
        try:
            if log.state_before is None:
                done = session.exec(delete(CardState).where(*unchanged)).rowcount if row else 1
                # New again: the search for new cards must not start past it.
                _lock_learner(session, learner)
                _run(session, _rewind_cursor(), {"learner_id": learner.id, "card_id": log.card_id})
            elif row is None:
                session.add(
                    CardState(
                        learner_id=learner.id,
                        card_id=log.card_id,
                        version=1,
                        **_state_values(log.state_before),
                    )
                )
                session.flush()
                done = 1
            else:
                done = session.exec(
                    update(CardState)
                    .where(*unchanged)
                    .values(version=row.version + 1, **_state_values(log.state_before))
                ).rowcount
            if done == 1:
                # Guarded too, so that two concurrent undos of one rating count once.
                done = session.exec(
                    update(ReviewLog)
                    .where(col(ReviewLog.id) == log.id, col(ReviewLog.undone_at).is_(None))
                    .values(undone_at=now)
                ).rowcount
        except IntegrityError:
            done = 0
        if done != 1:
            session.rollback()
            raise Conflict(
                "this card was rated or changed meanwhile; reload to see its current state"
            )
        session.commit()
        return log


def card_state(session: Session, *, learner: Learner, card_id: str) -> CardState | None:
    return session.get(CardState, (learner.id, card_id))
