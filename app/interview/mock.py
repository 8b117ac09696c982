"""Mock interviews: questions against the clock, follow-ups pressed, a checklist per answer.

Ratings follow practice mode's rule (logged, the schedule untouched) unless the learner counts
an answer as a review, which rates it through the study loop.
"""

import random
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.accounts.learners import personal_parameters
from app.errors import Conflict, Invalid
from app.infra.db import Database
from app.infra.models import CardState, Learner, MockAnswer, MockSession, ReviewLog
from app.infra.owned import owned
from app.interview.keypoints import card_points, points_key, suggested_rating
from app.scheduling import schedule
from app.scheduling.cardstate import CardStateValue, Rating
from app.study import Filters, card_state
from app.study.cardview import CardView, card_view
from app.study.logentry import GivenRating, practice_entry
from app.study.selection import scope_card_ids
from app.study.service import Study

ORDERS = ("random", "weakest")
MAX_QUESTIONS = 50
MAX_SECONDS = 30 * 60
MAX_MS = 24 * 3600 * 1000
# Mock interviews a learner may have begun and not finished: each holds up to MAX_QUESTIONS
# questions, and their recordings, so a learner ends one before beginning more.
MAX_UNFINISHED = 5


class TooManyOpen(Conflict):
    """The learner keeps as many unfinished mock interviews as allowed."""


class PointsChanged(Conflict):
    """The card's key points changed (an import) between showing the checklist and ticking it."""


def _weakness(
    session: Session, learner: Learner, ids: list[str], now: datetime
) -> dict[str, float]:
    """Each card's predicted recall now (0 for a card never studied)."""
    rows = session.exec(
        select(CardState).where(CardState.learner_id == learner.id, col(CardState.card_id).in_(ids))
    )
    parameters = personal_parameters(learner)
    found = {
        row.card_id: schedule.retrievability(
            CardStateValue.from_row(row), now, parameters=parameters
        )
        or 0.0
        for row in rows
    }
    return {card_id: found.get(card_id, 0.0) for card_id in ids}


def start_mock(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    filters: Filters,
    count: int,
    order: str,
    seconds_per_question: int,
    followup_seconds: int,
    now: datetime,
    seed: int | None = None,
) -> MockSession:
    """Start a mock interview of `count` questions from the scope, at random or weakest first."""
    if order not in ORDERS:
        raise Invalid("mock_order_invalid")
    if not 1 <= count <= MAX_QUESTIONS:
        raise Invalid("mock_question_count", max=MAX_QUESTIONS)
    for seconds in (seconds_per_question, followup_seconds):
        if not 10 <= seconds <= MAX_SECONDS:
            raise Invalid("mock_seconds_out_of_range", max=MAX_SECONDS)
    ids = scope_card_ids(
        session, filters=filters, learner=learner, now=now, skip_held=False, spoken_only=True
    )
    if not ids:
        raise Invalid("scope_empty", scope=filters.label or "—")
    random.Random(seed).shuffle(ids)
    if order == "weakest":
        recall = _weakness(session, learner, ids, now)
        ids.sort(key=lambda card_id: recall[card_id])  # stable: ties stay shuffled
    run = MockSession(
        learner_id=learner.id,  # type: ignore[arg-type]
        card_ids=ids[:count],
        seconds_per_question=seconds_per_question,
        followup_seconds=followup_seconds,
        order=order,
        label=filters.label,
        started_at=now,
    )
    with database.writing(session):
        # Held to the commit: two starts at once, in any worker, count one another.
        database.lock_learner(session, learner.id)  # type: ignore[arg-type]
        if len(unfinished(session, learner=learner)) >= MAX_UNFINISHED:
            raise TooManyOpen("too_many_open_mocks", key="limits.mocks_open", count=MAX_UNFINISHED)
        session.add(run)
    session.refresh(run)
    return run


def unfinished(session: Session, *, learner: Learner) -> list[MockSession]:
    """The learner's mock interviews begun and not finished, the oldest first."""
    return list(
        session.exec(
            select(MockSession)
            .where(MockSession.learner_id == learner.id, col(MockSession.finished_at).is_(None))
            .order_by(col(MockSession.id))
        )
    )


def end_mock(
    session: Session, *, database: Database, run: MockSession, now: datetime
) -> MockSession:
    """End a mock interview now; the questions not answered stay unanswered."""
    if run.finished_at is None:
        with database.writing(session):
            run.finished_at = now
            session.add(run)
        session.refresh(run)
    return run


def get_mock(session: Session, *, learner: Learner, mock_id: int) -> MockSession:
    return owned(session, MockSession, mock_id, learner=learner, code="mock_not_found")


@dataclass(frozen=True)
class Question:
    card: CardView
    position: int
    points: list[str]

    @property
    def key(self) -> str:
        return points_key(self.points)


def _answered(session: Session, run: MockSession) -> set[str]:
    return set(session.exec(select(MockAnswer.card_id).where(MockAnswer.mock_id == run.id)))


def _ask(session: Session, run: MockSession, position: int) -> Question | None:
    card_id = run.card_ids[position]
    view = card_view(session, card_id)
    if view is None:
        return None
    return Question(view, position, card_points(session, [card_id]).get(card_id, []))


def questions(session: Session, run: MockSession) -> list[Question]:
    """The questions not answered yet, in order; cards deleted since the session began are out."""
    done = _answered(session, run)
    found = (
        _ask(session, run, position)
        for position, card_id in enumerate(run.card_ids)
        if card_id not in done
    )
    return [q for q in found if q is not None]


