"""Practice mode: quiz yourself on any selection; ratings are logged but never move the schedule."""

import random
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from app.errors import Invalid, NotFound
from app.infra.db import Database
from app.infra.models import Card, Learner, PracticeSession, ReviewLog
from app.infra.owned import owned
from app.scheduling.cardstate import Rating
from app.study import Filters
from app.study import card_state as _card_state
from app.study.logentry import GivenRating, practice_entry
from app.study.selection import scope_card_ids

MAX_SECONDS = 60 * 60


def start_practice(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    filters: Filters,
    order: str,
    seconds_per_card: int,
    now: datetime,
    card_ids: list[str] | None = None,
    seed: int | None = None,
) -> PracticeSession:
    """Start a practice run over the filtered (or given) cards, in content or random order.

    Cards the learner suspended or buried are left out.
    """
    if order not in ("content", "random"):
        raise Invalid("practice_order_invalid")
    if not 0 <= seconds_per_card <= MAX_SECONDS:
        raise Invalid("practice_seconds_out_of_range", max=MAX_SECONDS)
    ids = scope_card_ids(session, filters=filters, learner=learner, now=now)
    if card_ids is not None:
        wanted = set(card_ids)
        ids = [card_id for card_id in ids if card_id in wanted]
    if not ids:
        raise NotFound("practice_empty")
    if order == "random":
        random.Random(seed).shuffle(ids)
    assert learner.id is not None  # a stored learner
    run = PracticeSession(
        learner_id=learner.id,
        card_ids=ids,
        seconds_per_card=seconds_per_card,
        label=filters.label,
        started_at=now,
    )
    with database.writing(session):
        session.add(run)
    session.refresh(run)
    return run


def get_practice(session: Session, *, learner: Learner, practice_id: int) -> PracticeSession:
    return owned(session, PracticeSession, practice_id, learner=learner, code="practice_not_found")


def current_card(session: Session, run: PracticeSession) -> Card | None:
    if run.position >= len(run.card_ids):
        return None
    return session.get(Card, run.card_ids[run.position])


def rate_practice(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    run: PracticeSession,
    card_id: str,
    rating: int,
    now: datetime,
    duration_ms: int | None = None,
) -> None:
    """Log a self-rating for the current card and move on; the FSRS schedule is untouched."""
    if rating not in tuple(Rating):
        raise Invalid("rating_out_of_range")
    if card_id in run.card_ids[: run.position]:
        return  # a repeated submission (double click, back button): its rating is logged already
    if run.finished_at is not None or run.position >= len(run.card_ids):
        raise Invalid("practice_finished")
    if run.card_ids[run.position] != card_id:
        raise Invalid("practice_not_current")
    position, finished = run.position, run.position + 1 >= len(run.card_ids)
    with database.writing(session) as connection:
        current = _card_state(session, learner=learner, card_id=card_id)
        # Compare-and-set on the position: of a double submit arriving at once, one moves on.
        moved = connection.execute(
            update(PracticeSession)
            .where(col(PracticeSession.id) == run.id, col(PracticeSession.position) == position)
            .values(position=position + 1, **({"finished_at": now} if finished else {}))
        )
        if moved.rowcount != 1:
            return  # the other submission logged the rating
        assert learner.id is not None  # a stored learner
        given = GivenRating(learner.id, card_id, rating, now, duration_ms)
        connection.execute(insert(ReviewLog).values(practice_entry(given, current, run.id)))


@dataclass(frozen=True)
class PracticeSummary:
    run: PracticeSession
    rated: int
    by_rating: dict[int, int]
    missed: list[Card]  # rated Again
    shaky: list[Card]  # rated Hard


def summary(session: Session, run: PracticeSession) -> PracticeSummary:
    logs = session.exec(
        select(ReviewLog).where(ReviewLog.practice_id == run.id).order_by(col(ReviewLog.id))
    ).all()
    by_rating = dict.fromkeys(map(int, Rating), 0)
    for log in logs:
        by_rating[log.rating] += 1

    def cards(rating: int) -> list[Card]:
        return [
            card for log in logs if log.rating == rating if (card := session.get(Card, log.card_id))
        ]

    return PracticeSummary(run, len(logs), by_rating, cards(1), cards(2))
