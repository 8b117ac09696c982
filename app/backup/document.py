"""The backup document: its format, validation (one clear line per refusal) and JSON text."""

import base64
import binascii
import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from app.accounts.settings import LearnerSettings
from app.errors import Invalid
from app.scheduling.cardstate import Mode, Queue, Rating
from app.scheduling.statedoc import MAX_COUNT, Count, Document, Moment, StateDoc

FORMAT = "qbank-backup"
VERSION = 1
MARK_FIELDS = ("suspended", "buried_until", "flag", "leech")
# Nesting deeper than any backup qbank writes (4 levels) is refused before it is walked.
MAX_DEPTH = 16


class BackupError(Invalid):
    """A backup document that cannot be restored; `reason` says why, in one line.

    The reason names a place in the document (a field, an index), which stays as written.
    """

    def __init__(self, reason: str) -> None:
        super().__init__("backup_invalid", reason=reason)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def dump_backup(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


class _Doc(BaseModel):
    model_config = Document.model_config


class SettingsIn(LearnerSettings):
    """The learner's settings in the backup, with what the learner did not type in."""

    # Personal FSRS weights (app.scheduling.optimize); absent in older backups, None means the
    # defaults. A set the model cannot use is not refused here: the restore keeps the rest and
    # says so.
    fsrs_parameters: list[float] | None = None
    # Whether the learner chose the zone (else the browser's is offered); absent in older
    # backups, where a zone other than UTC counts as chosen.
    timezone_chosen: bool | None = None


class LearnerIn(_Doc):
    name: str = ""
    settings: SettingsIn


class CardIn(_Doc):
    question: str = Field(default="", max_length=5000)
    deck: str = Field(default="", max_length=200)
    section: str = Field(default="", max_length=500)


CardId = Field(min_length=1, max_length=200)


class StateIn(StateDoc):
    """A card's schedule in the backup: the review log's document, with its card and version."""

    card_id: str = CardId
    version: Count = 1


class MarkIn(_Doc):
    card_id: str = CardId
    suspended: bool = False
    buried_until: Moment | None = None
    flag: int = Field(default=0, ge=0, le=7)
    leech: bool = False


class PracticeIn(_Doc):
    id: Count
    card_ids: list[Annotated[str, CardId]] = Field(default=[], max_length=10_000)
    position: Count = 0
    seconds_per_card: Count = 0
    label: str = Field(default="", max_length=200)
    started_at: Moment
    finished_at: Moment | None = None


class ReviewIn(_Doc):
    card_id: str = CardId
    rating: Rating
    mode: Mode
    queue: Queue
    reviewed_at: Moment
    duration_ms: Count | None = None
    state_before: StateDoc | None = None
    state_after: StateDoc | None = None
    undone_at: Moment | None = None
    practice_id: Count | None = None

    def key(self) -> tuple[str, datetime, int, str]:
        return (self.card_id, self.reviewed_at, self.rating, self.mode)


class InterviewIn(_Doc):
    name: str = Field(min_length=1, max_length=200)
    date: date
    deck: str | None = Field(default=None, max_length=200)
    section: str | None = Field(default=None, max_length=500)
    tag: str | None = Field(default=None, max_length=200)
    folder: str | None = Field(default=None, max_length=500)
    target: float = Field(default=0.9, ge=0.7, le=0.99)


class MockAnswerIn(_Doc):
    card_id: str = Field(min_length=1, max_length=200)
    position: Count = 0
    answer_ms: Count = 0
    total_ms: Count = 0
    limit_ms: Count = 0
    points_total: Count = 0
    points_said: list[Count] = Field(default=[], max_length=1000)
    followups_total: Count = 0
    followups_answered: Count = 0
    rating: Rating
    counted: bool = False
    answered_at: Moment


class MockIn(_Doc):
    id: Count
    card_ids: list[Annotated[str, CardId]] = Field(default=[], max_length=10_000)
    position: Count = 0
    seconds_per_question: int = Field(default=120, ge=1, le=MAX_COUNT)
    followup_seconds: int = Field(default=60, ge=1, le=MAX_COUNT)
    order: str = Field(default="random", max_length=20)
    label: str = Field(default="", max_length=200)
    started_at: Moment
    finished_at: Moment | None = None
    answers: list[MockAnswerIn] = []


class RecordingIn(_Doc):
    mock_id: Count
    card_id: str = Field(min_length=1, max_length=200)
    type: str = Field(max_length=100)
    data: str  # base64
    created_at: Moment


class BackupIn(_Doc):
    format: Literal["qbank-backup"]
    version: Literal[1]
    learner: LearnerIn
    cards: dict[str, CardIn] = {}
    states: list[StateIn] = []
    marks: list[MarkIn] = []
    practice: list[PracticeIn] = []
    reviews: list[ReviewIn] = []
    # Absent in backups made before interview mode (app.backup.interviews).
    interviews: list[InterviewIn] = []
    mocks: list[MockIn] = []
    recordings: list[RecordingIn] = []


def _problem(error: Mapping[str, Any]) -> str:
    where = ""
    for part in error["loc"]:
        where += f"[{part}]" if isinstance(part, int) else f".{part}" if where else str(part)
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def _no_constant(name: str) -> float:
    raise BackupError(f"invalid backup: {name} is not a number a backup can hold")


def _too_deep() -> str:
    return f"invalid backup: nested deeper than {MAX_DEPTH} levels"


def _check_depth(data: object) -> None:
    """Refuse nesting deeper than MAX_DEPTH, walking without recursion."""
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise BackupError(_too_deep())
        pending.extend((child, depth + 1) for child in children)


def parse_backup(data: Mapping[str, Any] | str | bytes) -> BackupIn:
    """Check a backup document (or its JSON text) completely; BackupError says what is wrong."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise BackupError("not a qbank backup: the file is not UTF-8 text") from None
    if isinstance(data, str):
        try:
            data = json.loads(data, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}"
            raise BackupError(f"not a qbank backup: invalid JSON ({exc.msg} at {where})") from None
        except RecursionError:
            raise BackupError(_too_deep()) from None
    if not isinstance(data, Mapping):
        raise BackupError("not a qbank backup: expected a JSON object")
    _check_depth(data)
    if data.get("format") != FORMAT:
        raise BackupError(f"not a qbank backup: 'format' should be '{FORMAT}'")
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise BackupError(
            f"this backup has format version {version}, newer than this qbank reads ({VERSION}); "
            "upgrade qbank to restore it"
        )
    try:
        doc = BackupIn.model_validate(data)
    except ValidationError as exc:
        problems = exc.errors()
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise BackupError(f"invalid backup: {_problem(problems[0])}{more}") from None
    runs = {run.id for run in doc.practice}
    for index, review in enumerate(doc.reviews):
        if review.practice_id is not None and review.practice_id not in runs:
            where = f"reviews[{index}].practice_id"
            raise BackupError(f"invalid backup: {where}: no practice run {review.practice_id}")
    _check_recordings(doc.mocks, doc.recordings)
    seen: set[str] = set()
    for index, state in enumerate(doc.states):
        if state.card_id in seen:
            raise BackupError(f"invalid backup: states[{index}]: card '{state.card_id}' twice")
        seen.add(state.card_id)
    return doc


def _check_recordings(mocks: list[MockIn], recordings: list[RecordingIn]) -> None:
    """Refuse recordings of unknown mock interviews or that are not audio, before any write."""
    from app.interview.recordings import MAX_BYTES, check_audio

    ids = {m.id for m in mocks}
    for index, recording in enumerate(recordings):
        where = f"invalid backup: recordings[{index}]"
        if recording.mock_id not in ids:
            raise BackupError(f"{where}.mock_id: no mock interview {recording.mock_id}")
        try:
            data = base64.b64decode(recording.data, validate=True)
        except (binascii.Error, ValueError):
            raise BackupError(f"{where}.data: not base64") from None
        if len(data) > MAX_BYTES:
            raise BackupError(f"{where}.data: larger than {MAX_BYTES // (1024 * 1024)} MB")
        try:
            check_audio(recording.type, data)
        except Exception as exc:
            raise BackupError(f"{where}: {exc}") from None
