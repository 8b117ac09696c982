"""Answers spoken aloud in mock interviews: kept per learner, private, deletable, limited."""

from datetime import datetime

from sqlmodel import Session, col, select

from app.errors import NotFound, StudyError
from app.models import Learner, MockSession, Recording

MAX_BYTES = 8 * 1024 * 1024  # about 15 minutes of Opus speech at browsers' default rate


class TooLarge(StudyError):
    status = 413


class WrongType(StudyError):
    status = 415


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
        raise TooLarge(f"a recording may be at most {MAX_BYTES // (1024 * 1024)} MB")
    if not data:
        raise StudyError("the recording is empty")
    mime = content_type.split(";")[0].strip().lower()
    if mime == "video/webm":  # what some browsers call an audio-only WebM
        mime = "audio/webm"
    if mime not in TYPES:
        raise WrongType(f"recordings must be audio ({', '.join(TYPES[:5])}), not '{mime or '—'}'")
    if not _is(data, mime):
        raise WrongType(f"the recording's bytes are not {mime}")
    return mime


def save_recording(
    session: Session,
    *,
    learner: Learner,
    run: MockSession,
    card_id: str,
    content_type: str,
    data: bytes,
    now: datetime,
) -> Recording:
    """Keep a question's recording, replacing an earlier one of the same question."""
    mime = check_audio(content_type, data)
    if card_id not in run.card_ids:
        raise NotFound("that question is not part of this mock interview")
    old = session.exec(
        select(Recording).where(Recording.mock_id == run.id, Recording.card_id == card_id)
    ).first()
    if old is not None:
        session.delete(old)
        session.flush()
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
    session.commit()
    session.refresh(recording)
    return recording


def get_recording(session: Session, *, learner: Learner, recording_id: int) -> Recording:
    found = session.get(Recording, recording_id)
    # Another learner's recording is missing to everyone else, administrators included.
    if found is None or found.learner_id != learner.id:
        raise NotFound("no such recording")
    return found


def delete_recording(session: Session, *, learner: Learner, recording_id: int) -> Recording:
    found = get_recording(session, learner=learner, recording_id=recording_id)
    session.delete(found)
    session.commit()
    return found


def recordings(session: Session, *, learner: Learner) -> list[tuple[int, int, str, str, int]]:
    """(id, mock id, card id, type, size) of the learner's recordings, the latest first."""
    return [
        tuple(row)  # type: ignore[misc]
        for row in session.exec(
            select(
                Recording.id, Recording.mock_id, Recording.card_id, Recording.mime, Recording.size
            )
            .where(Recording.learner_id == learner.id)
            .order_by(col(Recording.id).desc())
        )
    ]
