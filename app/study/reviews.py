"""Ratings and undo: the writes of the study loop, each one transaction, each idempotent."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import and_, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import BindParameter
from sqlmodel import Session, col

from app.accounts.learners import personal_parameters
from app.errors import Conflict, Invalid, NotFound
from app.infra.db import Database
from app.infra.models import Card, CardState, Learner, ReviewLog, table_of
from app.scheduling import schedule
from app.scheduling.cardstate import CardStateValue, Mode, Rating
from app.scheduling.statedoc import logged_state
from app.study.logentry import GivenRating, log_entry
from app.study.marks import leech_values, undone_leech_values, upsert_marks
from app.study.queue import STATE_COLUMNS, state_row
from app.study.spread import spread_for


@dataclass(frozen=True)
class ReviewResult:
    card_id: str
    rating: int
    state: CardStateValue
    version: int
    log_id: int
    replayed: bool = False  # answered from the first request with the same idempotency key
    leech: bool = False  # this lapse made the card a leech, or warned of it again

    @property
    def due(self) -> datetime:
        return self.state.due


@dataclass(frozen=True)
class UndoResult:
    card_id: str
    state: CardStateValue | None  # None: the card is new again
    version: int
    log_id: int


# How long before it reaches the server a rating may have been made (kept offline): the outbox
# keeps an entry no longer (static/queue.js); anything older is recorded as made now.
REVIEWED_AT_WINDOW = timedelta(days=7)


def record_review(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    card_id: str,
    rating: int,
    now: datetime,
    duration_ms: int | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    reviewed_at: datetime | None = None,
) -> ReviewResult:
    """Apply a rating and append it to the log, atomically.

    A stale `expected_version` is refused (Conflict). A repeat of an `idempotency_key` the
    learner used before is answered from the first rating's entry and records nothing more,
    also when the two arrive at once: the loser's write meets the winner's row.
    """
    if rating not in tuple(Rating):
        raise Invalid("rating_out_of_range")
    if duration_ms is not None and not 0 <= duration_ms <= 24 * 3600 * 1000:
        raise Invalid("duration_out_of_range")
    assert learner.id is not None  # a stored learner
    learner_id = learner.id
    key = {"learner_id": learner_id, "card_id": card_id}
    try:
        # One write transaction: the card's version is read under the write lock, so the
        # compare-and-set below loses only to a writer of another database (PostgreSQL).
        with database.writing(session) as connection:
            found = connection.execute(_card_statement(), key).first()
            if found is None or found.retired:
                if idempotency_key and (done := _replay(session, learner, idempotency_key)):
                    return done  # rated before its card left the bank
                raise NotFound("card_not_found", card=card_id)
            version = found.version or 0
            if expected_version is not None and expected_version != version:
                return _replayed_or_stale(session, learner, idempotency_key)
            before = CardStateValue.from_row(found) if found.version else None
            # When the learner rated it (offline, perhaps): within REVIEWED_AT_WINDOW before
            # now and never before the card's last review.
            at = now
            if reviewed_at is not None:
                at = min(max(reviewed_at, now - REVIEWED_AT_WINDOW), now)
                if before is not None and before.last_review is not None:
                    at = max(at, before.last_review)
                at = at.astimezone(UTC)
            after = schedule.review(
                before,
                rating,
                at,
                desired_retention=learner.desired_retention,
                parameters=personal_parameters(learner),
                spread=spread_for(session, learner=learner, card_id=card_id, now=now),
            )
            leech = _leech(learner, before, after)
            if leech is not None:
                connection.execute(upsert_marks(database, key, {**leech, "updated_at": now}))
            if before is None:
                # A state inserted meanwhile for the same card fails on the primary key.
                connection.execute(_insert_statement(), {**key, "version": 1, **after.columns()})
                database.lock_learner(session, learner_id)
                connection.execute(_advance_cursor(), {"cursor_learner_id": learner.id})
            else:
                expected = {"old_learner_id": learner.id, "old_card_id": card_id}
                moved = connection.execute(
                    _update_statement(),
                    {**expected, "old_version": version, "version": version + 1, **after.columns()},
                )
                if moved.rowcount != 1:
                    raise _Lost()
            given = GivenRating(learner_id, card_id, rating, at, duration_ms, idempotency_key)
            entry = log_entry(given, before=before, after=after, queue=schedule.queue_of(before))
            # A key used before fails on the log's unique index: the rating is a repeat.
            log_id: int = connection.execute(_log_statement(), entry).scalar_one()
            return ReviewResult(card_id, rating, after, version + 1, log_id, leech=bool(leech))
    except (_Lost, IntegrityError):
        # Another request changed the card first: the same rating sent twice, or a rating
        # from another tab or device.
        session.rollback()
        return _replayed_or_stale(session, learner, idempotency_key)


def _replayed_or_stale(session: Session, learner: Learner, key: str | None) -> ReviewResult:
    """The first answer to a repeated key; otherwise the card changed meanwhile (Conflict)."""
    if key and (done := _replay(session, learner, key)):
        return done
    raise Conflict("version_conflict")


def _leech(
    learner: Learner, before: CardStateValue | None, after: CardStateValue
) -> dict[str, Any] | None:
    """The marks a rating sets when its lapse makes the card a leech (see app.study.marks)."""
    if after.lapses <= (before.lapses if before else 0):
        return None
    return leech_values(learner, after.lapses)


class _Lost(Exception):
    """The compare-and-set on the card's version found it changed."""


