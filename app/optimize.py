"""Personal FSRS parameters, fitted from a learner's own study log with fsrs's optimizer.

The optimizer needs torch, so it is an optional extra: without it everything else works and the
settings page and `qbank optimize` say how to enable it.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, NamedTuple

from fsrs import Rating
from fsrs import ReviewLog as FsrsReviewLog
from fsrs.scheduler import DEFAULT_PARAMETERS
from sqlmodel import Session, col, select

from app.errors import StudyError
from app.learners import personal_parameters
from app.models import Learner, ReviewLog, as_utc

if TYPE_CHECKING:
    from fsrs.optimizer import Optimizer

# What `fsrs[optimizer]` brings in (fsrs.optimizer imports all of them).
EXTRA_MODULES = ("torch", "numpy", "pandas", "tqdm")
INSTALL = "pip install 'qbank[optimizer]'"

# fsrs.optimizer's own limits, mirrored so the settings page can count without importing torch
# (a test checks they match): compute_optimal_parameters() fits nothing below one mini-batch of
# reviews, and it learns only from the first `max_seq_len` reviews of each card.
MIN_REVIEWS = 512  # fsrs.optimizer.mini_batch_size
MAX_SEQ_LEN = 64  # fsrs.optimizer.max_seq_len


class OptimizerMissing(StudyError):
    """The optimizer extra is not installed."""


class NotEnoughReviews(StudyError):
    status = 409


@dataclass(frozen=True)
class OptimizeReport:
    reviews: int  # study ratings handed to the optimizer
    counted: int  # of those, the ones it learns from (see `counted_reviews`)
    loss_before: float  # log loss of the parameters in use before (the defaults at first)
    loss_after: float  # log loss of the fitted parameters
    parameters: tuple[float, ...]  # the fitted parameters
    stored: bool  # False when the fit did not beat the parameters in use


@dataclass(frozen=True)
class OptimizeStatus:
    """What the settings page shows about personal parameters."""

    personal: bool
    optimized_at: datetime | None
    missing: tuple[str, ...]  # modules of the extra that are not installed
    counted: int
    needed: int

    install: str = INSTALL

    @property
    def ready(self) -> bool:
        return not self.missing and self.counted >= self.needed


class StudyRating(NamedTuple):
    card_id: str
    rating: int
    reviewed_at: datetime
    duration_ms: int | None


def missing_modules() -> tuple[str, ...]:
    """The optimizer extra's modules that are not installed (found without importing them)."""
    return tuple(name for name in EXTRA_MODULES if find_spec(name) is None)


def _study_ratings(session: Session, learner: Learner) -> list[StudyRating]:
    """The learner's live study ratings in time order; practice and undone ratings never count."""
    rows = session.exec(
        select(ReviewLog.card_id, ReviewLog.rating, ReviewLog.reviewed_at, ReviewLog.duration_ms)
        .where(
            ReviewLog.learner_id == learner.id,
            ReviewLog.mode == "study",
            col(ReviewLog.undone_at).is_(None),
        )
        .order_by(col(ReviewLog.reviewed_at), col(ReviewLog.id))
    )
    # fsrs wants UTC itself, not just an aware time (PostgreSQL returns its session time zone).
    return [StudyRating(card, r, as_utc(at).astimezone(UTC), ms) for card, r, at, ms in rows]


def counted_reviews(ratings: Sequence[StudyRating], max_seq_len: int = MAX_SEQ_LEN) -> int:
    """How many ratings the optimizer learns from: those at least a whole day after the card's
    previous rating, among the first `max_seq_len` of each card (fsrs's own rule)."""
    last: dict[str, datetime] = {}
    seen: dict[str, int] = {}
    counted = 0
    for rating in ratings:
        seen[rating.card_id] = seen.get(rating.card_id, 0) + 1
        previous = last.get(rating.card_id)
        if seen[rating.card_id] <= max_seq_len and previous is not None:
            counted += (rating.reviewed_at - previous).days > 0
        last[rating.card_id] = rating.reviewed_at
    return counted


