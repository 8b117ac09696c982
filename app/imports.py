"""Re-importing the content directory as a background job, so no request waits on it.

The import is the whole instance's, not a learner's (`learner_id` None): one runs at a time,
whichever administrator starts it. Its result keeps the report's figures and warnings, or the
errors that stopped it, for the page that shows the job.
"""

import dataclasses
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.content.errors import ContentErrors
from app.content.sync import import_content
from app.jobs import JobFailed, Outcome, get_job, latest_job, start_job
from app.models import Job

KIND = "import"


def start_import(engine: Engine, content_dir: Path) -> Job:
    """Import `content_dir` in the background, or return the import already under way."""

    def work(_session: Session, _job: Job) -> Outcome:
        try:
            report = import_content(content_dir, engine)
        except ContentErrors as exc:
            errors = [str(e) for e in exc.errors]
            raise JobFailed(
                f"import failed with {len(errors)} error(s); the bank is unchanged",
                {"errors": errors},
            ) from exc
        figures = dataclasses.asdict(report) | {"warnings": [str(w) for w in report.warnings]}
        message = (
            f"{report.decks} decks, {report.topics} topics; cards: {report.added} added, "
            f"{report.updated} updated, {report.unchanged} unchanged, {report.retired} retired"
        )
        return message, figures

    return start_job(engine, kind=KIND, learner_id=None, work=work)


def import_job(session: Session, *, job_id: int | None) -> Job | None:
    """The import job with this id, or without one the latest import."""
    if job_id is None:
        return latest_job(session, kind=KIND, learner_id=None)
    job = get_job(session, job_id=job_id, learner_id=None)
    return job if job is not None and job.kind == KIND else None
