"""Mock interview pages: the question against the clock, follow-ups, checklist, report."""

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse
from sqlmodel import Session
from starlette.responses import Response

from app.config import Settings
from app.infra.models import Learner, MockSession
from app.interview.interviews import interviews
from app.interview.mock import (
    MAX_MS,
    MAX_UNFINISHED,
    PointsChanged,
    Question,
    Reply,
    TooManyOpen,
    answer,
    answers,
    asked,
    end_mock,
    get_mock,
    question,
    questions,
    start_mock,
    unfinished,
)
from app.interview.pins import set_pins
from app.interview.report import history, recordings_of, report
from app.scheduling.studyday import learner_zone
from app.study import Filters
from app.web.deps import (
    DatabaseDep,
    FiltersDep,
    LearnerDep,
    NowDep,
    RowId,
    ScopeFormDep,
    SessionDep,
    SettingsDep,
)
from app.web.i18n import language, say, translator
from app.web.routes.recordings import recording_space
from app.web.scope import scope_choices
from app.web.study_deps import StudyDep
from app.web.svg_mock import history_chart
from app.web.templating import render, templates

router = APIRouter(include_in_schema=False)


def mmss(ms: int) -> str:
    """Milliseconds as m:ss."""
    seconds = max(int(ms), 0) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


templates.env.filters["mmss"] = mmss

Phase = Annotated[str, Query(pattern=r"^(question|answer|f\d{1,2})$")]
Millis = Annotated[int | None, Query(ge=0)]


def _ms(moment: dt.datetime) -> int:
    return int(moment.timestamp() * 1000)


def _since(started: int | None, now: dt.datetime) -> int:
    """A client-carried start time (ms), kept within the last day and not after now."""
    current = _ms(now)
    if started is None or not current - MAX_MS <= started <= current:
        return current
    return started