def fsrs_review_logs(ratings: Sequence[StudyRating]) -> list[FsrsReviewLog]:
    """The ratings as fsrs ReviewLogs; cards get integer ids in the order they were first seen.

    fsrs orders card histories by id (it expects ids made from creation times), so numbering
    by first rating keeps that meaning and makes the fit repeatable for the same log.
    """
    ids: dict[str, int] = {}
    return [
        FsrsReviewLog(
            card_id=ids.setdefault(rating.card_id, len(ids) + 1),
            rating=Rating(rating.rating),
            review_datetime=rating.reviewed_at,
            review_duration=rating.duration_ms,
        )
        for rating in ratings
    ]


def optimization_status(*, session: Session, learner: Learner) -> OptimizeStatus:
    """Whether personal parameters are in use, and whether a fit could run now."""
    return OptimizeStatus(
        personal=personal_parameters(learner) is not None,
        optimized_at=as_utc(learner.fsrs_optimized_at) if learner.fsrs_optimized_at else None,
        missing=missing_modules(),
        counted=counted_reviews(_study_ratings(session, learner)),
        needed=MIN_REVIEWS,
    )


def _not_enough(counted: int, needed: int) -> str:
    return (
        f"not enough reviews to fit personal parameters yet: {counted} of the {needed} needed "
        "(only ratings a day or more after the card's previous one count)"
    )


def _optimizer_module() -> Any:
    """fsrs.optimizer with its dependencies, or OptimizerMissing saying how to install them."""
    missing = missing_modules()
    if not missing:
        try:
            import fsrs.optimizer as module

            # Without its dependencies fsrs.optimizer still imports, with a stub Optimizer.
            if hasattr(module, "mini_batch_size"):
                return module
        except ImportError:
            pass
    raise OptimizerMissing(
        f"install qbank[optimizer] to enable this: {INSTALL} "
        f"(the optimizer needs {', '.join(missing or EXTRA_MODULES)})"
    )


def _log_loss(optimizer: "Optimizer", parameters: Sequence[float]) -> float:
    # The loss the optimizer itself minimises and compares epochs by: mean binary cross-entropy
    # of predicted recall against Again/not-Again, over the ratings that `counted_reviews` counts.
    return float(optimizer._compute_batch_loss(parameters=list(parameters)))


def optimize_learner(*, session: Session, learner: Learner, now: datetime) -> OptimizeReport:
    """Fit FSRS parameters to the learner's study log; keep them if they predict it better."""
    module = _optimizer_module()
    ratings = _study_ratings(session, learner)
    counted = counted_reviews(ratings, module.max_seq_len)
    if counted < module.mini_batch_size:
        raise NotEnoughReviews(_not_enough(counted, module.mini_batch_size))
    current = personal_parameters(learner) or DEFAULT_PARAMETERS
    # End the read transaction: the fit takes seconds and needs nothing from the database.
    session.commit()

    optimizer = module.Optimizer(fsrs_review_logs(ratings))
    fitted = optimizer.compute_optimal_parameters()
    if fitted is None:  # every epoch's loss was NaN: keep what is in use
        fitted = list(current)
    parameters = tuple(float(value) for value in fitted)
    loss_before = _log_loss(optimizer, current)
    loss_after = _log_loss(optimizer, parameters)

    stored = loss_after <= loss_before and parameters != tuple(current)
    if stored:
        learner.fsrs_parameters = list(parameters)
        learner.fsrs_optimized_at = now
        session.add(learner)
        session.commit()
        session.refresh(learner)
    return OptimizeReport(
        reviews=len(ratings),
        counted=counted,
        loss_before=loss_before,
        loss_after=loss_after,
        parameters=parameters,
        stored=stored,
    )


def reset_parameters(*, session: Session, learner: Learner) -> Learner:
    """Go back to the FSRS default parameters; the schedule itself is left as it is."""
    learner.fsrs_parameters = None
    learner.fsrs_optimized_at = None
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner
