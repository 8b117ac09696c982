"""The JSON API: the same functions as the pages."""

import json
from contextlib import nullcontext
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlmodel import Session

from app import catalog
from app.cardview import card_view
from app.db import writes_without_waiting
from app.scheduling import format_interval
from app.search import search as run_search
from app.study import (
    Filters,
    NotFound,
    next_with_counts,
    record_review,
    state_dict,
    undo_last,
)
from app.web.deps import (
    FILTER_PARAMETERS,
    FiltersDep,
    LearnerDep,
    NowDep,
    SessionDep,
    authorize_member,
    body_schema,
    json_body,
)
from app.web.i18n import language
from app.web.observe import REVIEWS
from app.web.threads import run_read, run_write

router = APIRouter(prefix="/api", tags=["api"])
health = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str


@health.get("/healthz")
async def healthz() -> Health:
    return Health(status="ok")


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
    version: int
    counts: CountsOut
    intervals: list[IntervalOut]


class ReviewIn(BaseModel):
    card_id: str = Field(max_length=200)
    rating: int = Field(ge=1, le=4)
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    version: int | None = Field(
        default=None, ge=0, description="The version from /api/study/next; a stale one gets 409."
    )


class StateOut(BaseModel):
    card_id: str
    state: str
    due: datetime | None
    stability: float | None
    difficulty: float | None
    reps: int
    lapses: int
    version: int


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


def _card_out(session: Any, card_id: str) -> dict[str, Any]:
    view = card_view(session, card_id)
    if view is None:
        raise NotFound(f"no card '{card_id}'")
    return view.as_dict()


@router.get("/decks")
def decks(session: SessionDep, learner: LearnerDep, now: NowDep) -> list[DeckOut]:
    """Active decks with the learner's counts."""
    return [
        DeckOut(
            slug=s.deck.slug,
            title=s.deck.title,
            description=s.deck.description,
            tags=s.deck.tags,
            total=s.progress.total,
            new=s.progress.new,
            due=s.progress.due,
            seen=s.progress.seen,
            mature=s.progress.mature,
        )
        for s in catalog.deck_summaries(session, learner=learner, now=now)
    ]


# The study loop's two calls identify the caller in the same thread hop and on the same
# connection as their queries (app.web.deps.authorize_member), and answer with JSON they
# serialise themselves: a script or the study page calls them for every card.
study = APIRouter(prefix="/api", tags=["api"])


@study.get(
    "/study/next",
    responses={200: {"model": NextOut}, 204: {"description": "Nothing is due."}},
    openapi_extra={"parameters": FILTER_PARAMETERS},
)
async def study_next(request: Request, now: NowDep, filters: FiltersDep) -> Response:
    """The next card to study, or 204 when nothing is due."""
    return await run_read(request, _study_next, request, now, filters)


def _study_next(request: Request, now: datetime, filters: Filters) -> Response:
    with Session(request.app.state.engine) as session:
        learner = authorize_member(request, session, now, read_only=True)
        found = next_with_counts(session, learner=learner, now=now, filters=filters)
        # Ended with COMMIT rather than the ROLLBACK of closing: on a rollback psycopg forgets
        # the statements it prepared, and PostgreSQL would plan them all again.
        session.commit()
    if found is None:
        return Response(status_code=204)
    current, today = found
    lang = language(request)
    rest = {
        "queue": current.queue,
        "version": current.version,
        "counts": {"new": today.new, "learning": today.learning, "review": today.review},
        "intervals": [
            {"rating": r, "seconds": int(d.total_seconds()), "label": format_interval(d, lang)}
            for r, d in current.intervals.items()
        ],
    }
    # The card's part of the JSON is serialised once per card and bank generation.
    body = current.card.json_fields + b"," + json.dumps(rest, separators=(",", ":")).encode()[1:]
    return Response(body, media_type="application/json")


def _state_out(card_id: str, state: dict[str, Any] | None, version: int) -> StateOut:
    names = {1: "learning", 2: "review", 3: "relearning"}
    return StateOut(
        card_id=card_id,
        state=names[state["state"]] if state else "new",
        due=datetime.fromisoformat(state["due"]) if state else None,
        stability=state["stability"] if state else None,
        difficulty=state["difficulty"] if state else None,
        reps=state["reps"] if state else 0,
        lapses=state["lapses"] if state else 0,
        version=version,
    )


@study.post(
    "/reviews",
    response_model=StateOut,
    responses={404: {"description": "No such card"}, 409: {"description": "Stale"}},
    openapi_extra=body_schema(ReviewIn),
)
async def review(request: Request, now: NowDep) -> Response:
    """Rate a card 1-4 (Again, Hard, Good, Easy); returns its new state and due time."""
    body = await json_body(request, ReviewIn)
    return await run_write(request, _review, request, body, now)


def _review(request: Request, body: ReviewIn, now: datetime, *, wait: bool) -> Response:
    with (
        Session(request.app.state.engine) as session,
        nullcontext() if wait else writes_without_waiting(session),
    ):
        learner = authorize_member(request, session, now)
        result = record_review(
            session,
            learner=learner,
            card_id=body.card_id,
            rating=body.rating,
            now=now,
            duration_ms=body.duration_ms,
            expected_version=body.version,
        )
    REVIEWS.labels(str(body.rating)).inc()
    state = _state_out(result.card_id, result.state, result.version)
    return Response(state.model_dump_json(), media_type="application/json")


@router.post("/reviews/undo", responses={404: {"description": "Nothing to undo"}})
def undo(session: SessionDep, learner: LearnerDep, now: NowDep) -> StateOut:
    """Undo the learner's last study rating; returns the card's restored state."""
    from app.study import card_state

    log = undo_last(session, learner=learner, now=now)
    row = card_state(session, learner=learner, card_id=log.card_id)
    return _state_out(log.card_id, state_dict(row), row.version if row else 0)


@router.get("/cards/{card_id}", responses={404: {"description": "No such card"}})
def card(card_id: str, session: SessionDep) -> CardOut:
    return CardOut(**_card_out(session, card_id))


@router.get("/topics/{slug}", responses={404: {"description": "No such topic"}})
def topic(slug: str, session: SessionDep) -> TopicOut:
    found = catalog.get_topic(session, slug)
    if found is None:
        raise NotFound(f"no topic '{slug}'")
    return TopicOut(
        slug=found.slug,
        title=found.title,
        aliases=found.aliases,
        summary=found.summary,
        body_html=found.body_html,
        cards=[
            TopicCardOut(id=c.id, question=c.question, deck=d.slug, url=f"/cards/{c.id}")
            for c, d in catalog.topic_cards(session, slug)
        ],
    )


@router.get("/search")
def search(
    session: SessionDep,
    q: Annotated[str, Query(max_length=200)] = "",
    kind: Annotated[Literal["card", "topic"] | None, Query()] = None,
    deck: Annotated[str | None, Query(max_length=200)] = None,
) -> list[HitOut]:
    """Cards and topics containing every word of `q` (Chinese works without spaces), best first."""
    return [
        HitOut(
            kind=h.kind,  # type: ignore[arg-type]
            id=h.id,
            title=h.title,
            url=h.url,
            snippet=h.snippet_text,
            snippet_html=str(h.snippet),
            field=h.field,  # type: ignore[arg-type]
            deck=h.deck,
        )
        for h in run_search(session, q, kind=kind, deck=deck).hits
    ]
