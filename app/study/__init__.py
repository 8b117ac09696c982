"""The study loop: the queue (what to show next), ratings and undo."""

from app.accounts.learners import get_learner, personal_parameters
from app.errors import AppError, Conflict, NotFound
from app.scheduling.studyday import learner_zone, study_day
from app.study.filters import Filters
from app.study.queue import (
    Counts,
    NextCard,
    card_state,
    counts,
    next_card,
    study_next,
)
from app.study.reviews import ReviewResult, UndoResult, record_review, undo_last
from app.study.today import done_today, next_due, reviewed_today

__all__ = [
    "AppError",
    "Conflict",
    "Counts",
    "Filters",
    "NextCard",
    "NotFound",
    "ReviewResult",
    "UndoResult",
    "card_state",
    "counts",
    "done_today",
    "get_learner",
    "learner_zone",
    "next_card",
    "next_due",
    "personal_parameters",
    "record_review",
    "reviewed_today",
    "study_day",
    "study_next",
    "undo_last",
]
