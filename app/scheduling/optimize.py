"""Personal FSRS parameters: fitted from a learner's own study log, off the request, as a job.

The fit (app.scheduling.fitting) runs in a background job (app.infra.jobs): one at a time per
learner, so a
double click or a second tab joins the running fit instead of starting another. New parameters
replace those in use only when they predict held-out reviews better (lower log loss). The
parameters in use may have been fitted on part of the same log, which favours them, so a
re-fit on an unchanged log keeps them: fitting twice changes nothing.
"""

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from sqlalchemy import DateTime, and_, column, distinct, func, values
from sqlmodel import Session, col, select

from app.infra.db import Database
from app.infra.jobs import ACTIVE, DONE, Work, latest_job, run_job, start_job
from app.infra.models import Job, Learner, ReviewLog
from app.scheduling import fitting
from app.scheduling.fitting import MIN_REVIEWS, Fit, Review
from app.scheduling.parameters import DEFAULT_PARAMETERS, usable_parameters
from app.scheduling.studyday import day_start, local_day

KIND = "optimize"
# A re-fit is suggested a month after the last one once the log has grown by a fifth.
REFIT_AFTER = timedelta(days=30)
REFIT_GROWTH = 1.2


@dataclass(frozen=True)
class OptimizeStatus:
    """What the settings page shows about personal parameters."""

    personal: bool
    optimized_at: datetime | None
    counted: int  # ratings the fit would learn from now
    needed: int
    job: Job | None  # the latest fit, finished or not
    refit_suggested: bool

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.status in ACTIVE

    @property
    def ready(self) -> bool:
        return self.counted >= self.needed and not self.running


def _standing(learner: Learner) -> tuple[Any, ...]:
    """The learner's live study ratings: practice and undone ratings never count."""
    return (
        ReviewLog.learner_id == learner.id,
        ReviewLog.mode == "study",
        col(ReviewLog.undone_at).is_(None),
    )


def study_reviews(session: Session, learner: Learner) -> list[Review]:
    """The learner's live study ratings in time order."""
    rows = session.exec(
        select(ReviewLog.card_id, ReviewLog.rating, ReviewLog.reviewed_at)
        .where(*_standing(learner))
        .order_by(col(ReviewLog.reviewed_at), col(ReviewLog.id))
    )
    return [
        Review(card, rating, local_day(learner, at).toordinal(), at) for card, rating, at in rows
    ]


def current_parameters(learner: Learner) -> tuple[float, ...]:
    return usable_parameters(learner.fsrs_parameters) or DEFAULT_PARAMETERS


def counted_reviews(session: Session, learner: Learner) -> int:
    """How many items the fit would learn from, counted by the database.

    A card gives one item for each study day it was rated on after its first (see
    app.scheduling.fitting.fsrs_items), so the count is the card-days minus the cards. The days are
    the
    learner's, whose bounds move with their zone's offset: they go to the database as a table
    of [start, end) rows, one for each day from the first rating to the last.
    """
    first, last, cards = session.exec(
        select(
            func.min(ReviewLog.reviewed_at),
            func.max(ReviewLog.reviewed_at),
            func.count(distinct(col(ReviewLog.card_id))),
        ).where(*_standing(learner))
    ).one()
    if first is None:
        return 0
    start, end = local_day(learner, first), local_day(learner, last)
    if start == end:
        return 0
    bounds = [day_start(learner, start + timedelta(days=n)) for n in range((end - start).days + 2)]
    days = (
        values(
            column("starts", DateTime(timezone=True)),
            column("ends", DateTime(timezone=True)),
            name="study_days",
        )
        .data(list(pairwise(bounds)))
        .cte("study_days")
    )
    card_days = (
        select(ReviewLog.card_id, days.c.starts)
        .join(
            days,
            and_(ReviewLog.reviewed_at >= days.c.starts, ReviewLog.reviewed_at < days.c.ends),
        )
        .where(*_standing(learner))
        .distinct()
        .subquery()
    )
    return session.exec(select(func.count()).select_from(card_days)).one() - cards


