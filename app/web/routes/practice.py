"""Practice mode pages: choose a selection, answer against the clock, see what was missed."""

import time
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.practice.quiz import current_card, get_practice, rate_practice, start_practice, summary
from app.scheduling.cardstate import Rating
from app.study import catalog
from app.study.cardview import card_view
from app.web.deps import (
    DatabaseDep,
    FiltersDep,
    LearnerDep,
    NowDep,
    RowId,
    ScopeFormDep,
    SessionDep,
)
from app.web.scope import scope_choices
from app.web.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/practice")
def practice_form(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
    card: str = "",
) -> Response:
    choices = scope_choices(session, learner=learner, now=now, filters=filters)
    return render(request, "practice_start.html", {**choices, "card": card})


@router.post("/practice")
def practice_start(
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    filters: ScopeFormDep,
    order: Annotated[str, Form(max_length=20)] = "content",
    seconds: Annotated[int, Form(ge=0, le=3600)] = 0,
    cards: Annotated[str, Form(max_length=20_000)] = "",
) -> Response:
    run = start_practice(
        session,
        learner=learner,
        filters=filters,
        order=order,
        seconds_per_card=seconds,
        now=now,
        card_ids=cards.split(",") if cards else None,
        database=database,
    )
    return RedirectResponse(f"/practice/{run.id}", status_code=303)


@router.get("/practice/{practice_id}")
def practice_card(
    request: Request,
    practice_id: RowId,
    session: SessionDep,
    learner: LearnerDep,
    reveal: bool = False,
) -> Response:
    run = get_practice(session, learner=learner, practice_id=practice_id)
    card = current_card(session, run)
    if card is None:
        return RedirectResponse(f"/practice/{run.id}/summary", status_code=303)
    return render(
        request,
        "practice.html",
        {
            "run": run,
            "card": card_view(session, card.id),
            "reveal": reveal,
            "shown_at": int(time.time() * 1000),
        },
    )


@router.post("/practice/{practice_id}/rate")
def practice_rate(
    practice_id: RowId,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    card_id: Annotated[str, Form(max_length=200)],
    rating: Annotated[Rating, Form()],
    shown_at: Annotated[int | None, Form()] = None,
) -> Response:
    run = get_practice(session, learner=learner, practice_id=practice_id)
    duration = None
    if shown_at is not None:
        duration = min(max(int(time.time() * 1000) - shown_at, 0), 86_400_000)
    rate_practice(
        session,
        learner=learner,
        run=run,
        card_id=card_id,
        rating=rating,
        now=now,
        duration_ms=duration,
        database=database,
    )
    return RedirectResponse(f"/practice/{run.id}", status_code=303)


@router.get("/practice/{practice_id}/summary")
def practice_summary(
    request: Request, practice_id: RowId, session: SessionDep, learner: LearnerDep
) -> Response:
    run = get_practice(session, learner=learner, practice_id=practice_id)
    result = summary(session, run)
    missed_ids = [c.id for c in result.missed + result.shaky]
    links = catalog.card_links(session, missed_ids)
    return render(
        request,
        "practice_summary.html",
        {
            "result": result,
            "links": links,
            "link_url": catalog.link_url,
            "missed_ids": ",".join(missed_ids),
        },
    )
