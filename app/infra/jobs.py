"""Background jobs: work too long for a request runs in a thread; a `job` row tells its status.

A job has a kind ("optimize", "import", …) and usually a learner. At most one job of a kind per
learner is unfinished at a time — the database enforces it (`Job.active_key` is unique while the
job is queued or running) — so starting one while another runs hands back the running one: a
double click, a second tab or a retried request never starts the work twice.

The jobs run on the app's Database, which keeps their threads. The work is a function of a
fresh session of it and the job's row; it returns a one-line message and an optional
JSON-ready result. An AppError it raises is the job's failure message (in English), with the
error's `result` (if it has one, as JobFailed does) kept so a page can word it in its own
language; anything else is logged and reported as an unexpected error. Pages poll
`GET /api/jobs/{id}`.
"""

import contextvars
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.errors import AppError, Invalid
from app.infra.db import Database
from app.infra.models import Job

log = logging.getLogger("qbank.jobs")

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
ACTIVE = (QUEUED, RUNNING)

# A job unfinished for this long belongs to a process that died (a restart mid-job): it no
# longer blocks a new one of its kind.
STALE_AFTER = timedelta(minutes=30)

POLL_SECONDS = 0.2

Outcome = tuple[str, dict[str, Any] | None]
Work = Callable[[Session, Job], Outcome]


class JobThreads:
    """The threads of the jobs a database's process runs, by job id (kept with the Database)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[int, threading.Thread] = {}

    def add(self, job_id: int, thread: threading.Thread) -> None:
        with self.lock:
            self.running[job_id] = thread

    def done(self, job_id: int) -> None:
        with self.lock:
            self.running.pop(job_id, None)

    def get(self, job_id: int) -> threading.Thread | None:
        with self.lock:
            return self.running.get(job_id)

    def all(self) -> list[threading.Thread]:
        with self.lock:
            return list(self.running.values())


class JobFailed(Invalid):
    """The work refused, with figures for its result (such as the problems it found)."""

    def __init__(self, code: str, result: dict[str, Any] | None = None, **values: object) -> None:
        super().__init__(code)
        self.values = values
        self.result = result


def _now() -> datetime:
    return datetime.now(UTC)


def _key(kind: str, learner_id: int | None) -> str:
    return f"{kind}:{learner_id if learner_id is not None else '-'}"


def active_job(session: Session, *, kind: str, learner_id: int | None) -> Job | None:
    """The unfinished job of this kind for this learner, if any."""
    return session.exec(select(Job).where(Job.active_key == _key(kind, learner_id))).first()


def latest_job(session: Session, *, kind: str, learner_id: int | None) -> Job | None:
    """The learner's most recent job of this kind, finished or not."""
    return session.exec(
        select(Job)
        .where(Job.kind == kind, Job.learner_id == learner_id)
        .order_by(col(Job.id).desc())
        .limit(1)
    ).first()


def get_job(session: Session, *, job_id: int, learner_id: int | None) -> Job | None:
    """The job with this id if it belongs to this learner."""
    job = session.get(Job, job_id)
    return job if job is not None and job.learner_id == learner_id else None


def _abandon_if_stale(
    database: Database, session: Session, job: Job, now: datetime, stale_after: timedelta
) -> bool:
    if job.created_at > now - stale_after:
        return False
    with database.writing(session):
        job.status, job.active_key, job.finished_at = FAILED, None, now
        job.message = "interrupted: the server stopped before this job finished"
        session.add(job)
    return True


def start_job(
    database: Database,
    *,
    kind: str,
    learner_id: int | None,
    work: Work,
    stale_after: timedelta = STALE_AFTER,
) -> Job:
    """Queue `work` in a background thread, or return the job of this kind already unfinished."""
    now = _now()
    with database.session(expire_on_commit=False) as session:
        running = active_job(session, kind=kind, learner_id=learner_id)
        if running is not None and not _abandon_if_stale(
            database, session, running, now, stale_after
        ):
            return running
        job = Job(kind=kind, learner_id=learner_id, active_key=_key(kind, learner_id))
        job.created_at = now
        try:
            with database.writing(session):
                session.add(job)
        except IntegrityError:  # another request started the same job a moment ago
            running = active_job(session, kind=kind, learner_id=learner_id)
            if running is None:  # it finished in between: start ours after all
                return start_job(database, kind=kind, learner_id=learner_id, work=work)
            return running
    assert job.id is not None
    # In the starting request's context, so that what the job logs carries the request's id.
    context = contextvars.copy_context()
    thread = threading.Thread(
        target=context.run,
        args=(_run, database, job.id, work),
        name=f"job-{kind}-{job.id}",
        daemon=True,
    )
    database.kept(JobThreads).add(job.id, thread)
    thread.start()
    return job


def _finish(
    database: Database, session: Session, job_id: int, status: str, outcome: Outcome
) -> None:
    with database.writing(session):
        job = session.get(Job, job_id)
        assert job is not None
        job.status, (job.message, job.result) = status, outcome
        job.active_key, job.finished_at = None, _now()
        session.add(job)


def _run(database: Database, job_id: int, work: Work) -> None:
    try:
        with database.session() as session:
            with database.writing(session):
                job = session.get(Job, job_id)
                assert job is not None
                job.status, job.started_at = RUNNING, _now()
                session.add(job)
            try:
                outcome, status = work(session, job), DONE
            except AppError as exc:
                session.rollback()
                outcome, status = (str(exc), getattr(exc, "result", None)), FAILED
            except Exception:
                session.rollback()
                log.exception("job %s (%s) failed", job_id, job.kind)
                outcome = ("unexpected error; the server log has the details", None)
                status = FAILED
            _finish(database, session, job_id, status, outcome)
    except Exception:  # the database itself failed; the job turns stale and stops blocking
        log.exception("job %s could not record its outcome", job_id)
    finally:
        database.kept(JobThreads).done(job_id)


def wait_for_job(database: Database, job_id: int, timeout: float | None = None) -> None:
    """Block until the job's thread in this process has finished (the CLI and tests wait)."""
    thread = database.kept(JobThreads).get(job_id)
    if thread is not None:
        thread.join(timeout)


def wait_for_all(database: Database, timeout: float | None = None) -> None:
    """Block until every job started on `database` has finished (shutdown and tests)."""
    for thread in database.kept(JobThreads).all():
        thread.join(timeout)


def run_job(database: Database, *, kind: str, learner_id: int | None, work: Work) -> Job:
    """Start the job (or join the unfinished one) and wait for it; return its final row."""
    job = start_job(database, kind=kind, learner_id=learner_id, work=work)
    assert job.id is not None
    wait_for_job(database, job.id)
    while True:  # a job another process runs has no thread here: watch its row instead
        with database.session(expire_on_commit=False) as session:
            final = session.get(Job, job.id)
            assert final is not None
            if final.status not in ACTIVE:
                return final
        time.sleep(POLL_SECONDS)
