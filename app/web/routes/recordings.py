"""Recording pages: the audio of one answer, the learner's recordings and the space they use."""

from typing import Annotated, Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from sqlmodel import Session
from starlette.responses import Response

from app.config import Settings
from app.infra.models import Learner
from app.interview.recordings import (
    Usage,
    delete_recording,
    get_recording,
    megabytes,
    oldest_first,
    quota_bytes,
    usage,
)
from app.web.deps import DatabaseDep, LearnerDep, RowId, SessionDep, SettingsDep
from app.web.templating import render, templates

router = APIRouter(include_in_schema=False)

templates.env.filters["mb"] = megabytes


def recording_space(session: Session, settings: Settings, learner: Learner) -> Usage:
    """How much of their recording quota the learner uses, for a page to show."""
    quota = quota_bytes(session, default_mb=settings.recording_quota_mb)
    return usage(session, learner=learner, quota=quota)


@router.get("/interview/recordings")
def recordings_page(
    request: Request, session: SessionDep, settings: SettingsDep, learner: LearnerDep
) -> Response:
    """The learner's recordings, the oldest first, each with a button that deletes it."""
    context = {
        "recordings": oldest_first(session, learner=learner),
        "space": recording_space(session, settings, learner),
    }
    return render(request, "recordings.html", context)


@router.get("/interview/recordings/{recording_id}")
def recording_audio(recording_id: RowId, session: SessionDep, learner: LearnerDep) -> Response:
    found = get_recording(session, learner=learner, recording_id=recording_id)
    # Private: never kept by shared caches; the audio type was checked when it was stored.
    headers = {"Cache-Control": "private, max-age=3600"}
    return Response(found.data, media_type=found.mime, headers=headers)


@router.post("/interview/recordings/{recording_id}/delete")
def recording_delete(
    recording_id: RowId,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    back: Annotated[Literal["summary", "list"], Form()] = "summary",
) -> Response:
    found = delete_recording(session, learner=learner, recording_id=recording_id, database=database)
    if back == "list":
        return RedirectResponse("/interview/recordings", status_code=303)
    return RedirectResponse(f"/interview/mock/{found.mock_id}/summary", status_code=303)
