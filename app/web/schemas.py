"""The JSON API's response and request models, shared by the API and the study page."""

from datetime import datetime
from typing import Literal

from pydantic import (
    AliasChoices,
    AliasGenerator,
    AliasPath,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from app.scheduling.cardstate import Queue, Rating
from app.scheduling.schedule import format_interval
from app.scheduling.statedoc import Count, Difficulty, Stability
from app.study import Counts, ReviewResult, UndoResult
from app.study.service import Next


class CountsOut(BaseModel):
    new: int
    learning: int
    review: int


class DeckOut(BaseModel):
    slug: str
    title: str
    description: str
    tags: list[str]
    total: int
    new: int
    due: int
    seen: int
    mature: int


class LinkOut(BaseModel):
    title: str
    url: str | None
    resolved: bool


class IntervalOut(BaseModel):
    rating: int
    seconds: int
    label: str


class FollowupOut(BaseModel):
    id: str
    question_html: str
    answer_html: str


def _on(*path: str) -> AliasGenerator:
    """Read each field at `path` + name (the domain object's nesting), or else by its name."""
    return AliasGenerator(validation_alias=lambda name: AliasChoices(AliasPath(*path, name), name))


# A response model reads its fields from the domain object (`from_attributes`): its names, or
# where the object keeps them, so that no dict of the same fields is built by hand between.
# Read from a `CardView` (the study loop's `Next` keeps it at .card.card).
class CardOut(BaseModel):
    model_config = ConfigDict(
        alias_generator=_on("card", "card"), json_schema_serialization_defaults_required=True
    )

    id: str
    deck: str = Field(
        validation_alias=AliasChoices(AliasPath("card", "card", "deck_slug"), "deck_slug", "deck")
    )
    deck_title: str
    section: str
    question: str
    question_html: str
    answer_html: str
    followups_html: str
    followups: list[FollowupOut]
    pitfalls_html: str
    tags: list[str]
    links: list[LinkOut]
    retired: bool
    kind: str = Field(description="basic, cloze or reversed.")
    front_html: str = Field(
        description="A cloze card's front: the block with its deletions blank. Empty otherwise."
    )
    source_path: str = Field(description="The note the card comes from, in the notes folder.")
    source_line: int = Field(description="The line of the note the card starts on.")


def _at(*path: str) -> AliasChoices:
    return AliasChoices(AliasPath(*path), path[-1])


# Read from the study loop's `Next`; the validation context is the language of the labels.
class NextOut(CardOut):
    queue: Queue = Field(validation_alias=_at("card", "queue"))
    due: datetime | None = Field(
        default=None,
        validation_alias=_at("card", "state", "due"),
        description="When the card fell due; null for a new card.",
    )
    version: int = Field(
        validation_alias=_at("card", "version"),
        description="Send it back with the rating; a stale one gets 409.",
    )
    counts: CountsOut
    intervals: list[IntervalOut] = Field(validation_alias=_at("card", "intervals"))
    flag: int = Field(
        ge=0,
        le=7,
        validation_alias=_at("card", "mark", "flag"),
        description="The learner's flag on the card: 0 none, 1-7.",
    )
    leech: bool = Field(
        validation_alias=_at("card", "mark", "leech"),
        description="The card lapsed as often as the leech threshold.",
    )

    @field_validator("intervals", mode="before")
    @classmethod
    def _labelled(cls, value: object, info: ValidationInfo) -> object:
        # The schedule's intervals by rating, labelled in the request's language.
        if not isinstance(value, dict):
            return value
        lang = info.context or "en"
        return [
            IntervalOut(rating=r, seconds=int(d.total_seconds()), label=format_interval(d, lang))
            for r, d in value.items()
        ]


# Read from a ReviewResult or an UndoResult; the numbers are the state document's (statedoc).
class StateOut(BaseModel):
    model_config = ConfigDict(
        alias_generator=_on("state"), json_schema_serialization_defaults_required=True
    )

    card_id: str
    # A card without a schedule is new (the result's state is None).
    state: Queue = Field(
        validation_alias=AliasChoices(AliasPath("state", "queue"), "state"),
    )
    due: datetime | None = None
    stability: Stability | None = None
    difficulty: Difficulty | None = None
    reps: Count = 0
    lapses: Count = 0
    version: int

    @field_validator("state", mode="before")
    @classmethod
    def _new_without_state(cls, value: object) -> object:
        return Queue.NEW if value is None else value


class ReviewIn(BaseModel):
    card_id: str = Field(max_length=200)
    rating: Rating
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    version: int | None = Field(
        default=None, ge=0, description="The version from /api/study/next; a stale one gets 409."
    )
    reviewed_at: AwareDatetime | None = Field(
        default=None,
        description="When the learner rated the card, with its offset (a rating kept offline); "
        "recorded as given within a week before now, otherwise as now.",
    )


# Read from the study loop's `Rated`; the validation context is the language.
class ReviewOut(StateOut):
    model_config = ConfigDict(alias_generator=_on("review", "state"))

    card_id: str = Field(validation_alias=_at("review", "card_id"))
    state: Queue = Field(
        validation_alias=AliasChoices(AliasPath("review", "state", "queue"), "state")
    )
    version: int = Field(validation_alias=_at("review", "version"))
    replayed: bool = Field(
        validation_alias=_at("review", "replayed"),
        description="True when this answers a repeat of an Idempotency-Key already used.",
    )
    leech: bool = Field(
        default=False,
        validation_alias=_at("review", "leech"),
        description="This lapse made the card a leech (or warned again): it is marked, and "
        "suspended unless the learner's leech action is 'tag'.",
    )
    counts: CountsOut = Field(validation_alias=_at("next", "counts"))
    next: NextOut | None = Field(
        validation_alias="next", description="The card to study next; null when nothing is due."
    )

    @field_validator("next", mode="before")
    @classmethod
    def _nothing_due(cls, value: object) -> object:
        return None if isinstance(value, Next) and value.card is None else value


class UndoIn(BaseModel):
    card_id: str | None = Field(
        default=None,
        max_length=200,
        description="The card the client believes was rated last; another gets 409.",
    )


class TopicCardOut(BaseModel):
    id: str
    question: str
    deck: str
    url: str


class TopicOut(BaseModel):
    slug: str
    title: str
    aliases: list[str]
    summary: str
    body_html: str
    cards: list[TopicCardOut]


class HitOut(BaseModel):
    kind: Literal["card", "topic"]
    id: str
    title: str
    url: str
    snippet: str = Field(description="Plain text around the first match.")
    snippet_html: str = Field(description="The snippet, escaped, with matches in <mark>.")
    field: Literal["title", "body", "extra", "reading"] = Field(
        description="The best field group that matched: question or title, answer or body, "
        "follow-ups and pitfalls, reading list."
    )
    deck: str


def counts_out(today: Counts) -> CountsOut:
    return CountsOut.model_validate(today, from_attributes=True)


def next_out(found: Next, lang: str) -> NextOut | None:
    """The study loop's next card as the API shows it; None when nothing is due."""
    if found.card is None:
        return None
    return NextOut.model_validate(found, from_attributes=True, context=lang)


def state_out(result: ReviewResult | UndoResult) -> StateOut:
    return StateOut.model_validate(result, from_attributes=True)
