"""The statistics page and its JSON twin, GET /api/stats."""

import datetime as dt
from dataclasses import dataclass
from math import ceil
from typing import Annotated

from fastapi import APIRouter, Query, Request
from markupsafe import Markup
from pydantic import BaseModel, Field
from sqlmodel import Session
from starlette.responses import Response

from app.errors import NotFound
from app.infra.models import Deck
from app.stats import summary
from app.study import catalog
from app.web import svg
from app.web.deps import LangDep, LearnerDep, NowDep, SessionDep
from app.web.i18n import translator
from app.web.templating import render

router = APIRouter(include_in_schema=False)
# The per-deck table of the page: the decks studied in the last year, most reviewed first.
DECKS_PER_PAGE = 50
api = APIRouter(prefix="/api", tags=["api"])

DeckQuery = Annotated[
    str | None, Query(max_length=200, description="A deck's slug; all decks when absent.")
]


def _scope(session: Session, slug: str | None) -> Deck | None:
    if not slug:
        return None
    deck = catalog.get_deck(session, slug)
    if deck is None:
        raise NotFound("deck_not_found", deck=slug)
    return deck


@dataclass(frozen=True)
class StatsPage:
    """What summary.html shows: the numbers for one scope, its charts, and the other scopes."""

    stats: summary.Stats
    deck: Deck | None
    decks: list[summary.DeckRetention]  # this page of the per-deck table
    page: int
    pages: int
    heatmap: Markup
    forecast: Markup
    states: Markup
    retention: Markup


def format_duration(ms: int, lang: str) -> str:
    """Milliseconds as '2 h 5 min', '40 s' (or Chinese units)."""
    seconds = round(ms / 1000)
    hours, minutes = divmod(seconds // 60, 60)
    units = ("小时", "分钟", "秒") if lang == "zh" else ("h", "min", "s")
    if hours:
        return f"{hours} {units[0]} {minutes} {units[1]}"
    if minutes:
        return f"{minutes} {units[1]}"
    return f"{seconds} {units[2]}"


@router.get("/stats")
def stats_page(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    lang: LangDep,
    deck: DeckQuery = None,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
) -> Response:
    scope = _scope(session, deck)
    numbers = summary.learner_stats(session=session, learner=learner, now=now, deck=scope)
    t = translator(lang)
    studied = numbers.retention.decks
    pages = max(ceil(len(studied) / DECKS_PER_PAGE), 1)
    page = min(page, pages)
    shown = list(studied[(page - 1) * DECKS_PER_PAGE : page * DECKS_PER_PAGE])
    view = StatsPage(
        stats=numbers,
        deck=scope,
        decks=shown,
        page=page,
        pages=pages,
        heatmap=svg.heatmap(numbers.reviews, t),
        forecast=svg.forecast(numbers.forecast, t),
        states=svg.state_bar(numbers.states, t),
        retention=svg.retention_bars(numbers.retention.overall, t),
    )
    return render(
        request,
        "stats.html",
        {
            "page": view,
            "weeks": svg.calendar_weeks,
            "duration": lambda ms: format_duration(ms, lang),
        },
    )


class DayOut(BaseModel):
    date: dt.date
    count: int


class RetentionOut(BaseModel):
    days: int = Field(description="The window: the last N local study days, today included.")
    reviews: int = Field(description="Study ratings of cards in the review queue.")
    passed: int = Field(description="Those not rated Again.")
    rate: float | None = Field(description="passed / reviews; null without reviews.")


class DeckRetentionOut(BaseModel):
    deck: str
    title: str
    windows: list[RetentionOut]


class StatesOut(BaseModel):
    new: int = Field(description="Active cards never studied.")
    learning: int
    review: int
    relearning: int
    retired: int = Field(description="Studied cards since removed from the content.")
    total: int


class StreakOut(BaseModel):
    current: int = Field(description="Consecutive study days up to today (or yesterday).")
    longest: int


class TimeOut(BaseModel):
    today_ms: int
    week_ms: int = Field(description="The last 7 local study days, today included.")
    total_ms: int


class HardCardOut(BaseModel):
    id: str
    question: str
    deck: str
    deck_title: str
    lapses: int
    again: int = Field(description="Study ratings of Again.")
    url: str


class StatsOut(BaseModel):
    deck: str | None = Field(description="The deck in scope; null for all decks.")
    today: dt.date = Field(description="The learner's current study day (local, after rollover).")
    reviews: list[DayOut] = Field(description="Study ratings per local day, last 365 days.")
    forecast: list[DayOut] = Field(
        description="Cards due per local day, next 30 days; overdue ones count today."
    )
    retention: list[RetentionOut] = Field(description="True retention over 7, 30 and 365 days.")
    retention_by_deck: list[DeckRetentionOut] = Field(
        description="The decks with study ratings in the last 365 days, most first (or the "
        "deck in scope)."
    )
    states: StatesOut
    streak: StreakOut
    time: TimeOut
    hardest: list[HardCardOut] = Field(description="Most lapses, then most Again ratings.")
    kinds: dict[str, int] = Field(description="Active cards by kind: basic, cloze, reversed.")


def _retention_out(window: summary.Retention) -> RetentionOut:
    return RetentionOut(
        days=window.days, reviews=window.reviews, passed=window.passed, rate=window.rate
    )


@api.get("/stats", responses={404: {"description": "No such deck"}})
def stats_json(
    session: SessionDep, learner: LearnerDep, now: NowDep, deck: DeckQuery = None
) -> StatsOut:
    """The learner's statistics for all decks or one; study ratings only, undone ones ignored."""
    scope = _scope(session, deck)
    numbers = summary.learner_stats(session=session, learner=learner, now=now, deck=scope)
    states = numbers.states
    return StatsOut(
        deck=scope.slug if scope else None,
        today=numbers.today,
        reviews=[DayOut(date=d.day, count=d.count) for d in numbers.reviews],
        forecast=[DayOut(date=d.day, count=d.count) for d in numbers.forecast],
        retention=[_retention_out(w) for w in numbers.retention.overall],
        retention_by_deck=[
            DeckRetentionOut(
                deck=r.slug, title=r.title, windows=[_retention_out(w) for w in r.windows]
            )
            for r in numbers.retention.decks
        ],
        states=StatesOut(
            new=states.new,
            learning=states.learning,
            review=states.review,
            relearning=states.relearning,
            retired=states.retired,
            total=states.total,
        ),
        streak=StreakOut(current=numbers.streak.current, longest=numbers.streak.longest),
        time=TimeOut(
            today_ms=numbers.time.today_ms,
            week_ms=numbers.time.week_ms,
            total_ms=numbers.time.total_ms,
        ),
        hardest=[
            HardCardOut(
                id=c.card_id,
                question=c.question,
                deck=c.deck_slug,
                deck_title=c.deck_title,
                lapses=c.lapses,
                again=c.again,
                url=c.url,
            )
            for c in numbers.hardest
        ],
        kinds=numbers.kinds,
    )
