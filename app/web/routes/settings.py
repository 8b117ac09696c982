"""The settings page: study settings, personal FSRS parameters (fitted as a background job)."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from sqlmodel import Session
from starlette.responses import Response

from app import learners
from app.errors import StudyError
from app.models import Learner
from app.optimize import optimization_status, reset_parameters, start_optimize
from app.web.deps import LearnerDep, NowDep, SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def settings_response(
    request: Request,
    session: Session,
    learner: Learner,
    status_code: int = 200,
    now: datetime | None = None,
    **context: object,
) -> Response:
    """The settings page; `context` adds what an action has to report."""
    now = now or datetime.now(UTC)
    base = {
        "learner": learner,
        "saved": False,
        "error": None,
        "optimizer": optimization_status(session=session, learner=learner, now=now),
    }
    return render(request, "settings.html", base | context, status_code=status_code)


@router.get("/settings")
def settings_page(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    saved: bool = False,
    reset: bool = False,
) -> Response:
    return settings_response(request, session, learner, now=now, saved=saved, reset=reset)


@router.post("/settings")
def save_settings(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    desired_retention: Annotated[str, Form()],
    new_per_day: Annotated[str, Form()],
    max_reviews_per_day: Annotated[str, Form()],
    rollover_hour: Annotated[str, Form()],
    timezone: Annotated[str, Form()],
) -> Response:
    try:
        learners.update_settings(
            session,
            learner=learner,
            desired_retention=desired_retention,
            new_per_day=new_per_day,
            max_reviews_per_day=max_reviews_per_day,
            rollover_hour=rollover_hour,
            timezone=timezone,
        )
    except StudyError as exc:
        return settings_response(request, session, learner, status_code=400, error=str(exc))
    return RedirectResponse("/settings?saved=1", status_code=303)


@router.post("/settings/optimize")
def optimize(request: Request, learner: LearnerDep, now: NowDep) -> Response:
    """Start fitting in the background (or join the fit already running) and go back."""
    assert learner.id is not None
    start_optimize(request.app.state.database.engine, learner_id=learner.id, now=now)
    return RedirectResponse("/settings#optimizer", status_code=303)


@router.post("/settings/optimize/reset")
def reset_optimized(session: SessionDep, learner: LearnerDep) -> Response:
    reset_parameters(session=session, learner=learner)
    return RedirectResponse("/settings?reset=1", status_code=303)
