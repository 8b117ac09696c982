"""Importing the content directory, with every import's report kept as a job row.

Every import that changes the bank keeps its outcome in one place, a `job` row of kind
"import" (the whole instance's, `learner_id` None): its figures and warnings, or the errors
that stopped it, and who started it (`qbank import`, `qbank serve` at start-up, `--watch`, the
admin page). The admin page runs it as a background job, so no request waits on it; the
others record it as they finish. The import report page shows the latest.
"""

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from app.content.bank.sync import ImportReport, import_content
from app.content.errors import ContentError, ContentErrors
from app.infra.db import Database
from app.infra.jobs import DONE, FAILED, JobFailed, Outcome, get_job, latest_job, start_job
from app.infra.models import Job

KIND = "import"
SOURCES = ("cli", "serve", "watch", "admin")


def _outcome(report: ImportReport, source: str) -> Outcome:
    """The job's message and result for an import that finished."""
    figures = {k: v for k, v in dataclasses.asdict(report).items() if k not in ("files",)}
    figures |= {"source": source, "warnings": [_problem(w) for w in report.warnings]}
    message = (
        f"{report.decks} decks, {report.topics} topics; cards: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.retired} retired"
    )
    return message, figures


def _failure(errors: list[ContentError], source: str) -> JobFailed:
    return JobFailed(
        "import_failed",
        {"source": source, "errors": [_problem(e) for e in errors]},
        count=len(errors),
    )


def _problem(error: ContentError) -> dict[str, Any]:
    # The English message for readers of the row; the code and values word it in any language.
    said = error.said
    return {
        "path": error.path,
        "line": error.line,
        "message": said.message,
        "code": said.code,
        "values": dict(said.values),
    }


def start_import(database: Database, content_dir: Path) -> Job:
    """Import `content_dir` in the background, or return the import already under way."""

    def work(_session: Session, _job: Job) -> Outcome:
        try:
            report = import_content(content_dir, database)
        except ContentErrors as exc:
            raise _failure(exc.errors, "admin") from exc
        return _outcome(report, "admin")

    return start_job(database, kind=KIND, learner_id=None, work=work)


def recorded_import(
    database: Database, content_dir: Path, *, source: str, strict: bool = False
) -> ImportReport:
    """Import `content_dir` here and now, keeping its report (or its errors) as an import job.

    Raises ContentErrors, as import_content does, once the failure is recorded.
    """
    started = datetime.now(UTC)
    try:
        report = import_content(content_dir, database, strict=strict)
    except ContentErrors as exc:
        failed = _failure(exc.errors, source)
        _record(database, started, FAILED, str(failed), failed.result)
        raise
    _record(database, started, DONE, *_outcome(report, source))
    return report


def _record(
    database: Database,
    started: datetime,
    status: str,
    message: str,
    result: dict[str, Any] | None,
) -> None:
    with database.session() as session, database.writing(session):
        job = Job(kind=KIND, learner_id=None, status=status, message=message, result=result)
        job.created_at = job.started_at = started
        job.finished_at = datetime.now(UTC)
        session.add(job)


def import_job(session: Session, *, job_id: int | None) -> Job | None:
    """The import job with this id, or without one the latest import."""
    if job_id is None:
        return latest_job(session, kind=KIND, learner_id=None)
    job = get_job(session, job_id=job_id, learner_id=None)
    return job if job is not None and job.kind == KIND else None


@dataclass
class FileProblems:
    """One file's warnings (or errors), in line order."""

    path: str
    problems: list[dict[str, Any]] = field(default_factory=list)


# How a problem read "path:line: message" before imports kept them as fields.
_PROBLEM_TEXT = re.compile(r"^(?P<path>.*?):(?P<line>\d+): (?P<message>.*)$", re.DOTALL)


def by_file(problems: list[Any]) -> list[FileProblems]:
    """Problems kept by an import, grouped by file in path order, each file's in line order."""
    files: dict[str, FileProblems] = {}
    for problem in problems:
        if isinstance(problem, str):
            match = _PROBLEM_TEXT.match(problem)
            problem = (
                {**match.groupdict(), "line": int(match["line"])}
                if match
                else {"path": "", "line": 0, "message": problem}
            )
        files.setdefault(problem["path"], FileProblems(problem["path"])).problems.append(problem)
    for found in files.values():
        found.problems.sort(key=lambda p: p["line"])
    return sorted(files.values(), key=lambda f: f.path)


@dataclass
class ImportView:
    """What the import report page shows: the job, its figures, its problems by file."""

    job: Job | None
    result: dict[str, Any]
    files: list[FileProblems]

    @property
    def problem_count(self) -> int:
        return sum(len(f.problems) for f in self.files)


# How many recent imports the report page looks through for one that read notes.
RECENT = 50


def _read_notes(job: Job) -> bool:
    result = job.result or {}
    return job.status != DONE or bool(result.get("files_read") or result.get("retired"))


def latest_report(session: Session) -> ImportView:
    """The latest import that read notes (or failed, or runs), its problems grouped by file.

    An import that found every note unchanged reads none, so it has not their warnings;
    `qbank serve` runs one at every start. It is shown only when no other import is recent.
    """
    recent = session.exec(
        select(Job)
        .where(Job.kind == KIND, col(Job.learner_id).is_(None))
        .order_by(col(Job.id).desc())
        .limit(RECENT)
    ).all()
    job = next((j for j in recent if _read_notes(j)), recent[0] if recent else None)
    result = (job.result if job else None) or {}
    return ImportView(job, result, by_file(result.get("warnings") or result.get("errors") or []))
