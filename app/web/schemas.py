"""The JSON API's response and request models, shared by the API and the study page."""

from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field

from app.scheduling.cardstate import CardStateValue
from app.scheduling.schedule import format_interval
from app.study import Counts, NextCard


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


class CardOut(BaseModel):
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


class NextOut(CardOut):
    queue: str
    due: datetime | None = Field(description="When the card fell due; null for a new card.")
    version: int = Field(description="Send it back with the rating; a stale one gets 409.")
    counts: CountsOut
    intervals: list[IntervalOut]
    flag: int = Field(ge=0, le=7, description="The learner's flag on the card: 0 none, 1-7.")
    leech: bool = Field(description="The card lapsed as often as the leech threshold.")


class StateOut(BaseModel):
    card_id: str
    state: str
    due: datetime | None
    stability: float | None
    difficulty: float | None
    reps: int
    lapses: int
    version: int


class ReviewIn(BaseModel):
    card_id: str = Field(max_length=200)
    rating: int = Field(ge=1, le=4)
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    version: int | None = Field(
        default=None, ge=0, description="The version from /api/study/next; a stale one gets 409."
    )
    reviewed_at: AwareDatetime | None = Field(
        default=None,
        description="When the learner rated the card, with its offset (a rating kept offline); "
        "recorded as given within a week before now, otherwise as now.",
    )


class ReviewOut(StateOut):
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


def next_out(found: NextCard | None, today: Counts, lang: str) -> NextOut | None:
    if found is None:
        return None
    return NextOut(
        **found.card.payload,
        queue=found.queue.value,
        due=found.state.due if found.state else None,
        version=found.version,
        counts=counts_out(today),
        intervals=[
            IntervalOut(rating=r, seconds=int(d.total_seconds()), label=format_interval(d, lang))
            for r, d in found.intervals.items()
        ],
        flag=found.mark.flag,
        leech=found.mark.leech,
    )


def state_out(card_id: str, state: CardStateValue | None, version: int) -> StateOut:
    return StateOut(
        card_id=card_id,
        state=state.queue.value if state else "new",
        due=state.due if state else None,
        stability=state.stability if state else None,
        difficulty=state.difficulty if state else None,
        reps=state.reps if state else 0,
        lapses=state.lapses if state else 0,
        version=version,
    )
