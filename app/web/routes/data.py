"""Take your data with you: Anki export, backup downloads and restore, for the current learner."""

import io
from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, File, Query, Request, UploadFile
from sqlmodel import Session
from starlette.responses import Response

from app.backup import BackupError, dump_backup, export_learner, log_csv, restore_learner
from app.errors import TooLarge
from app.export.anki import export_apkg
from app.infra.models import Learner
from app.interview.recordings import quota_bytes
from app.study.marks import learner_marks
from app.web.deps import DatabaseDep, LearnerDep, SessionDep, SettingsDep
from app.web.i18n import language, say
from app.web.routes.settings import settings_response

router = APIRouter(include_in_schema=False)

MAX_BACKUP_BYTES = 64 * 1024 * 1024


def _download(body: bytes, media_type: str, filename: str) -> Response:
    # RFC 6266: an ASCII fallback name plus the UTF-8 one, since slugs and names may be Chinese.
    fallback = filename.encode("ascii", "replace").decode().replace("?", "_").replace('"', "_")
    disposition = f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename)}"
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d")


@router.get("/export/anki")
def export_anki(
    session: SessionDep,
    settings: SettingsDep,
    learner: LearnerDep,
    deck: Annotated[str | None, Query(max_length=200)] = None,
) -> Response:
    # Links point at the configured public address only: the request's Host header is the
    # client's to choose, and a loopback address means nothing on another device.
    buffer = io.BytesIO()
    export_apkg(
        session=session,
        deck_slug=deck or None,
        path=buffer,
        base_url=settings.public_url,
        content_dir=settings.content_dir,
        # The learner's own suspended cards, flags and leeches go along.
        marks=learner_marks(session, learner=learner),
    )
    return _download(buffer.getvalue(), "application/octet-stream", f"qbank-{deck or 'all'}.apkg")


def backup_download(session: Session, learner: Learner) -> Response:
    """A learner's settings, schedule and review log as a JSON download."""
    data = export_learner(session=session, learner=learner)
    name = f"qbank-backup-{learner.name}-{_stamp()}.json"
    return _download(dump_backup(data).encode(), "application/json", name)


def log_download(session: Session, learner: Learner) -> Response:
    """A learner's review log as a CSV download."""
    # With a byte-order mark, spreadsheet programs read the Chinese text as UTF-8.
    body = log_csv(session=session, learner=learner).encode("utf-8-sig")
    name = f"qbank-log-{learner.name}-{_stamp()}.csv"
    return _download(body, "text/csv; charset=utf-8", name)


def read_backup(file: UploadFile) -> bytes:
    raw = file.file.read(MAX_BACKUP_BYTES + 1)
    if len(raw) > MAX_BACKUP_BYTES:
        raise TooLarge("backup_too_large", mb=MAX_BACKUP_BYTES // 2**20)
    return raw


@router.get("/backup.json")
def backup_json(session: SessionDep, learner: LearnerDep) -> Response:
    return backup_download(session, learner)


@router.get("/backup/log.csv")
def backup_log(session: SessionDep, learner: LearnerDep) -> Response:
    return log_download(session, learner)


@router.post("/backup/restore")
def restore(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    settings: SettingsDep,
    file: Annotated[UploadFile, File()],
) -> Response:
    try:
        # In team mode the bank is shared: cards it lacks are left out, never added to it.
        raw = read_backup(file)
        report = restore_learner(
            session=session,
            learner=learner,
            data=raw,
            new_cards=not settings.team,
            recording_quota=quota_bytes(session, default_mb=settings.recording_quota_mb),
            database=database,
        )
    except (BackupError, TooLarge) as exc:  # TooLarge: the file, or its recordings
        error = say(exc, language(request))
        return settings_response(
            request, session, learner, status_code=exc.status, restore_error=error
        )
    return settings_response(request, session, learner, restored=report)
