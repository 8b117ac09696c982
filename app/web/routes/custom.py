"""Custom study: more new cards today, and today's recap that the "done" page shows."""

from datetime import datetime
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from app.accounts.learners import MAX_EXTRA_NEW, add_new_today, new_limit
from app.scheduling.studyday import learner_zone
from app.study import counts, next_due
from app.study.browse import failed_today
from app.study.recap import today_recap
from app.web.deps import DatabaseDep, FiltersDep, LearnerDep, NowDep, SessionDep
from app.web.schemas import CountsOut, counts_out

api = APIRouter(prefix="/api", tags=["custom study"])
router = APIRouter(include_in_schema=False)


class NewTodayIn(BaseModel):
    count: int = Field(ge=1, le=MAX_EXTRA_NEW, description="How many more new cards today.")


class NewTodayOut(BaseModel):
    new_per_day: int
    extra_today: int = Field(description="Today's raise; it lapses when the study day ends.")
    new_limit: int = Field(description="New cards allowed today, the raise included.")
    counts: CountsOut


class TodayOut(BaseModel):
    cards: int = Field(description="Distinct cards studied in the learner's study day.")
    ratings: int
    again: int
    again_rate: float | None
    time_ms: int
    next_due: datetime | None = Field(
        description="When the next card in scope falls due, ISO with offset, in the learner's zone."
    )
    timezone: str
    failed_today: list[str] = Field(description="Cards rated Again today: study them again.")


@api.post("/study/new-today")
def more_new_today(
    body: NewTodayIn,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
) -> NewTodayOut:
    """Take `count` more new cards today (a raise of the limit for this study day only)."""
    learner = add_new_today(session, learner=learner, count=body.count, now=now, database=database)
    return NewTodayOut(
        new_per_day=learner.new_per_day,
        extra_today=new_limit(learner, now) - learner.new_per_day,
        new_limit=new_limit(learner, now),
        counts=counts_out(counts(session, learner=learner, now=now, filters=filters)),
    )


@api.get("/study/today")
def study_today(
    session: SessionDep, learner: LearnerDep, now: NowDep, filters: FiltersDep
) -> TodayOut:
    """Today's study so far, and when the next card in scope is due."""
    recap = today_recap(session, learner=learner, now=now)
    due = next_due(session, learner=learner, filters=filters, now=now)
    return TodayOut(
        cards=recap.cards,
        ratings=recap.ratings,
        again=recap.again,
        again_rate=recap.again_rate,
        time_ms=recap.time_ms,
        next_due=due.astimezone(learner_zone(learner)) if due else None,
        timezone=learner.timezone,
        failed_today=failed_today(session, learner=learner, now=now),
    )


@router.post("/study/custom/new")
def more_new_form(
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
    count: Annotated[int, Form(ge=1, le=MAX_EXTRA_NEW)],
) -> Response:
    add_new_today(session, learner=learner, count=count, now=now, database=database)
    params = filters.as_params()
    return RedirectResponse("/study" + (f"?{urlencode(params)}" if params else ""), 303)