def _start_page(
    request: Request,
    session: Session,
    settings: Settings,
    learner: Learner,
    now: dt.datetime,
    filters: Filters,
    *,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    choices = scope_choices(session, learner=learner, now=now, filters=filters)
    points = history(session, learner=learner)
    open_runs = unfinished(session, learner=learner)
    return render(
        request,
        "mock_start.html",
        {
            **choices,
            "interviews": interviews(session, learner=learner),
            "history": points,
            "chart": history_chart(points, request, learner_zone(learner)),
            "unfinished": [(run, len(answers(session, run))) for run in open_runs],
            "max_unfinished": MAX_UNFINISHED,
            "space": recording_space(session, settings, learner),
            "error": error,
        },
        status_code=status_code,
    )


@router.get("/interview/mock")
def mock_form(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
) -> Response:
    return _start_page(request, session, settings, learner, now, filters)


@router.post("/interview/mock")
def mock_start(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    learner: LearnerDep,
    now: NowDep,
    filters: ScopeFormDep,
    count: Annotated[int, Form(ge=1, le=50)] = 10,
    order: Annotated[str, Form(max_length=20)] = "random",
    minutes: Annotated[float, Form(ge=0.25, le=30)] = 2,
    followup_seconds: Annotated[int, Form(ge=10, le=1800)] = 60,
) -> Response:
    try:
        run = start_mock(
            session,
            learner=learner,
            filters=filters,
            count=count,
            order=order,
            seconds_per_question=round(minutes * 60),
            followup_seconds=followup_seconds,
            now=now,
            database=database,
        )
    except TooManyOpen as exc:
        error = say(exc, language(request))
        return _start_page(
            request, session, settings, learner, now, filters, error=error, status_code=exc.status
        )
    return RedirectResponse(f"/interview/mock/{run.id}", status_code=303)


@router.post("/interview/mock/{mock_id}/end")
def mock_end(
    mock_id: RowId, session: SessionDep, database: DatabaseDep, learner: LearnerDep, now: NowDep
) -> Response:
    """End a mock interview before every question is answered; its report shows what was."""
    run = end_mock(
        session, run=get_mock(session, learner=learner, mock_id=mock_id), now=now, database=database
    )
    return RedirectResponse(f"/interview/mock/{run.id}/summary", status_code=303)


# What static/interview-paint.js paints the session's status and recordings with.
CLIENT_STRINGS = (
    "study.saving",
    "study.saved",
    "mock.sync_offline",
    "mock.sync_retrying",
    "mock.sync_signed_out",
    "mock.recording",
    "mock.recorded",
    "mock.saving",
    "mock.recording_waiting",
    "mock.recording_memory",
    "mock.no_mic",
    "mock.upload_failed",
    "mock.record",
    "mock.stop",
    "mock.suggested_is",
    "mock.time_left",
    "mock.time_answer",
    "study.again",
    "study.hard",
    "study.good",
    "study.easy",
)


def _question_page(
    request: Request,
    session: Session,
    run: MockSession,
    current: Question,
    now: dt.datetime,
    *,
    phase: str,
    t0: int,
    t1: int | None,
    error: str | None = None,
    form: dict[str, object] | None = None,
    status_code: int = 200,
) -> Response:
    """The question with every later one held in the page, so the session goes on offline."""
    followups = current.card.followups
    if phase.startswith("f") and int(phase[1:]) >= len(followups):
        phase = "answer"
    if phase != "question" and t1 is None:
        t1 = _ms(now)  # the main answer ended when the learner moved on from it
    kept = recordings_of(session, run)
    later = [q for q in questions(session, run) if q.card.id != current.card.id]
    t = translator(language(request))
    client = {
        "mock": run.id,
        "summary": f"/interview/mock/{run.id}/summary",
        "resume": f"/interview/mock/{run.id}",
        "strings": {key: t(key) for key in CLIENT_STRINGS},
    }
    return render(
        request,
        "mock.html",
        {
            "run": run,
            "q": current,
            "card": current.card,
            "later": later,
            "phase": phase,
            "t0": t0,
            "t1": t1,
            "now_ms": _ms(now),
            "elapsed_ms": (t1 or _ms(now)) - t0,
            "recording": kept.get(current.card.id),
            "error": error,
            "form": form or {},
            "client": client,
        },
        status_code=status_code,
    )


@router.get("/interview/mock/{mock_id}")
def mock_question(
    request: Request,
    mock_id: RowId,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    phase: Phase = "question",
    t0: Millis = None,
    t1: Millis = None,
    rating: Annotated[int, Query(ge=0, le=4)] = 0,
    changed: bool = False,
) -> Response:
    """The question the session is at; `rating` and `changed` carry an answer refused offline."""
    run = get_mock(session, learner=learner, mock_id=mock_id)
    current = question(session, run)
    if current is None:
        return RedirectResponse(f"/interview/mock/{run.id}/summary", status_code=303)
    start = _since(t0, now)
    end = _since(t1, now) if t1 is not None else None
    error = translator(language(request))("mock.points_changed") if changed else None
    form = {"rating": rating, "count_as_review": False, "followups": set()}
    return _question_page(
        request, session, run, current, now, phase=phase, t0=start, t1=end, error=error, form=form
    )


@router.post("/interview/mock/{mock_id}/answer")
def mock_answer(
    request: Request,
    mock_id: RowId,
    study: StudyDep,
    card_id: Annotated[str, Form(max_length=200)],
    key: Annotated[str, Form(max_length=64)],
    t0: Annotated[int, Form(ge=0)],
    t1: Annotated[int | None, Form(ge=0)] = None,
    said: Annotated[list[int] | None, Form()] = None,
    followups_answered: Annotated[list[int] | None, Form()] = None,
    rating: Annotated[int, Form(ge=0, le=4)] = 0,
    count_as_review: Annotated[bool, Form()] = False,
) -> Response:
    session, now = study.session, study.now
    run = get_mock(session, learner=study.learner, mock_id=mock_id)
    start = _since(t0, now)
    end = _since(t1, now) if t1 is not None else _ms(now)
    reply = Reply(
        card_id=card_id,
        said=said or [],
        key=key,
        followups_answered=len(set(followups_answered or [])),
        answer_ms=max(end - start, 0),
        total_ms=max(_ms(now) - start, 0),
        rating=rating or None,
        count_as_review=count_as_review,
    )
    try:
        answer(study, run, reply)
    except PointsChanged as exc:
        current = asked(session, run, card_id)
        assert current is not None  # the answer was refused, so the question is still open
        form = {
            "rating": rating,
            "count_as_review": count_as_review,
            "followups": set(followups_answered or []),
        }
        return _question_page(
            request,
            session,
            run,
            current,
            now,
            phase="answer",
            t0=start,
            t1=end,
            error=say(exc, language(request)),
            form=form,
            status_code=409,
        )
    return RedirectResponse(f"/interview/mock/{run.id}", status_code=303)


@router.get("/interview/mock/{mock_id}/summary")
def mock_summary(
    request: Request,
    mock_id: RowId,
    session: SessionDep,
    settings: SettingsDep,
    learner: LearnerDep,
) -> Response:
    run = get_mock(session, learner=learner, mock_id=mock_id)
    space = recording_space(session, settings, learner)
    return render(request, "mock_summary.html", {"report": report(session, run), "space": space})


@router.post("/interview/mock/{mock_id}/study")
def mock_study_missed(
    mock_id: RowId, session: SessionDep, database: DatabaseDep, learner: LearnerDep, now: NowDep
) -> Response:
    run = get_mock(session, learner=learner, mock_id=mock_id)
    missed = report(session, run).missed_ids
    set_pins(
        session,
        learner=learner,
        now=now,
        card_ids=missed,
        source="mock",
        replace=False,
        database=database,
    )
    return RedirectResponse("/study", status_code=303)