def optimization_status(*, session: Session, learner: Learner, now: datetime) -> OptimizeStatus:
    """Whether personal parameters are in use, whether a fit could run, how the last one went."""
    counted = counted_reviews(session, learner)
    job = latest_job(session, kind=KIND, learner_id=learner.id)
    optimized_at = learner.fsrs_optimized_at if learner.fsrs_optimized_at else None
    fitted_on = _last_fitted_on(session, learner)
    return OptimizeStatus(
        personal=usable_parameters(learner.fsrs_parameters) is not None,
        optimized_at=optimized_at,
        counted=counted,
        needed=MIN_REVIEWS,
        job=job,
        refit_suggested=optimized_at is not None
        and now - optimized_at >= REFIT_AFTER
        and counted >= REFIT_GROWTH * fitted_on,
    )


def _last_fitted_on(session: Session, learner: Learner) -> int:
    """How many items the last successful fit learned from (0 if none is on record)."""
    job = session.exec(
        select(Job)
        .where(Job.kind == KIND, Job.learner_id == learner.id, Job.status == DONE)
        .order_by(col(Job.id).desc())
        .limit(1)
    ).first()
    return int((job.result or {}).get("items", 0)) if job is not None else 0


def report(fit: Fit, *, stored: bool, seconds: float) -> dict[str, Any]:
    """A fit as the job's JSON result."""
    return {
        "items": fit.items,
        "before": {"log_loss": fit.before.log_loss, "rmse_bins": fit.before.rmse_bins},
        "after": {"log_loss": fit.after.log_loss, "rmse_bins": fit.after.rmse_bins},
        "stored": stored,
        "parameters": list(fit.parameters),
        "seconds": seconds,
    }


def optimize_learner(
    *, database: Database, session: Session, learner: Learner, now: datetime
) -> dict[str, Any]:
    """Fit parameters to the learner's log; store them if they predict it better."""
    reviews = study_reviews(session, learner)
    current = current_parameters(learner)
    session.rollback()  # end the read transaction: the fit needs nothing from the database
    started = time.perf_counter()
    fit = fitting.fit(reviews, current)
    seconds = time.perf_counter() - started
    stored = fit.better and fit.parameters != tuple(current)
    if stored:
        with database.writing(session):
            learner.fsrs_parameters = list(fit.parameters)
            learner.fsrs_optimized_at = now
            session.add(learner)
    return report(fit, stored=stored, seconds=seconds)


def summary(result: dict[str, Any]) -> str:
    """One English line about a fit (the CLI's output and the job's message)."""
    before, after = result["before"], result["after"]
    outcome = (
        "stored; reviews are scheduled with them from now on"
        if result["stored"]
        else "no better than the parameters in use, which are kept"
    )
    return (
        f"fitted on {result['items']} reviews in {result['seconds']:.2f} s; on held-out reviews "
        f"log loss {before['log_loss']:.4f} → {after['log_loss']:.4f}, RMSE(bins) "
        f"{before['rmse_bins']:.4f} → {after['rmse_bins']:.4f}: {outcome}"
    )


def _work(database: Database, learner_id: int, now: datetime) -> Work:
    def work(session: Session, job: Job) -> tuple[str, dict[str, Any]]:
        learner = session.get(Learner, learner_id)
        assert learner is not None
        result = optimize_learner(session=session, learner=learner, now=now, database=database)
        return summary(result), result

    return work


def start_optimize(database: Database, *, learner_id: int, now: datetime) -> Job:
    """Start fitting the learner's parameters, or return the fit already running."""
    return start_job(
        database, kind=KIND, learner_id=learner_id, work=_work(database, learner_id, now)
    )


def run_optimize(database: Database, *, learner_id: int, now: datetime) -> Job:
    """Fit the learner's parameters and wait for the outcome (the CLI)."""
    return run_job(
        database, kind=KIND, learner_id=learner_id, work=_work(database, learner_id, now)
    )


def reset_parameters(*, database: Database, session: Session, learner: Learner) -> Learner:
    """Go back to the FSRS default parameters; the schedule itself is left as it is."""
    with database.writing(session):
        learner.fsrs_parameters = None
        learner.fsrs_optimized_at = None
        session.add(learner)
    session.refresh(learner)
    return learner
