"""A learner's state of a card in typed form (its written form: app.scheduling.statedoc)."""

from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from enum import IntEnum, StrEnum
from typing import Any

from fsrs import Card as FsrsCard
from fsrs import State as FsrsState


class Rating(IntEnum):
    """A learner's answer, as in Anki and FSRS."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4


class State(IntEnum):
    """The FSRS state, as stored in card_state.state."""

    LEARNING = 1
    REVIEW = 2
    RELEARNING = 3

    @property
    def queue(self) -> "Queue":
        return Queue(self.name.lower())


class Queue(StrEnum):
    """Which queue a card is in for the learner; a card without a state is new."""

    NEW = "new"
    LEARNING = "learning"
    REVIEW = "review"
    RELEARNING = "relearning"
    # Logged for a practice rating, which moves no card from its queue.
    PRACTICE = "practice"


class Mode(StrEnum):
    """Why a rating was given: study moves the schedule, practice never does."""

    STUDY = "study"
    PRACTICE = "practice"


def aware(moment: datetime) -> datetime:
    """`moment`, taken as UTC if naive: for moments a caller hands in (columns are TZDateTime)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class CardStateValue:
    state: State
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int
    lapses: int

    @property
    def queue(self) -> Queue:
        return self.state.queue

    @classmethod
    def from_row(cls, row: Any) -> "CardStateValue":
        """From a CardState, or a row of its columns."""
        values = {name: getattr(row, name) for name in SCHEDULE_FIELDS}
        return cls(**values | {"state": State(row.state)})

    def columns(self) -> dict[str, Any]:
        """The card_state columns this state sets."""
        return self.fields() | {"state": int(self.state)}

    def fields(self) -> dict[str, Any]:
        """The schedule's fields by name (SCHEDULE_FIELDS)."""
        return {name: getattr(self, name) for name in SCHEDULE_FIELDS}

    def to_fsrs(self) -> FsrsCard:
        values = {name: getattr(self, name) for name in FSRS_FIELDS}
        return FsrsCard(card_id=0, **values | {"state": FsrsState(int(self.state))})

    def after(self, card: FsrsCard, *, lapsed: bool) -> "CardStateValue":
        """This state moved on by one review to FSRS's `card`."""
        return replace(
            self,
            **_fsrs_fields(card),
            reps=self.reps + 1,
            lapses=self.lapses + int(lapsed),
        )


# The schedule's fields in order, named once: the table's columns, the state document, the
# statements that read a schedule and the copies to and from FSRS are all derived from it.
SCHEDULE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CardStateValue))
# Those FSRS's own card keeps (it counts no reviews or lapses).
FSRS_FIELDS = tuple(name for name in SCHEDULE_FIELDS if name not in ("reps", "lapses"))


def _fsrs_fields(card: FsrsCard) -> dict[str, Any]:
    values = {name: getattr(card, name) for name in FSRS_FIELDS}
    return values | {"state": State(int(card.state))}


def first_state(card: FsrsCard) -> CardStateValue:
    """The state of a new card after its first review to FSRS's `card`."""
    return CardStateValue(**_fsrs_fields(card), reps=1, lapses=0)


def queue_of(state: CardStateValue | None) -> Queue:
    return Queue.NEW if state is None else state.queue
