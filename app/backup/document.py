"""The backup document: its format, validation (one clear line per refusal) and JSON text."""

import base64
import binascii
import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from app.errors import Invalid

FORMAT = "qbank-backup"
VERSION = 1
SETTINGS = (
    "timezone",
    "desired_retention",
    "new_per_day",
    "max_reviews_per_day",
    "rollover_hour",
    "fsrs_parameters",
    "leech_threshold",
    "leech_action",
    "load_balance",
    "easy_days",
    "timezone_chosen",
)
MARK_FIELDS = ("suspended", "buried_until", "flag", "leech")
STATE_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses")
# Nesting deeper than any backup qbank writes (4 levels) is refused before it is walked.
MAX_DEPTH = 16
# Moments outside these years are no schedule qbank made; they overflow date arithmetic.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
# Counts and ids, far past any real history and inside every database's integer.
MAX_COUNT = 2**31 - 1
# FSRS: stability in days, difficulty on its 1-10 scale.
MAX_STABILITY = 1_000_000.0


class BackupError(Invalid):
    """A backup document that cannot be restored; `reason` says why, in one line.

    The reason names a place in the document (a field, an index), which stays as written.
    """

    def __init__(self, reason: str) -> None:
        super().__init__("backup_invalid", reason=reason)


def utc(moment: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes (stored as UTC); SQLite also drops offsets when storing,
    # so anything written must be converted to UTC first.
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else utc(moment).isoformat()  # type: ignore[union-attr]


def dump_backup(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


class _Doc(BaseModel):
    # Unknown keys are ignored so that a newer qbank can add fields within one format version.
    # NaN and infinity are no number a schedule can use.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


def _sane_moment(moment: datetime) -> datetime:
    if not EARLIEST <= moment <= LATEST:
        raise ValueError(f"{moment.isoformat()} is outside {EARLIEST.year}-{LATEST.year - 1}")
    return moment


Moment = Annotated[AwareDatetime, AfterValidator(_sane_moment)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Stability = Annotated[float, Field(gt=0, le=MAX_STABILITY)]
Difficulty = Annotated[float, Field(ge=1, le=10)]
Step = Annotated[int, Field(ge=0, le=1000)]


class SettingsIn(_Doc):
    timezone: str = Field(min_length=1, max_length=64)
    desired_retention: float = Field(ge=0.7, le=0.99)
    new_per_day: int = Field(ge=0, le=9999)
    max_reviews_per_day: int = Field(ge=0, le=99999)
    rollover_hour: int = Field(ge=0, le=23)
    # Personal FSRS weights (app.scheduling.optimize); absent in older backups, None means the
    # defaults.
    # A set the model cannot use is not refused here: the restore keeps the rest and says so.
    fsrs_parameters: list[float] | None = None
    # Absent in backups made before leeches: the defaults.
    leech_threshold: int = Field(default=8, ge=0, le=99)
    leech_action: Literal["suspend", "tag"] = "suspend"
    # Absent in backups made before load balancing: off, no easy days.
    load_balance: bool = False
    easy_days: str = Field(default="", pattern=r"^[0-6]{0,6}$")
    # Whether the learner chose the zone (else the browser's is offered); absent in older
    # backups, where a zone other than UTC counts as chosen.
    timezone_chosen: bool | None = None

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise ValueError(f"unknown time zone '{value}'") from None
        return value


class LearnerIn(_Doc):
    name: str = ""
    settings: SettingsIn


class CardIn(_Doc):
    question: str = Field(default="", max_length=5000)
    deck: str = Field(default="", max_length=200)
    section: str = Field(default="", max_length=500)


CardId = Field(min_length=1, max_length=200)


class SnapshotIn(_Doc):
    """A card's schedule as the review log keeps it (CardStateValue.to_json)."""

    state: Literal[1, 2, 3]
    step: Step | None = None
    stability: Stability | None = None
    difficulty: Difficulty | None = None
    due: Moment
    last_review: Moment | None = None
    reps: Count = 0
    lapses: Count = 0

    def as_json(self) -> dict[str, Any]:
        """The review log's JSON form, with moments in UTC."""
        return {
            **self.model_dump(exclude={"due", "last_review"}),
            "due": iso(self.due),
            "last_review": iso(self.last_review),
        }


class StateIn(SnapshotIn):
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
    rating: int = Field(ge=1, le=4)
    mode: Literal["study", "practice"]
    queue: Literal["new", "learning", "review", "relearning", "practice"]
    reviewed_at: Moment
    duration_ms: Count | None = None
    state_before: SnapshotIn | None = None
    state_after: SnapshotIn | None = None
    undone_at: Moment | None = None
    practice_id: Count | None = None

    def key(self) -> tuple[str, datetime, int, str]:
        return (self.card_id, utc(self.reviewed_at), self.rating, self.mode)  # type: ignore[return-value]


class InterviewIn(_Doc):
    name: str = Field(min_length=1, max_length=200)
    date: date
    deck: str | None = Field(default=None, max_length=200)
    section: str | None = Field(default=None, max_length=500)
    tag: str | None = Field(default=None, max_length=200)
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
    rating: int = Field(ge=1, le=4)
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
