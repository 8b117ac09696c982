"""Interview pages: set an interview, see readiness and the plan for it."""

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse
from sqlmodel import Session
from starlette.responses import Response

from app.errors import AppError, Invalid
from app.infra.models import Learner
from app.interview.interviews import create_interview, delete_interview, get_interview
from app.interview.pins import refresh_plan
from app.interview.readiness import readiness
from app.interview.today import ahead
from app.scheduling.studyday import local_day
from app.study import Filters, catalog
from app.web.deps import DatabaseDep, LearnerDep, NowDep, RowId, SessionDep
from app.web.i18n import language, say
from app.web.scope import folders
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def _interviews_page(
    request: Request,
    session: Session,
    learner: Learner,
    now: dt.datetime,
    *,
    form: dict[str, str] | None = None,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    decks = catalog.deck_summaries(session, learner=learner, now=now)
    return render(
        request,
        "interviews.html",
        {
            "ahead": ahead(session, learner=learner, now=now),
            "decks": decks,
            "tags": catalog.tag_summaries(decks),
            "folders": folders(catalog.folder_tree(decks)),
            "form": form or {},
            "error": error,
            "today": local_day(learner, now).isoformat(),
        },
        status_code=status_code,
    )


@router.get("/interviews")
def interviews_page(
    request: Request, session: SessionDep, learner: LearnerDep, now: NowDep
) -> Response:
    return _interviews_page(request, session, learner, now)


@router.post("/interviews")
def interviews_add(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    name: Annotated[str, Form(max_length=200)] = "",
    date: Annotated[str, Form(max_length=20)] = "",
    deck: Annotated[str, Form(max_length=200)] = "",
    section: Annotated[str, Form(max_length=500)] = "",
    tag: Annotated[str, Form(max_length=200)] = "",
    folder: Annotated[str, Form(max_length=500)] = "",
    target: Annotated[int, Form(ge=70, le=99)] = 90,
) -> Response:
    form = {"name": name, "date": date, "deck": deck, "section": section, "tag": tag}
    form |= {"folder": folder}
    try:
        try:
            day = dt.date.fromisoformat(date)
        except ValueError:
            raise Invalid("not_a_date", value=date) from None
        interview = create_interview(
            session,
            learner=learner,
            name=name,
            day=day,
            filters=Filters(
                deck=deck or None, section=section or None, tag=tag or None, folder=folder or None
            ),
            now=now,
            target=target / 100,
            database=database,
        )
        refresh_plan(session, learner=learner, now=now, database=database)
    except AppError as exc:
        # The form comes back filled in, with the reason, so nothing typed is lost.
        return _interviews_page(
            request,
            session,
            learner,
            now,
            form=form,
            error=say(exc, language(request)),
            status_code=400,
        )
    return RedirectResponse(f"/interviews/{interview.id}", status_code=303)


# Decks and sections of an interview's readiness shown a page: a folder may hold thousands.
GROUPS_PER_PAGE = 50


@router.get("/interviews/{interview_id}")
def interview_page(
    request: Request,
    interview_id: RowId,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
) -> Response:
    interview = get_interview(session, learner=learner, interview_id=interview_id)
    ahead(session, learner=learner, now=now)
    found = readiness(session, learner=learner, interview=interview, now=now)
    groups = found.groups(sections=True)
    pages = max(-(-len(groups) // GROUPS_PER_PAGE), 1)
    page = min(page, pages)
    shown = groups[(page - 1) * GROUPS_PER_PAGE : page * GROUPS_PER_PAGE]
    context = {"r": found, "interview": interview, "groups": shown, "page": page, "pages": pages}
    return render(request, "interview.html", context)


@router.post("/interviews/{interview_id}/delete")
def interview_delete(
    interview_id: RowId,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
) -> Response:
    delete_interview(session, learner=learner, interview_id=interview_id, database=database)
    refresh_plan(session, learner=learner, now=now, database=database)
    return RedirectResponse("/interviews", status_code=303)