# A rating's statements are built once and run with their parameters: building a statement,
# and its cache key, cost more than running it.
_STATE = table_of(CardState)
_LOG = table_of(ReviewLog)


@cache
def _card_statement() -> Any:
    """The card's retired flag and the learner's state of it: `learner_id`, `card_id`."""
    return (
        select(col(Card.retired), *STATE_COLUMNS)
        .select_from(Card)
        .outerjoin(
            CardState,
            and_(
                col(CardState.card_id) == Card.id,
                col(CardState.learner_id) == bindparam("learner_id"),
            ),
        )
        .where(col(Card.id) == bindparam("card_id"))
    )


@cache
def _insert_statement() -> Any:
    return insert(_STATE)


@cache
def _update_statement() -> Any:
    """Compare-and-set of a card state on `old_version`; the new columns come as parameters."""
    return update(_STATE).where(
        _STATE.c.learner_id == bindparam("old_learner_id"),
        _STATE.c.card_id == bindparam("old_card_id"),
        _STATE.c.version == bindparam("old_version"),
    )


@cache
def _log_statement() -> Any:
    return insert(_LOG).returning(_LOG.c.id)


@cache
def _replay_statement() -> Any:
    return select(
        col(ReviewLog.id),
        col(ReviewLog.card_id),
        col(ReviewLog.rating),
        col(ReviewLog.state_before),
        col(ReviewLog.state_after),
    ).where(
        col(ReviewLog.learner_id) == bindparam("learner_id"),
        col(ReviewLog.idempotency_key) == bindparam("key"),
    )


def _replay(session: Session, learner: Learner, key: str) -> ReviewResult | None:
    log = session.execute(_replay_statement(), {"learner_id": learner.id, "key": key}).first()
    if log is None:
        return None
    row = state_row(session, learner=learner, card_id=log.card_id)
    state = logged_state(log.state_after)
    before = logged_state(log.state_before) if log.state_before else None
    leech = _leech(learner, before, state) is not None
    version = row.version if row else 0
    return ReviewResult(log.card_id, log.rating, state, version, log.id, True, leech)


@cache
def _advance_cursor() -> Any:
    """Move `cursor_learner_id`'s new-card cursor to their first unseen active card from it."""
    learner_id: BindParameter[int] = bindparam("cursor_learner_id")
    learner = table_of(Learner)
    card = table_of(Card)
    seen = select(col(CardState.card_id)).where(
        col(CardState.learner_id) == learner_id, col(CardState.card_id) == card.c.id
    )
    first_unseen = (
        select(card.c.ordinal)
        .where(card.c.retired.is_(False), card.c.ordinal >= learner.c.new_cursor, ~seen.exists())
        .order_by(card.c.ordinal)
        .limit(1)
        .scalar_subquery()
    )
    # No unseen card left: past the last one, where new cards an import adds would go.
    end = select(func.coalesce(func.max(card.c.ordinal), -1) + 1).scalar_subquery()
    return (
        update(learner)
        .where(learner.c.id == learner_id)
        .values(new_cursor=func.coalesce(first_unseen, end))
    )


