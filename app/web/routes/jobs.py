"""A background job's status, polled by the pages that start one: GET /api/jobs/{id}."""

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.errors import NotFound
from app.infra.jobs import get_job
from app.infra.models import Job
from app.web.deps import LearnerDep, RowId, SessionDep, SettingsDep

api = APIRouter(prefix="/api", tags=["api"])


class JobOut(BaseModel):
    id: int
    kind: str = Field(description="What the job does, e.g. optimize.")
    status: str = Field(description="queued, running, done or failed.")
    finished: bool = Field(description="done or failed: polling can stop.")
    message: str = Field(description="One line: the outcome, or why the job failed.")
    result: dict[str, Any] | None = Field(description="The job's figures, when done.")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


def job_out(job: Job) -> JobOut:
    assert job.id is not None
    return JobOut(
        id=job.id,
        kind=job.kind,
        status=job.status,
        finished=job.status in ("done", "failed"),
        message=job.message,
        result=job.result,
        created_at=job.created_at,
        started_at=job.started_at if job.started_at else None,
        finished_at=job.finished_at if job.finished_at else None,
    )


@api.get("/jobs/{job_id}", responses={404: {"description": "No such job of this learner"}})
def job_status(
    job_id: RowId, session: SessionDep, learner: LearnerDep, settings: SettingsDep
) -> JobOut:
    """A job of the learner's, or an administrator's view of the instance's (an import)."""
    job = get_job(session, job_id=job_id, learner_id=learner.id)
    if job is None and (learner.is_admin or not settings.team):
        job = get_job(session, job_id=job_id, learner_id=None)
    if job is None:
        raise NotFound("job_not_found", job=job_id)
    return job_out(job)
