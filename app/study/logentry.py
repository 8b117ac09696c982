"""A rating's row in the review log: one shape for study, practice and mock interview ratings."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.scheduling.cardstate import CardStateValue, Mode, Queue
from app.scheduling.statedoc import log_json


@dataclass(frozen=True)
class GivenRating:
    """Who rated which card how, when, and how long it took."""

    learner_id: int
    card_id: str
    rating: int
    at: datetime
    duration_ms: int | None = None
    idempotency_key: str | None = None


def log_entry(
    rated: GivenRating,
    *,
    before: CardStateValue | None,
    after: CardStateValue | None,
    queue: Queue,
    mode: Mode = Mode.STUDY,
    practice_id: int | None = None,
) -> dict[str, Any]:
    """The review log row's values for `rated`, the card's schedule before and after it."""
    return {
        "learner_id": rated.learner_id,
        "card_id": rated.card_id,
        "rating": rated.rating,
        "mode": mode.value,
        "queue": queue.value,
        "reviewed_at": rated.at,
        "duration_ms": rated.duration_ms,
        "state_before": log_json(before) if before else None,
        "state_after": log_json(after) if after else None,
        "idempotency_key": rated.idempotency_key,
        "practice_id": practice_id,
    }


def practice_entry(
    rated: GivenRating, state: CardStateValue | None, practice_id: int | None = None
) -> dict[str, Any]:
    """A rating that moves no schedule (practice, an uncounted mock answer): the card's state
    is logged as both before and after."""
    return log_entry(
        rated,
        before=state,
        after=state,
        queue=Queue.PRACTICE,
        mode=Mode.PRACTICE,
        practice_id=practice_id,
    )