def undo_last(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    now: datetime,
    card_id: str | None = None,
    idempotency_key: str | None = None,
) -> UndoResult:
    """Restore the card of the learner's last live study rating to exactly its state before.

    Called again, it undoes the rating before that one. `card_id`: refuse (Conflict) unless
    that rating is of this card, as the client believes. A repeat of an `idempotency_key`
    answers with the card the first call restored, undoing nothing more.
    """
    with database.writing(session) as connection:
        if idempotency_key and (done := _undone(session, learner, idempotency_key)):
            return done
        log = session.execute(
            select(ReviewLog)
            .where(
                col(ReviewLog.learner_id) == learner.id,
                col(ReviewLog.mode) == Mode.STUDY.value,
                col(ReviewLog.undone_at).is_(None),
            )
            .order_by(col(ReviewLog.reviewed_at).desc(), col(ReviewLog.id).desc())
            .limit(1)
        ).scalar_one_or_none()
        if log is None:
            raise NotFound("nothing_to_undo")
        if card_id is not None and log.card_id != card_id:
            raise Conflict("version_conflict")
        row = state_row(session, learner=learner, card_id=log.card_id)
        version = row.version if row is not None else 0
        # Compare-and-set on the version, as in record_review: a rating of this card committed
        # meanwhile (another tab, another process) makes the undo lose instead of overwriting it.
        unchanged = (
            CardState.learner_id == learner.id,
            CardState.card_id == log.card_id,
            CardState.version == version,
        )
        before = logged_state(log.state_before) if log.state_before else None
        try:
            if before is None:
                done = (
                    connection.execute(delete(CardState).where(*unchanged)).rowcount if row else 1
                )
                # New again: the search for new cards must not start past it.
                database.lock_learner(session, learner.id)
                connection.execute(_rewind_cursor(learner.id, log.card_id))
                restored = 0
            elif row is None:
                connection.execute(
                    insert(CardState).values(
                        learner_id=learner.id, card_id=log.card_id, version=1, **before.columns()
                    )
                )
                done, restored = 1, 1
            else:
                done = connection.execute(
                    update(CardState)
                    .where(*unchanged)
                    .values(version=version + 1, **before.columns())
                ).rowcount
                restored = version + 1
            if done == 1:
                # Guarded too, so that two concurrent undos of one rating count once.
                done = connection.execute(
                    update(ReviewLog)
                    .where(col(ReviewLog.id) == log.id, col(ReviewLog.undone_at).is_(None))
                    .values(undone_at=now, undo_key=idempotency_key)
                ).rowcount
            marks = _undone_leech(learner, before, log.state_after)
            if done == 1 and marks is not None:
                key = {"learner_id": learner.id, "card_id": log.card_id}
                connection.execute(upsert_marks(database, key, marks | {"updated_at": now}))
        except IntegrityError:
            done = 0
        if done != 1:
            session.rollback()
            if idempotency_key and (replayed := _undone(session, learner, idempotency_key)):
                return replayed
            raise Conflict("version_conflict")
        result = UndoResult(log.card_id, before, restored, log.id)
        return result


def _undone_leech(
    learner: Learner, before: CardStateValue | None, after: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The leech marks to restore when undoing a rating that made the card a leech."""
    if after is None:
        return None
    lapses = before.lapses if before else 0
    return undone_leech_values(learner, lapses, logged_state(after).lapses)


def _undone(session: Session, learner: Learner, key: str) -> UndoResult | None:
    log = session.execute(
        select(col(ReviewLog.id), col(ReviewLog.card_id)).where(
            col(ReviewLog.learner_id) == learner.id, col(ReviewLog.undo_key) == key
        )
    ).first()
    if log is None:
        return None
    row = state_row(session, learner=learner, card_id=log.card_id)
    state = CardStateValue.from_row(row) if row is not None else None
    return UndoResult(log.card_id, state, row.version if row else 0, log.id)


def _rewind_cursor(learner_id: int, card_id: str) -> Any:
    """Move the learner's new-card cursor back to a card that is new again, if it is past it."""
    learner = table_of(Learner)
    ordinal = select(col(Card.ordinal)).where(col(Card.id) == card_id).scalar_subquery()
    return (
        update(learner)
        .where(learner.c.id == learner_id, learner.c.new_cursor > ordinal)
        .values(new_cursor=ordinal)
    )
