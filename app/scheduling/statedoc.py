"""A card's schedule as a document: the review log's JSON and the backup's, read and written.

`CardStateValue` is the schedule the code works with; `StateDoc` is its one written form. The
review log stores `StateDoc.of(value).to_json()`, the backup exports and restores the same
document, and reading either validates it, so a row written by an older qbank (without `reps`
and `lapses`) and a hand-edited backup go through the same checks.
"""

from datetime import UTC, datetime
from typing import Annotated, Any, Self

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, field_serializer

from app.scheduling.cardstate import SCHEDULE_FIELDS, CardStateValue, State

# Moments outside these years are no schedule qbank made; they overflow date arithmetic.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
# Counts and ids, far past any real history and inside every database's integer.
MAX_COUNT = 2**31 - 1
# FSRS: stability in days, difficulty on its 1-10 scale.
MAX_STABILITY = 1_000_000.0


def _sane_moment(moment: datetime) -> datetime:
    if not EARLIEST <= moment <= LATEST:
        raise ValueError(f"{moment.isoformat()} is outside {EARLIEST.year}-{LATEST.year - 1}")
    # In UTC: SQLite drops the offset of what it stores.
    return moment.astimezone(UTC)


Moment = Annotated[AwareDatetime, AfterValidator(_sane_moment)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Stability = Annotated[float, Field(gt=0, le=MAX_STABILITY)]
Difficulty = Annotated[float, Field(ge=1, le=10)]
Step = Annotated[int, Field(ge=0, le=1000)]


class Document(BaseModel):
    """A written form: unknown keys are ignored, so a newer qbank can add fields; NaN and
    infinity are no number a schedule can use."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


class StateDoc(Document):
    state: State
    step: Step | None = None
    stability: Stability | None = None
    difficulty: Difficulty | None = None
    due: Moment
    last_review: Moment | None = None
    # Absent in log rows written before they were kept.
    reps: Count = 0
    lapses: Count = 0

    @field_serializer("due", "last_review")
    def _iso(self, moment: datetime | None) -> str | None:
        # Python's form (+00:00), as every log row and backup has had it.
        return None if moment is None else moment.isoformat()

    @classmethod
    def of(cls, value: CardStateValue) -> Self:
        return cls.model_validate(value, from_attributes=True)

    def value(self) -> CardStateValue:
        return CardStateValue(**{name: getattr(self, name) for name in SCHEDULE_FIELDS})

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", include=set(STATE_FIELDS))


# The schedule's own fields: a subclass's (a backup's card id and version) are not logged.
STATE_FIELDS = frozenset(StateDoc.model_fields)


def logged_state(data: dict[str, Any]) -> CardStateValue:
    """The schedule a review log row keeps (its `state_before` or `state_after`)."""
    return StateDoc.model_validate(data).value()


def log_json(value: CardStateValue) -> dict[str, Any]:
    """`value` as the review log keeps it."""
    return StateDoc.of(value).to_json()
