"""The settings page: study settings, personal FSRS parameters (a background fit), workload."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from sqlmodel import Session
from starlette.responses import Response

from app.accounts import learners
from app.accounts.settings import LearnerSettings
from app.errors import AppError
from app.infra.models import Learner
from app.scheduling.optimize import optimization_status, reset_parameters, start_optimize
from app.scheduling.simulate import DAYS, learner_workload
from app.web.deps import DatabaseDep, LearnerDep, NowDep, SessionDep
from app.web.i18n import language, say, translator
from app.web.redirects import back
from app.web.svg_workload import workload_chart
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
    workload = learner_workload(
        session=session, learner=learner, now=now, database=request.app.state.database
    )
    base = {
        "learner": learner,
        "zones": learners.zone_names(),
        "saved": False,
        "error": None,
        "optimizer": optimization_status(session=session, learner=learner, now=now),
        "workload": workload,
        "workload_chart": workload_chart(
            workload, learner.desired_retention, translator(language(request))
        ),
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
    database: DatabaseDep,
    learner: LearnerDep,
    desired_retention: Annotated[str, Form()],
    new_per_day: Annotated[str, Form()],
    max_reviews_per_day: Annotated[str, Form()],
    rollover_hour: Annotated[str, Form()],
    timezone: Annotated[str, Form(max_length=64)],
    load_balance: Annotated[str | None, Form()] = None,
    easy_days: Annotated[list[str] | None, Form()] = None,
    leech_threshold: Annotated[str | None, Form()] = None,
    leech_action: Annotated[str | None, Form()] = None,
) -> Response:
    # Unticked checkboxes send nothing: absent means off and no easy days. Leech settings
    # the form leaves out stay as they are.
    kept = {"leech_threshold": learner.leech_threshold, "leech_action": learner.leech_action}
    form = {
        "desired_retention": desired_retention,
        "new_per_day": new_per_day,
        "max_reviews_per_day": max_reviews_per_day,
        "rollover_hour": rollover_hour,
        "timezone": timezone,
        "load_balance": load_balance is not None,
        "easy_days": easy_days or [],
        "leech_threshold": leech_threshold,
        "leech_action": leech_action,
    }
    try:
        chosen = LearnerSettings.parse(kept | {k: v for k, v in form.items() if v is not None})
    except AppError as exc:
        error = say(exc, language(request))
        return settings_response(request, session, learner, status_code=400, error=error)
    learners.update_settings(session, learner=learner, settings=chosen, database=database)
    return RedirectResponse("/settings?saved=1", status_code=303)


@router.post("/settings/timezone")
def choose_timezone(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    timezone: Annotated[str, Form(max_length=64)],
) -> Response:
    """The first visit's offer: the browser's zone, or keep the current one."""
    learners.choose_zone(session, learner=learner, timezone=timezone, database=database)
    return RedirectResponse(back(request), status_code=303)


@router.post("/settings/optimize")
def optimize(request: Request, learner: LearnerDep, now: NowDep) -> Response:
    """Start fitting in the background (or join the fit already running) and go back."""
    assert learner.id is not None
    start_optimize(request.app.state.database, learner_id=learner.id, now=now)
    return RedirectResponse("/settings#optimizer", status_code=303)


@router.post("/settings/optimize/reset")
def reset_optimized(session: SessionDep, database: DatabaseDep, learner: LearnerDep) -> Response:
    reset_parameters(session=session, learner=learner, database=database)
    return RedirectResponse("/settings?reset=1", status_code=303)


api = APIRouter(prefix="/api", tags=["api"])


class WorkloadPointOut(BaseModel):
    retention: float = Field(description="Desired retention.")
    reviews_per_day: float = Field(description="Reviews of seen cards a day, mean over the year.")
    minutes_per_day: float = Field(description="Minutes of study a day, mean over the year.")
    remembered: float = Field(description="Cards expected to be recalled on the last day.")
    minutes_per_card: float | None = Field(
        description="Minutes over the year per card remembered at its end (None: none is)."
    )


class SimulationOut(BaseModel):
    days: int = Field(description="Days simulated, from today.")
    cards: int = Field(description="Active cards in the bank the learner has not suspended.")
    seen: int = Field(
        description="Of those, cards already in the learner's schedule: each starts from its "
        "stability, difficulty and due day; the rest start new."
    )
    sampled: int | None = Field(
        description="How many of the seen cards were simulated, their figures scaled up to all "
        "(None: every one)."
    )
    new_per_day: int
    max_reviews_per_day: int
    personal_parameters: bool = Field(description="The learner's fitted FSRS-6 parameters.")
    desired_retention: float = Field(description="The learner's setting.")
    best_retention: float | None = Field(
        description="The retention with the least time per card remembered (None: no cards)."
    )
    points: list[WorkloadPointOut]


@api.get("/simulate")
def simulate_workload(
    session: SessionDep, database: DatabaseDep, learner: LearnerDep, now: NowDep
) -> SimulationOut:
    """Simulated reviews and minutes a day over a year for desired retention 0.70-0.97.

    Every 0.03, and every 0.01 within 0.02 of the cheapest of those.
    """
    workload = learner_workload(session=session, learner=learner, now=now, database=database)
    best = workload.best
    return SimulationOut(
        days=DAYS,
        cards=workload.cards,
        seen=workload.seen,
        sampled=workload.sampled,
        new_per_day=workload.new_per_day,
        max_reviews_per_day=workload.max_reviews_per_day,
        personal_parameters=workload.personal,
        desired_retention=learner.desired_retention,
        best_retention=best.retention if best else None,
        points=[
            WorkloadPointOut(
                retention=point.retention,
                reviews_per_day=point.reviews_per_day,
                minutes_per_day=point.minutes_per_day,
                remembered=point.remembered,
                minutes_per_card=point.minutes_per_card if point.remembered else None,
            )
            for point in workload.points
        ],
    )
