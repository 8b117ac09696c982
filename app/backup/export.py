"""Read a learner's history out of the database: the backup document and the CSV log."""

import csv
import io
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import union
from sqlmodel import Session, col, select

from app.accounts.settings import LearnerSettings
from app.backup.document import FORMAT, VERSION, StateIn, iso
from app.backup.interviews import export_interviews
from app.errors import NotFound
from app.infra.models import Card, CardMark, CardState, Deck, Learner, PracticeSession, ReviewLog


def find_learner(*, session: Session, name: str) -> Learner:
    learner = session.exec(select(Learner).where(Learner.name == name)).first()
    if learner is None:
        raise NotFound("learner_not_found", name=name)
    return learner


def learner_states(session: Session, learner: Learner) -> list[CardState]:
    query = select(CardState).where(CardState.learner_id == learner.id)
    return list(session.exec(query.order_by(col(CardState.card_id))))


def learner_marks(session: Session, learner: Learner) -> list[CardMark]:
    query = select(CardMark).where(CardMark.learner_id == learner.id)
    return list(session.exec(query.order_by(col(CardMark.card_id))))


def learner_reviews(session: Session, learner: Learner) -> list[ReviewLog]:
    query = select(ReviewLog).where(ReviewLog.learner_id == learner.id)
    return list(session.exec(query.order_by(col(ReviewLog.id))))


def learner_cards(session: Session, learner: Learner) -> dict[str, tuple[Card, Deck]]:
    """Every card the learner has a schedule, a mark or a review for, with its deck."""
    ids = union(
        select(CardState.card_id).where(CardState.learner_id == learner.id),
        select(CardMark.card_id).where(CardMark.learner_id == learner.id),
        select(ReviewLog.card_id).where(ReviewLog.learner_id == learner.id),
    )
    rows = session.exec(
        select(Card, Deck).join(Deck, col(Deck.id) == Card.deck_id).where(col(Card.id).in_(ids))
    )
    return {card.id: (card, deck) for card, deck in rows}


def export_learner(
    *, session: Session, learner: Learner, now: datetime | None = None
) -> dict[str, Any]:
    """The learner's settings, schedule, practice runs, review log and interviews as JSON data."""
    cards = learner_cards(session, learner)
    practice = session.exec(
        select(PracticeSession)
        .where(PracticeSession.learner_id == learner.id)
        .order_by(col(PracticeSession.id))
    )
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": iso(now or datetime.now(UTC)),
        "learner": {
            "name": learner.name,
            "settings": {
                **LearnerSettings.of(learner).columns(),
                "fsrs_parameters": learner.fsrs_parameters,
                "timezone_chosen": learner.timezone_chosen,
            },
        },
        # For reference only: restoring matches cards by id, never by text.
        "cards": {
            card_id: {"question": card.question, "deck": deck.slug, "section": card.section}
            for card_id, (card, deck) in sorted(cards.items())
        },
        "states": [
            StateIn.model_validate(row, from_attributes=True).model_dump(mode="json")
            for row in learner_states(session, learner)
        ],
        "marks": [
            {
                "card_id": mark.card_id,
                "suspended": mark.suspended,
                "buried_until": iso(mark.buried_until),
                "flag": mark.flag,
                "leech": mark.leech,
            }
            for mark in learner_marks(session, learner)
        ],
        "practice": [
            {
                "id": run.id,
                "card_ids": run.card_ids,
                "position": run.position,
                "seconds_per_card": run.seconds_per_card,
                "label": run.label,
                "started_at": iso(run.started_at),
                "finished_at": iso(run.finished_at),
            }
            for run in practice
        ],
        "reviews": [
            {
                "card_id": log.card_id,
                "rating": log.rating,
                "mode": log.mode,
                "queue": log.queue,
                "reviewed_at": iso(log.reviewed_at),
                "duration_ms": log.duration_ms,
                "state_before": log.state_before,
                "state_after": log.state_after,
                "undone_at": iso(log.undone_at),
                "practice_id": log.practice_id,
            }
            for log in learner_reviews(session, learner)
        ],
        **export_interviews(session, learner),
    }


CSV_COLUMNS = (
    "reviewed_at",
    "card_id",
    "deck",
    "section",
    "question",
    "rating",
    "mode",
    "queue",
    "duration_ms",
    "undone_at",
    "practice_id",
    "due_after",
    "stability_after",
    "difficulty_after",
)


def log_csv(*, session: Session, learner: Learner) -> str:
    """The learner's review log, oldest first, one row per rating (undone ones included)."""
    cards = learner_cards(session, learner)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for log in learner_reviews(session, learner):
        card, deck = cards.get(log.card_id, (None, None))
        after = log.state_after or {}
        writer.writerow(
            (
                iso(log.reviewed_at),
                log.card_id,
                deck.slug if deck else "",
                card.section if card else "",
                card.question if card else "",
                log.rating,
                log.mode,
                log.queue,
                "" if log.duration_ms is None else log.duration_ms,
                iso(log.undone_at) or "",
                "" if log.practice_id is None else log.practice_id,
                after.get("due") or "",
                "" if after.get("stability") is None else after["stability"],
                "" if after.get("difficulty") is None else after["difficulty"],
            )
        )
    return out.getvalue()
