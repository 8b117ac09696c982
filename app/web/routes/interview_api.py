"""The JSON API of interview mode: interviews, their readiness and plan."""

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.errors import TooLarge
from app.infra.models import Interview
from app.interview.interviews import create_interview, delete_interview, get_interview, interviews
from app.interview.mock import MAX_MS, Reply, answer, get_mock
from app.interview.pins import refresh_plan
from app.interview.readiness import Readiness, readiness
from app.interview.recordings import (
    MAX_BYTES,
    MB,
    delete_recording,
    quota_bytes,
    recordings,
    save_recording,
    usage,
)
from app.interview.today import ahead
from app.scheduling.cardstate import Rating
from app.study import Filters
from app.web.deps import (
    DatabaseDep,
    IdempotencyKey,
    LearnerDep,
    NowDep,
    RowId,
    SessionDep,
    SettingsDep,
)
from app.web.study_deps import StudyDep

router = APIRouter(prefix="/api", tags=["interviews"])

Scope = Annotated[str | None, Field(default=None, max_length=200)]


class InterviewIn(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    date: dt.date
    deck: Scope = None
    section: Annotated[str | None, Field(default=None, max_length=500)] = None
    tag: Scope = None
    folder: Annotated[str | None, Field(default=None, max_length=500)] = None
    target: Annotated[float, Field(ge=0.7, le=0.99)] = 0.9


class InterviewOut(BaseModel):
    id: int
    name: str
    date: dt.date
    deck: str | None
    section: str | None
    tag: str | None
    folder: str | None
    target: float


class GroupOut(BaseModel):
    deck: str
    title: str
    section: str | None
    cards: int
    ready: int
    share_ready: float


class WeakOut(BaseModel):
    card_id: str
    deck: str
    section: str
    recall: float
    studied: bool


class PlanDayOut(BaseModel):
    date: dt.date
    reviews: int
    new: int


class ReadinessOut(BaseModel):
    interview: InterviewOut
    cards: int
    target: float
    ready: int
    share_ready: float
    per_day: int = Field(description="Reviews on the plan's busiest day.")
    total_reviews: int
    days_left: int
    decks: list[GroupOut]
    sections: list[GroupOut]
    weakest: list[WeakOut]
    plan: list[PlanDayOut]
    unreachable: list[str] = Field(description="Cards the plan cannot bring to the target.")
    warnings: list[str] = Field(description="Where the plan goes over the daily limits.")


def interview_out(interview: Interview) -> InterviewOut:
    return InterviewOut(
        id=interview.id,
        name=interview.name,
        date=interview.day,
        deck=interview.deck,
        section=interview.section,
        tag=interview.tag,
        folder=interview.folder,
        target=interview.target,
    )


def readiness_out(found: Readiness) -> ReadinessOut:
    def groups(sections: bool) -> list[GroupOut]:
        return [
            GroupOut(
                deck=g.deck,
                title=g.title,
                section=g.section,
                cards=g.cards,
                ready=g.ready,
                share_ready=round(g.share, 4),
            )
            for g in found.groups(sections=sections)
        ]

    return ReadinessOut(
        interview=interview_out(found.interview),
        cards=len(found.cards),
        target=found.target,
        ready=found.ready,
        share_ready=round(found.share_ready, 4),
        per_day=found.plan.per_day,
        total_reviews=found.plan.total,
        days_left=found.days_left,
        decks=groups(False),
        sections=groups(True),
        weakest=[
            WeakOut(
                card_id=c.card_id,
                deck=c.deck,
                section=c.section,
                recall=round(c.recall, 4),
                studied=c.studied,
            )
            for c in found.weakest
        ],
        plan=[PlanDayOut(date=d.day, reviews=d.reviews, new=d.new) for d in found.plan.days],
        unreachable=list(found.plan.unreachable),
        warnings=list(found.plan.warnings),
    )


@router.post("/interviews", status_code=201)
def add_interview(
    body: InterviewIn, session: SessionDep, database: DatabaseDep, learner: LearnerDep, now: NowDep
) -> InterviewOut:
    """Set an interview: its name, date and scope (folder, deck, section, tag)."""
    interview = create_interview(
        session,
        learner=learner,
        name=body.name,
        day=body.date,
        filters=Filters(
            deck=body.deck or None,
            section=body.section or None,
            tag=body.tag or None,
            folder=body.folder or None,
        ),
        now=now,
        target=body.target,
        database=database,
    )
    refresh_plan(session, learner=learner, now=now, database=database)
    return interview_out(interview)


@router.get("/interviews")
def list_interviews(session: SessionDep, learner: LearnerDep) -> list[InterviewOut]:
    """The learner's interviews, soonest first."""
    return [interview_out(i) for i in interviews(session, learner=learner)]


@router.delete("/interviews/{interview_id}", status_code=204)
def remove_interview(
    interview_id: RowId,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
) -> Response:
    delete_interview(session, learner=learner, interview_id=interview_id, database=database)
    refresh_plan(session, learner=learner, now=now, database=database)
    return Response(status_code=204)


@router.get("/interviews/{interview_id}/readiness")
def interview_readiness(
    interview_id: RowId, session: SessionDep, learner: LearnerDep, now: NowDep
) -> ReadinessOut:
    """Predicted recall on the day, per deck and section, the weakest cards and the plan."""
    interview = get_interview(session, learner=learner, interview_id=interview_id)
    ahead(session, learner=learner, now=now)
    return readiness_out(readiness(session, learner=learner, interview=interview, now=now))


Millis = Annotated[int, Field(ge=0, le=MAX_MS)]


class MockAnswerIn(BaseModel):
    card_id: Annotated[str, Field(max_length=200)]
    key: Annotated[str, Field(max_length=64, description="The checklist's key, as shown.")]
    said: Annotated[list[int], Field(max_length=200)] = Field(
        default=[], description="The key points said, numbered from 0."
    )
    followups_answered: Annotated[int, Field(ge=0, le=100)] = 0
    answer_ms: Millis = Field(description="From the question to the end of the main answer.")
    total_ms: Millis = Field(description="Follow-ups and checklist included.")
    rating: Rating | None = Field(default=None, description="None: the rating coverage suggests.")
    count_as_review: bool = False


class MockAnswerOut(BaseModel):
    card_id: str
    position: int
    rating: int
    points_said: list[int]
    points_total: int
    counted: bool
    finished: bool = Field(description="Every question of the session is answered.")
    replayed: bool = Field(description="A repeat: the first answer, nothing recorded again.")


@router.post(
    "/mocks/{mock_id}/answers",
    responses={
        404: {"description": "No such mock interview."},
        409: {"description": "Answered or over already, or the key points changed."},
    },
)
def answer_question(
    mock_id: RowId,
    body: MockAnswerIn,
    study: StudyDep,
    idempotency_key: IdempotencyKey = None,
) -> MockAnswerOut:
    """Record how one question of a mock interview went: key points said, times, rating."""
    run = get_mock(study.session, learner=study.learner, mock_id=mock_id)
    reply = Reply(
        card_id=body.card_id,
        said=body.said,
        key=body.key,
        followups_answered=body.followups_answered,
        answer_ms=body.answer_ms,
        total_ms=body.total_ms,
        rating=body.rating,
        count_as_review=body.count_as_review,
    )
    done = answer(study, run, reply, idempotency_key)
    found = done.answer
    return MockAnswerOut(
        card_id=found.card_id,
        position=found.position,
        rating=found.rating,
        points_said=list(found.points_said),
        points_total=found.points_total,
        counted=found.counted,
        finished=done.finished,
        replayed=done.replayed,
    )


class RecordingOut(BaseModel):
    id: int
    mock_id: int
    card_id: str
    type: str
    size: int
    url: str


def _recording_out(id: int, mock_id: int, card_id: str, mime: str, size: int) -> RecordingOut:
    url = f"/interview/recordings/{id}"
    return RecordingOut(id=id, mock_id=mock_id, card_id=card_id, type=mime, size=size, url=url)


async def _body(request: Request) -> bytes:
    """The request's body, refused as soon as it is known to be over the recording limit."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        declared = 0
    if declared > MAX_BYTES:
        raise TooLarge("recording_too_large", mb=MAX_BYTES // MB)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BYTES:
            raise TooLarge("recording_too_large", mb=MAX_BYTES // MB)
    return bytes(data)


@router.post(
    "/mocks/{mock_id}/recordings",
    status_code=201,
    responses={
        413: {"description": "Too large, or over the learner's recording quota."},
        415: {"description": "Not audio."},
    },
)
async def upload_recording(
    request: Request,
    mock_id: RowId,
    card_id: Annotated[str, Query(max_length=200)],
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    learner: LearnerDep,
    now: NowDep,
) -> RecordingOut:
    """Keep the answer to one question, spoken aloud; the body is the audio itself."""
    data = await _body(request)
    content_type = request.headers.get("content-type", "")

    def save() -> RecordingOut:
        run = get_mock(session, learner=learner, mock_id=mock_id)
        found = save_recording(
            session,
            learner=learner,
            run=run,
            card_id=card_id,
            content_type=content_type,
            data=data,
            now=now,
            quota=quota_bytes(session, default_mb=settings.recording_quota_mb),
            database=database,
        )
        return _recording_out(found.id, found.mock_id, found.card_id, found.mime, found.size)  # type: ignore[arg-type]

    return await run_in_threadpool(save)


@router.get("/recordings")
def list_recordings(session: SessionDep, learner: LearnerDep) -> list[RecordingOut]:
    """The learner's own recordings, the latest first."""
    return [_recording_out(*row) for row in recordings(session, learner=learner)]


class UsageOut(BaseModel):
    used: int = Field(description="Bytes of the learner's recordings.")
    quota: int = Field(description="Bytes the learner's recordings may take together.")


@router.get("/recordings/usage")
def recordings_usage(session: SessionDep, settings: SettingsDep, learner: LearnerDep) -> UsageOut:
    """How much of their recording quota the learner uses."""
    quota = quota_bytes(session, default_mb=settings.recording_quota_mb)
    found = usage(session, learner=learner, quota=quota)
    return UsageOut(used=found.used, quota=found.quota)


@router.delete("/recordings/{recording_id}", status_code=204)
def remove_recording(
    recording_id: RowId, session: SessionDep, database: DatabaseDep, learner: LearnerDep
) -> Response:
    delete_recording(session, learner=learner, recording_id=recording_id, database=database)
    return Response(status_code=204)
