"""Answers spoken aloud in mock interviews: kept per learner, private, deletable, limited.

Each learner's recordings together stay within a quota (the server's setting, or the one an
administrator set for the team). Uploads and restores check it and add their rows in one write
transaction that holds the learner's lock, so requests at once, in any worker, take turns and
none can pass the quota by arriving while another is being stored.
"""

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.errors import Invalid, NotFound, TooLarge, WrongType
from app.infra.db import Database
from app.infra.models import Learner, MockSession, Recording, TeamLimits
from app.infra.owned import owned

MB = 1024 * 1024
MAX_BYTES = 8 * MB  # about 15 minutes of Opus speech at browsers' default rate


class OverQuota(TooLarge):
    """A recording, or a backup's recordings, past the learner's recording space."""


@dataclass(frozen=True)
class Usage:
    """How much of their recording quota a learner uses, in bytes."""

    used: int
    quota: int


def megabytes(size: int) -> str:
    """`size` bytes as MB with one decimal, as the quota's messages show it."""
    return f"{size / MB:.1f}"


def team_quota_mb(session: Session) -> int | None:
    """The recording quota an administrator set for every member, if any."""
    limits = session.get(TeamLimits, 1)
    return limits.recording_quota_mb if limits is not None else None


def set_team_quota(session: Session, *, database: Database, quota_mb: int | None) -> None:
    """Set every member's recording quota (None: the server's setting)."""
    if quota_mb is not None and not 0 <= quota_mb <= 1024 * 1024:
        raise Invalid("quota_out_of_range", key="limits.quota_range")
    with database.writing(session):
        limits = session.get(TeamLimits, 1) or TeamLimits(id=1)
        limits.recording_quota_mb = quota_mb
        session.add(limits)


def quota_bytes(session: Session, *, default_mb: int) -> int:
    """Each learner's recording quota: the team's, else the server's `default_mb`."""
    chosen = team_quota_mb(session)
    return (default_mb if chosen is None else chosen) * MB


def used_bytes(session: Session, *, learner: Learner) -> int:
    """The bytes of the learner's recordings."""
    total = session.exec(
        select(func.coalesce(func.sum(Recording.size), 0)).where(Recording.learner_id == learner.id)
    ).one()
    return int(total)


def usage(session: Session, *, learner: Learner, quota: int) -> Usage:
    return Usage(used_bytes(session, learner=learner), quota)


def check_room(session: Session, *, learner: Learner, adding: int, quota: int, key: str) -> None:
    """Refuse (OverQuota, worded by `key`) adding `adding` bytes the quota has no room for.

    Call it in a write transaction that holds the learner's lock (`database.lock_learner`),
    which is what makes the check and the rows added after it one step.
    """
    used = used_bytes(session, learner=learner)
    if used + adding > quota:
        raise OverQuota(
            "recording_quota_exceeded",
            key=key,
            size=megabytes(adding),
            used=megabytes(used),
            quota=megabytes(quota),
        )


def _is(data: bytes, mime: str) -> bool:
    """Whether the bytes start the way a file of that audio type does."""
    if mime == "audio/webm":
        return data[:4] == b"\x1a\x45\xdf\xa3"  # EBML
    if mime == "audio/ogg":
        return data[:4] == b"OggS"
    if mime == "audio/mp4":
        return data[4:8] == b"ftyp"
    if mime == "audio/mpeg":
        return data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0)
    if mime in ("audio/wav", "audio/x-wav"):
        return data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    return False


TYPES = ("audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/wav", "audio/x-wav")


def check_audio(content_type: str, data: bytes) -> str:
    """The recording's audio type; TooLarge or WrongType say what is wrong with it."""
    if len(data) > MAX_BYTES:
        raise TooLarge("recording_too_large", mb=MAX_BYTES // MB)
    if not data:
        raise Invalid("recording_empty")
    mime = content_type.split(";")[0].strip().lower()
    if mime == "video/webm":  # what some browsers call an audio-only WebM
        mime = "audio/webm"
    if mime not in TYPES:
        raise WrongType("recording_not_audio", types=", ".join(TYPES[:5]), mime=mime or "—")
    if not _is(data, mime):
        raise WrongType("recording_bytes_mismatch", mime=mime)
    return mime


def save_recording(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    run: MockSession,
    card_id: str,
    content_type: str,
    data: bytes,
    now: datetime,
    quota: int,
) -> Recording:
    """Keep a question's recording, replacing an earlier one of the same question."""
    mime = check_audio(content_type, data)
    if card_id not in run.card_ids:
        raise NotFound("question_not_in_mock")
    with database.writing(session):
        database.lock_learner(session, learner.id)  # type: ignore[arg-type]
        old = session.exec(
            select(Recording).where(Recording.mock_id == run.id, Recording.card_id == card_id)
        ).first()
        if old is not None:
            session.delete(old)
            session.flush()
        check_room(session, learner=learner, adding=len(data), quota=quota, key="limits.full")
        recording = Recording(
            learner_id=learner.id,  # type: ignore[arg-type]
            mock_id=run.id,  # type: ignore[arg-type]
            card_id=card_id,
            mime=mime,
            size=len(data),
            data=data,
            created_at=now,
        )
        session.add(recording)
    session.refresh(recording)
    return recording


def get_recording(session: Session, *, learner: Learner, recording_id: int) -> Recording:
    return owned(session, Recording, recording_id, learner=learner, code="recording_not_found")


def delete_recording(
    session: Session, *, database: Database, learner: Learner, recording_id: int
) -> Recording:
    with database.writing(session):
        found = get_recording(session, learner=learner, recording_id=recording_id)
        session.delete(found)
    return found


def recordings(session: Session, *, learner: Learner) -> list[tuple[int, int, str, str, int]]:
    """(id, mock id, card id, type, size) of the learner's recordings, the latest first."""
    return [
        (row[0], row[1], row[2], row[3], row[4])
        for row in session.execute(
            sa.select(
                col(Recording.id),
                col(Recording.mock_id),
                col(Recording.card_id),
                col(Recording.mime),
                col(Recording.size),
            )
            .where(col(Recording.learner_id) == learner.id)
            .order_by(col(Recording.id).desc())
        )
    ]


@dataclass(frozen=True)
class Kept:
    """A recording as the recordings list shows it, its audio left unread."""

    id: int
    mock_id: int
    card_id: str
    size: int
    created_at: datetime


def oldest_first(session: Session, *, learner: Learner) -> list[Kept]:
    """The learner's recordings, the oldest first: the ones to delete to make room."""
    rows = session.execute(
        sa.select(
            col(Recording.id),
            col(Recording.mock_id),
            col(Recording.card_id),
            col(Recording.size),
            col(Recording.created_at),
        )
        .where(col(Recording.learner_id) == learner.id)
        .order_by(col(Recording.created_at), col(Recording.id))
    )
    return [Kept(row.id, row.mock_id, row.card_id, row.size, row.created_at) for row in rows]


def used_by_learner(session: Session) -> dict[int, int]:
    """The bytes of every learner's recordings, by learner id (learners with none left out)."""
    rows = session.exec(
        select(Recording.learner_id, func.sum(Recording.size)).group_by(col(Recording.learner_id))
    )
    return {learner_id: int(total) for learner_id, total in rows}
