"""The JSON API: the same functions as the pages; the study page is a client of it."""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, StringConstraints

from app.errors import NotFound
from app.search.query import search as run_search
from app.study import catalog
from app.study.cardview import card_view
from app.study.service import Next
from app.web.deps import FiltersDep, IdempotencyKey, LangDep, LearnerDep, NowDep, SessionDep
from app.web.observe import REVIEWS
from app.web.schemas import (
    CardOut,
    DeckOut,
    HitOut,
    NextOut,
    ReviewIn,
    ReviewOut,
    StateOut,
    TopicCardOut,
    TopicOut,
    UndoIn,
    next_out,
    state_out,
)
from app.web.study_deps import StudyCallDep

router = APIRouter(prefix="/api", tags=["api"])
health = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str


@health.get("/healthz")
async def healthz() -> Health:
    return Health(status="ok")


CardId = Annotated[str, StringConstraints(max_length=200)]
# Cards the client already holds, so that the card after them is picked.
ExcludeQuery = Annotated[list[CardId], Query(max_length=50)]
# The most cards one take-along answer holds: a day at the default limits is 220.
DAY_MAX = 1000
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"description": "The card was rated or changed meanwhile."}
}


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


# The study loop's routes: `async def`, each doing its identity look-up and database work in
# one thread hop (StudyCall.run), on the request's one session.
study_api = APIRouter(prefix="/api", tags=["api"])


@study_api.get(
    "/study/next", response_model=NextOut, responses={204: {"description": "Nothing is due."}}
)
async def next_to_study(
    call: StudyCallDep,
    filters: FiltersDep,
    lang: LangDep,
    exclude: ExcludeQuery = [],  # noqa: B006 (FastAPI copies defaults)
) -> NextOut | Response:
    """The next card to study in the scope, after the `exclude`d ones; 204 when nothing is due."""
    found = await call.run(lambda study: study.next(filters, exclude))
    out = next_out(found, lang)
    return out if out is not None else Response(status_code=204)


@study_api.get("/study/day")
async def take_along(
    call: StudyCallDep,
    filters: FiltersDep,
    lang: LangDep,
    limit: Annotated[int, Query(ge=1, le=DAY_MAX)] = DAY_MAX,
) -> list[NextOut]:
    """Today's whole queue in the scope, in the order of study: the cards to study offline."""
    day = await call.run(lambda study: study.day(filters, limit))
    shown = (next_out(Next(card, day.counts), lang) for card in day.cards)
    return [out for out in shown if out is not None]


@study_api.post("/reviews", responses={404: {"description": "No such card"}, **CONFLICT})
async def review(
    body: ReviewIn,
    call: StudyCallDep,
    filters: FiltersDep,
    lang: LangDep,
    idempotency_key: IdempotencyKey = None,
    exclude: ExcludeQuery = [],  # noqa: B006
) -> ReviewOut:
    """Rate a card 1-4 (Again, Hard, Good, Easy): its new state, and the next card in scope."""
    rated = await call.run(
        lambda study: study.rate(
            body.card_id,
            body.rating,
            body.version,
            idempotency_key,
            duration_ms=body.duration_ms,
            reviewed_at=body.reviewed_at,
            scope=filters,
            exclude=exclude,
        )
    )
    if not rated.review.replayed:
        REVIEWS.labels(str(body.rating)).inc()
    return ReviewOut.of(rated, lang)


@study_api.post("/reviews/undo", responses={404: {"description": "Nothing to undo"}, **CONFLICT})
async def undo(
    call: StudyCallDep, body: UndoIn | None = None, idempotency_key: IdempotencyKey = None
) -> StateOut:
    """Undo the learner's last study rating, then the one before; the card's restored state."""
    card_id = body.card_id if body else None
    result = await call.run(lambda study: study.undo(card_id, idempotency_key))
    return state_out(result)


@router.get("/cards/{card_id}", responses={404: {"description": "No such card"}})
def card(card_id: str, session: SessionDep) -> CardOut:
    view = card_view(session, card_id)
    if view is None:
        raise NotFound("card_not_found", card=card_id)
    return CardOut.of(view)


@router.get("/topics/{slug}", responses={404: {"description": "No such topic"}})
def topic(slug: str, session: SessionDep) -> TopicOut:
    found = catalog.get_topic(session, slug)
    if found is None:
        raise NotFound("topic_not_found", topic=slug)
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
            kind=h.kind,
            id=h.id,
            title=h.title,
            url=h.url,
            snippet=h.snippet_text,
            snippet_html=str(h.snippet),
            field=h.field,
            deck=h.deck,
        )
        for h in run_search(session, q, kind=kind, deck=deck).hits
    ]