def question(session: Session, run: MockSession) -> Question | None:
    """The question the session is at, its first one not answered; None when it is over."""
    done = _answered(session, run)
    while run.position < len(run.card_ids):
        if run.card_ids[run.position] not in done and (q := _ask(session, run, run.position)):
            return q
        run.position += 1
    return None


def asked(session: Session, run: MockSession, card_id: str) -> Question | None:
    """The question of `card_id` if the session asks it and it is not answered yet."""
    if card_id not in run.card_ids or card_id in _answered(session, run):
        return None
    return _ask(session, run, run.card_ids.index(card_id))


def _done(session: Session, run: MockSession, card_id: str) -> MockAnswer | None:
    return session.exec(
        select(MockAnswer).where(MockAnswer.mock_id == run.id, MockAnswer.card_id == card_id)
    ).first()


@dataclass(frozen=True)
class Answered:
    answer: MockAnswer
    finished: bool
    replayed: bool = False  # a repeat: the first answer, nothing recorded again


@dataclass(frozen=True)
class Reply:
    """What the learner sent for one question of a mock interview."""

    card_id: str
    said: list[int]  # the key points ticked, by index
    key: str  # the key points' version the checklist showed
    followups_answered: int
    answer_ms: int
    total_ms: int
    rating: int | None  # None: the one the coverage suggests
    count_as_review: bool


def answer(
    study: Study, run: MockSession, reply: Reply, idempotency_key: str | None = None
) -> Answered:
    """Record how a question went, in one write transaction with its rating.

    A counted answer rates the card through the study loop (`Study.rate`, which refreshes the
    day's pins); an uncounted one is logged as practice, the schedule untouched. Any question
    of the session not answered yet may be answered, so that answers sent after one refused
    (its key points changed) are kept. A repeat, by its `idempotency_key` or for a question
    answered already, returns the first answer and records nothing.
    """
    session = study.session
    if (done := _done(session, run, reply.card_id)) is not None:
        return Answered(done, run.finished_at is not None, replayed=True)
    if run.finished_at is not None:
        raise Conflict("mock_over")
    current = asked(session, run, reply.card_id)
    if current is None and (done := _done(session, run, reply.card_id)) is not None:
        return Answered(done, run.finished_at is not None, replayed=True)  # answered meanwhile
    if current is None:
        raise Conflict("mock_question_not_open")
    result = _answer_row(run, current, reply, study.now)
    try:
        with study.database.writing(session) as connection:
            if reply.count_as_review:
                study.rate(
                    reply.card_id, result.rating, None, idempotency_key, duration_ms=result.total_ms
                )
            else:
                state = card_state(session, learner=study.learner, card_id=reply.card_id)
                given = GivenRating(
                    run.learner_id,
                    reply.card_id,
                    result.rating,
                    study.now,
                    result.total_ms,
                    idempotency_key,
                )
                connection.execute(insert(ReviewLog).values(practice_entry(given, state)))
            session.add(result)
            session.flush()
            run.position = 0
            if question(session, run) is None:
                run.finished_at = study.now
            session.add(run)
    except IntegrityError:
        # The same answer sent twice at once: the other request's is the one kept.
        if (done := _done(session, run, reply.card_id)) is not None:
            session.refresh(run)
            return Answered(done, run.finished_at is not None, replayed=True)
        raise
    session.refresh(result)
    return Answered(result, run.finished_at is not None)


def _answer_row(run: MockSession, current: Question, reply: Reply, now: datetime) -> MockAnswer:
    """The answer as it will be kept, once `reply` is checked against the question asked."""
    if reply.key != current.key:
        raise PointsChanged("key_points_changed")
    total = len(current.points)
    if any(not 0 <= index < total for index in reply.said):
        raise Invalid("key_point_out_of_range", last=total - 1)
    if reply.rating is not None and reply.rating not in tuple(Rating):
        raise Invalid("rating_out_of_range")
    followups = len(current.card.followups)
    if not 0 <= reply.followups_answered <= followups:
        raise Invalid("followups_out_of_range", count=followups)
    answer_ms = min(max(reply.answer_ms, 0), MAX_MS)
    total_ms = min(max(reply.total_ms, answer_ms), MAX_MS)
    limit_ms = run.seconds_per_question * 1000
    said = sorted(set(reply.said))
    rating = reply.rating
    if rating is None:
        rating = suggested_rating(len(said), total, overtime=answer_ms > limit_ms)
    assert run.id is not None  # a stored run
    return MockAnswer(
        mock_id=run.id,
        card_id=reply.card_id,
        position=current.position,
        answer_ms=answer_ms,
        total_ms=total_ms,
        limit_ms=limit_ms,
        points_total=total,
        points_said=said,
        followups_total=followups,
        followups_answered=reply.followups_answered,
        rating=rating,
        counted=reply.count_as_review,
        answered_at=now,
    )


def answers(session: Session, run: MockSession) -> list[MockAnswer]:
    return list(
        session.exec(
            select(MockAnswer)
            .where(MockAnswer.mock_id == run.id)
            .order_by(col(MockAnswer.position))
        )
    )


def mocks(session: Session, *, learner: Learner, limit: int = 50) -> list[MockSession]:
    """The learner's mock interviews, the latest first."""
    return list(
        session.exec(
            select(MockSession)
            .where(MockSession.learner_id == learner.id)
            .order_by(col(MockSession.id).desc())
            .limit(limit)
        )
    )
