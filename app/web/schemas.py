"""The JSON API's response and request models, shared by the API and the study page."""

from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from app.scheduling.cardstate import Queue, Rating, queue_of
from app.scheduling.schedule import format_interval
from app.scheduling.statedoc import Count, Difficulty, Stability
from app.study import Counts, ReviewResult, UndoResult
from app.study.cardview import CardView
from app.study.queue import NextCard
from app.study.service import Next, Rated


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


# A response model is made from the domain object by its `of`, one typed constructor each, so
# that mypy checks every field it reads and no dict of the same fields is built by hand between.
class _CardFields(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    deck: str
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
        description=(
            "A cloze card's front: the block with its deletions blank; a basic card's stem: what"
            " its question asks about (a code block). Empty otherwise."
        )
    )
    source_path: str = Field(description="The note the card comes from, in the notes folder.")
    source_line: int = Field(description="The line of the note the card starts on.")


class CardOut(_CardFields):
    @classmethod
    def of(cls, view: CardView) -> "CardOut":
        return cls(**_card_fields(view))


def _card_fields(view: CardView) -> dict[str, Any]:
    """The card's own fields, shared by CardOut and NextOut."""
    return {
        "id": view.id,
        "deck": view.deck_slug,
        "deck_title": view.deck_title,
        "section": view.section,
        "question": view.question,
        "question_html": view.question_html,
        "answer_html": view.answer_html,
        "followups_html": view.followups_html,
        "followups": [
            FollowupOut(id=f.id, question_html=f.question_html, answer_html=f.answer_html)
            for f in view.followups
        ],
        "pitfalls_html": view.pitfalls_html,
        "tags": list(view.tags),
        "links": [LinkOut(title=k.title, url=k.url, resolved=k.resolved) for k in view.links],
        "retired": view.retired,
        "kind": view.kind,
        "front_html": view.front_html,
        "source_path": view.source_path,
        "source_line": view.source_line,
    }


class NextOut(_CardFields):
    queue: Queue
    due: datetime | None = Field(
        default=None, description="When the card fell due; null for a new card."
    )
    version: int = Field(description="Send it back with the rating; a stale one gets 409.")
    counts: CountsOut
    intervals: list[IntervalOut]
    flag: int = Field(ge=0, le=7, description="The learner's flag on the card: 0 none, 1-7.")
    leech: bool = Field(description="The card lapsed as often as the leech threshold.")

    @classmethod
    def of(cls, card: NextCard, counts: Counts, lang: str) -> "NextOut":
        """The card to study, its schedule's intervals labelled in `lang`."""
        return cls(
            **_card_fields(card.card),
            queue=card.queue,
            due=card.state.due if card.state else None,
            version=card.version,
            counts=counts_out(counts),
            intervals=[
                IntervalOut(
                    rating=r, seconds=int(d.total_seconds()), label=format_interval(d, lang)
                )
                for r, d in card.intervals.items()
            ],
            flag=card.mark.flag,
            leech=card.mark.leech,
        )


# The numbers are the state document's (statedoc).
class _StateFields(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    card_id: str
    state: Queue  # a card without a schedule is new
    due: datetime | None = None
    stability: Stability | None = None
    difficulty: Difficulty | None = None
    reps: Count = 0
    lapses: Count = 0
    version: int


class StateOut(_StateFields):
    @classmethod
    def of(cls, result: ReviewResult | UndoResult) -> "StateOut":
        return cls(**_state_fields(result))


def _state_fields(result: ReviewResult | UndoResult) -> dict[str, Any]:
    """The schedule's fields the API shows (a card without a schedule is new)."""
    state = result.state
    shown = {} if state is None else state.fields()
    return {name: value for name, value in shown.items() if name in _StateFields.model_fields} | {
        "card_id": result.card_id,
        "state": queue_of(state),
        "version": result.version,
    }


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


class ReviewOut(_StateFields):
    replayed: bool = Field(
        description="True when this answers a repeat of an Idempotency-Key already used."
    )
    leech: bool = Field(
        default=False,
        description="This lapse made the card a leech (or warned again): it is marked, and "
        "suspended unless the learner's leech action is 'tag'.",
    )
    counts: CountsOut
    next: NextOut | None = Field(description="The card to study next; null when nothing is due.")

    @classmethod
    def of(cls, rated: Rated, lang: str) -> "ReviewOut":
        """The rating's new state and the next card; the API always rates with a scope."""
        if rated.next is None:
            raise ValueError("the API rates with a scope, which gives the next card")
        return cls(
            **_state_fields(rated.review),
            replayed=rated.review.replayed,
            leech=rated.review.leech,
            counts=counts_out(rated.next.counts),
            next=next_out(rated.next, lang),
        )


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
    return CountsOut(new=today.new, learning=today.learning, review=today.review)


def next_out(found: Next, lang: str) -> NextOut | None:
    """The study loop's next card as the API shows it; None when nothing is due."""
    if found.card is None:
        return None
    return NextOut.of(found.card, found.counts, lang)


def state_out(result: ReviewResult | UndoResult) -> StateOut:
    return StateOut.of(result)
