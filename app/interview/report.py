"""What a mock interview showed: per question, the weakest topics, and progress over sessions."""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.infra.models import CardLink, Learner, MockAnswer, MockSession, Recording, Topic
from app.interview.keypoints import card_points
from app.interview.mock import answers, mocks
from app.study.cardview import CardView, card_view

# Under this share of key points said, a question counts as missed.
MISSED_BELOW = 0.6


@dataclass(frozen=True)
class AnswerReport:
    answer: MockAnswer
    card: CardView | None
    recording: Recording | None  # loaded without its data
    # The checklist as it is now (the content may have changed since the answer).
    points: list[str]

    @property
    def coverage(self) -> float:
        a = self.answer
        return len(a.points_said) / a.points_total if a.points_total else 1.0

    @property
    def overtime_ms(self) -> int:
        return max(self.answer.answer_ms - self.answer.limit_ms, 0)

    @property
    def missed(self) -> bool:
        return self.coverage < MISSED_BELOW or self.answer.rating <= 2


@dataclass(frozen=True)
class TopicReport:
    slug: str
    title: str
    missed: int


@dataclass(frozen=True)
class MockReport:
    run: MockSession
    answers: list[AnswerReport]
    topics: list[TopicReport]

    @property
    def missed_ids(self) -> list[str]:
        return [a.answer.card_id for a in self.answers if a.missed]

    @property
    def coverage(self) -> float:
        return sum(a.coverage for a in self.answers) / len(self.answers) if self.answers else 0.0


def recordings_of(session: Session, run: MockSession) -> dict[str, Recording]:
    """The session's recordings by card, their audio left unread."""
    rows = session.execute(
        sa.select(
            col(Recording.id),
            col(Recording.card_id),
            col(Recording.mime),
            col(Recording.size),
            col(Recording.created_at),
            col(Recording.learner_id),
            col(Recording.mock_id),
        ).where(col(Recording.mock_id) == run.id)
    )
    return {
        row.card_id: Recording(
            id=row.id,
            learner_id=row.learner_id,
            mock_id=row.mock_id,
            card_id=row.card_id,
            mime=row.mime,
            size=row.size,
            data=b"",
            created_at=row.created_at,
        )
        for row in rows
    }


def _weak_topics(session: Session, card_ids: list[str]) -> list[TopicReport]:
    if not card_ids:
        return []
    rows = session.exec(
        select(CardLink.card_id, Topic.slug, Topic.title)
        .join(Topic, col(Topic.slug) == CardLink.topic_slug)
        .where(col(CardLink.card_id).in_(card_ids))
    )
    counts: Counter[tuple[str, str]] = Counter()
    for _, slug, title in {(r[0], r[1], r[2]) for r in rows}:
        counts[(slug, title)] += 1
    return [
        TopicReport(slug, title, n)
        for (slug, title), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][1]))
    ]


def report(session: Session, run: MockSession) -> MockReport:
    recordings = recordings_of(session, run)
    given = answers(session, run)
    points = card_points(session, [a.card_id for a in given])
    found = [
        AnswerReport(
            a,
            card_view(session, a.card_id),
            recordings.get(a.card_id),
            points.get(a.card_id, []),
        )
        for a in given
    ]
    missed = [a.answer.card_id for a in found if a.missed]
    return MockReport(run, found, _weak_topics(session, missed))


@dataclass(frozen=True)
class HistoryPoint:
    run: MockSession
    questions: int
    coverage: float  # mean share of key points said
    seconds: float  # mean time to the end of the main answer

    @property
    def when(self) -> datetime:
        return self.run.started_at


def history(session: Session, *, learner: Learner) -> list[HistoryPoint]:
    """The learner's mock interviews with at least one answer, oldest first."""
    points = []
    for run in reversed(mocks(session, learner=learner)):
        done = answers(session, run)
        if not done:
            continue
        coverage = [len(a.points_said) / a.points_total if a.points_total else 1.0 for a in done]
        points.append(
            HistoryPoint(
                run=run,
                questions=len(done),
                coverage=sum(coverage) / len(done),
                seconds=sum(a.answer_ms for a in done) / len(done) / 1000,
            )
        )
    return points
