"""A learner's statistics, for all decks or one: history, forecast, retention, states, streaks.

Only study ratings count (practice never moves the schedule) and undone ratings are ignored.
Queries stay portable: rows are fetched with plain comparisons and bucketed into the
learner's local study days here, in Python, instead of with database date functions.
"""

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple, TypeVar

import sqlalchemy as sa
from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select

from app.infra.models import CARD_KINDS, Card, CardState, Deck, Learner, ReviewLog
from app.scheduling import cardstate
from app.scheduling.studyday import day_start, local_day

HEATMAP_DAYS = 365
FORECAST_DAYS = 30
RETENTION_WINDOWS = (7, 30, 365)
HARDEST_LIMIT = 10

# A query joined to Card and Deck, narrowed to some of their rows.
_Query = TypeVar("_Query", bound=sa.Select[*tuple[Any, ...]])


@dataclass(frozen=True)
class DayCount:
    day: date
    count: int


@dataclass(frozen=True)
class Retention:
    """Reviews of cards in the review queue over the last `days` days, and how many passed."""

    days: int
    reviews: int
    passed: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.reviews if self.reviews else None


@dataclass(frozen=True)
class DeckRetention:
    slug: str
    title: str
    windows: tuple[Retention, ...]


@dataclass(frozen=True)
class RetentionStats:
    overall: tuple[Retention, ...]
    decks: tuple[DeckRetention, ...]


@dataclass(frozen=True)
class StateCounts:
    new: int  # never studied, not retired
    learning: int
    review: int
    relearning: int
    retired: int  # studied once, since removed from the content (history kept)

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review + self.relearning + self.retired


@dataclass(frozen=True)
class Streak:
    current: int  # consecutive study days ending today, or yesterday if today has none yet
    longest: int


@dataclass(frozen=True)
class TimeSpent:
    today_ms: int
    week_ms: int  # the last 7 study days, today included
    total_ms: int


@dataclass(frozen=True)
class HardCard:
    card_id: str
    question: str
    question_html: str
    deck_slug: str
    deck_title: str
    lapses: int
    again: int

    @property
    def url(self) -> str:
        return f"/cards/{self.card_id}"


@dataclass(frozen=True)
class Stats:
    today: date
    reviews: list[DayCount]
    forecast: list[DayCount]
    retention: RetentionStats
    states: StateCounts
    streak: Streak
    time: TimeSpent
    hardest: list[HardCard]
    kinds: dict[str, int]  # active cards by kind, every kind present


def card_kinds(*, session: Session, deck: Deck | None = None) -> dict[str, int]:
    """The bank's active cards (or `deck`'s) by kind: basic, cloze, reversed."""
    query = _active(
        select(Card.kind, func.count())
        .select_from(Card)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .group_by(col(Card.kind)),
        deck,
    )
    found = dict(session.exec(query).all())
    return {kind: found.get(kind, 0) for kind in CARD_KINDS}


def local_days(learner: Learner, moments: Sequence[datetime]) -> list[date]:
    """The study day of each moment, without converting every moment to local time."""
    if not moments:
        return []
    first, last = local_day(learner, min(moments)), local_day(learner, max(moments))
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    # Where each day after the first begins; a moment's day is found by bisecting these.
    starts = [day_start(learner, day) for day in days[1:]]
    if moments[0].tzinfo is None:  # SQLite hands back naive UTC datetimes
        starts = [start.replace(tzinfo=None) for start in starts]
    return [days[bisect_right(starts, moment)] for moment in moments]


class Rating(NamedTuple):
    """One study rating that still stands, placed on the learner's study day."""

    day: date
    card_id: str
    rating: int
    queue: str
    duration_ms: int
    deck_id: int | None = None  # the card's deck now; None for a card no longer in the bank


def study_history(*, session: Session, learner: Learner, deck: Deck | None = None) -> list[Rating]:
    """The learner's study ratings in scope; practice and undone ones left out."""
    query = (
        sa.select(
            col(ReviewLog.reviewed_at),
            col(ReviewLog.card_id),
            col(ReviewLog.rating),
            col(ReviewLog.queue),
            col(ReviewLog.duration_ms),
            col(Card.deck_id),
        )
        .outerjoin(Card, col(Card.id) == ReviewLog.card_id)
        .where(
            col(ReviewLog.learner_id) == learner.id,
            col(ReviewLog.mode) == "study",
            col(ReviewLog.undone_at).is_(None),
        )
    )
    if deck is not None:
        in_deck = select(Card.id).where(Card.deck_id == deck.id)
        query = query.where(col(ReviewLog.card_id).in_(in_deck))
    rows = session.execute(query).all()
    days = local_days(learner, [row.reviewed_at for row in rows])
    return [
        Rating(day, row.card_id, row.rating, row.queue, row.duration_ms or 0, row.deck_id)
        for day, row in zip(days, rows, strict=True)
    ]


def _active(query: _Query, deck: Deck | None) -> _Query:
    """Limit a query joined to Card and Deck to active cards in scope."""
    query = query.where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
    return query.where(col(Deck.id) == deck.id) if deck is not None else query


def _per_day(history: list[Rating], today: date) -> list[DayCount]:
    counts = Counter(r.day for r in history)
    first = today - timedelta(days=HEATMAP_DAYS - 1)
    days = [first + timedelta(days=i) for i in range(HEATMAP_DAYS)]
    return [DayCount(day, counts.get(day, 0)) for day in days]


def _streak(history: list[Rating], today: date) -> Streak:
    studied = {r.day for r in history if r.day <= today}
    longest = 0
    for day in studied:
        if day - timedelta(days=1) not in studied:  # the first day of a run
            length = 1
            while day + timedelta(days=length) in studied:
                length += 1
            longest = max(longest, length)
    # Today still counts as unbroken until it ends: the streak may run up to yesterday.
    end = today if today in studied else today - timedelta(days=1)
    current = 0
    while end - timedelta(days=current) in studied:
        current += 1
    return Streak(current=current, longest=longest)


def due_forecast(
    *, session: Session, learner: Learner, now: datetime, deck: Deck | None = None
) -> list[DayCount]:
    """Cards falling due on each of the next 30 local days; overdue ones count on day 0."""
    today = local_day(learner, now)
    end = day_start(learner, today + timedelta(days=FORECAST_DAYS))
    query = _active(
        select(CardState.due)
        .join(Card, col(Card.id) == CardState.card_id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(CardState.learner_id == learner.id, col(CardState.due) < end),
        deck,
    )
    dues = session.exec(query).all()
    offsets = Counter(max((day - today).days, 0) for day in local_days(learner, dues))
    return [DayCount(today + timedelta(days=i), offsets.get(i, 0)) for i in range(FORECAST_DAYS)]


def _retention(
    session: Session, history: list[Rating], today: date, deck: Deck | None
) -> RetentionStats:
    firsts = [today - timedelta(days=days - 1) for days in RETENTION_WINDOWS]
    # Per deck id: reviews and passed for each window, in RETENTION_WINDOWS order.
    tallies: dict[int | None, list[int]] = {}
    for r in history:
        if r.queue != "review" or not firsts[-1] <= r.day <= today:
            continue
        deck_id = deck.id if deck is not None else r.deck_id
        tally = tallies.setdefault(deck_id, [0] * (2 * len(RETENTION_WINDOWS)))
        for i, first in enumerate(firsts):
            if r.day >= first:
                tally[2 * i] += 1
                tally[2 * i + 1] += r.rating != cardstate.Rating.AGAIN

    def windows(tally: list[int]) -> tuple[Retention, ...]:
        return tuple(
            Retention(days, tally[2 * i], tally[2 * i + 1])
            for i, days in enumerate(RETENTION_WINDOWS)
        )

    # The decks the learner studied in the longest window, the most reviewed first: a vault
    # of thousands of decks lists those, not every deck (a deck in scope is always listed).
    studied = [deck_id for deck_id in tallies if deck_id is not None]
    listed = select(Deck).where(col(Deck.id).in_(studied))
    if deck is not None:
        listed = select(Deck).where(Deck.id == deck.id)
    nothing = [0] * (2 * len(RETENTION_WINDOWS))
    found = sorted(
        session.exec(listed),
        key=lambda d: (-tallies.get(d.id, nothing)[-2], d.path, d.slug),
    )
    per_deck = tuple(
        DeckRetention(d.slug, d.title, windows(tallies.get(d.id, nothing))) for d in found
    )
    overall = [sum(column) for column in zip(nothing, *tallies.values(), strict=True)]
    return RetentionStats(overall=windows(overall), decks=per_deck)


def card_states(*, session: Session, learner: Learner, deck: Deck | None = None) -> StateCounts:
    """The learner's cards by state; studied cards since retired are counted apart."""

    def studied(query: _Query) -> _Query:
        query = (
            query.select_from(CardState)
            .join(Card, col(Card.id) == CardState.card_id)
            .join(Deck, col(Deck.id) == Card.deck_id)
            .where(col(CardState.learner_id) == learner.id)
        )
        return query.where(col(Deck.id) == deck.id) if deck is not None else query

    by_state: Counter[str] = Counter()
    query = studied(select(CardState.state, func.count())).where(
        col(Card.retired).is_(False), col(Deck.retired).is_(False)
    )
    for state, count in session.exec(query.group_by(col(CardState.state))):
        by_state[cardstate.State(state).queue.value] += count
    retired = session.exec(
        studied(select(func.count())).where(
            or_(col(Card.retired).is_(True), col(Deck.retired).is_(True))
        )
    ).one()
    seen = select(CardState.card_id).where(CardState.learner_id == learner.id)
    new = session.exec(
        _active(
            select(func.count())
            .select_from(Card)
            .join(Deck, col(Deck.id) == Card.deck_id)
            .where(col(Card.id).not_in(seen)),
            deck,
        )
    ).one()
    return StateCounts(
        new=new,
        learning=by_state["learning"],
        review=by_state["review"],
        relearning=by_state["relearning"],
        retired=retired,
    )


def _time_spent(history: list[Rating], today: date) -> TimeSpent:
    week = today - timedelta(days=6)
    today_ms = week_ms = total_ms = 0
    for r in history:
        if r.day > today:
            continue
        total_ms += r.duration_ms
        if r.day >= week:
            week_ms += r.duration_ms
            if r.day == today:
                today_ms += r.duration_ms
    return TimeSpent(today_ms=today_ms, week_ms=week_ms, total_ms=total_ms)


def _hardest(
    session: Session, learner: Learner, history: list[Rating], deck: Deck | None, limit: int
) -> list[HardCard]:
    again = Counter(r.card_id for r in history if r.rating == cardstate.Rating.AGAIN)
    lapses = func.coalesce(CardState.lapses, 0)
    candidates = session.exec(
        _active(
            select(Card.id, lapses, Deck.path, Card.position)
            .select_from(Card)
            .join(Deck, col(Deck.id) == Card.deck_id)
            .outerjoin(
                CardState,
                and_(col(CardState.card_id) == Card.id, col(CardState.learner_id) == learner.id),
            ),
            deck,
        )
    ).all()
    ranked = sorted(
        (
            (-lapsed, -again[card_id], path, position, card_id)
            for card_id, lapsed, path, position in candidates
            if lapsed or again[card_id]
        )
    )[:limit]
    ids = [row[-1] for row in ranked]
    details = {
        row.id: row
        for row in session.execute(
            sa.select(
                col(Card.id),
                col(Card.question),
                col(Card.question_html),
                col(Deck.slug),
                col(Deck.title),
            )
            .join(Deck, col(Deck.id) == Card.deck_id)
            .where(col(Card.id).in_(ids))
        )
    }
    return [
        HardCard(
            card_id=card_id,
            question=details[card_id].question,
            question_html=details[card_id].question_html,
            deck_slug=details[card_id].slug,
            deck_title=details[card_id].title,
            lapses=-lapsed,
            again=-failed,
        )
        for lapsed, failed, *_, card_id in ranked
    ]


def learner_stats(
    *, session: Session, learner: Learner, now: datetime, deck: Deck | None = None
) -> Stats:
    """Every statistic for the learner, over all decks or just `deck`, from one read of the log."""
    today = local_day(learner, now)
    history = study_history(session=session, learner=learner, deck=deck)
    return Stats(
        today=today,
        reviews=_per_day(history, today),
        forecast=due_forecast(session=session, learner=learner, now=now, deck=deck),
        retention=_retention(session, history, today, deck),
        states=card_states(session=session, learner=learner, deck=deck),
        streak=_streak(history, today),
        time=_time_spent(history, today),
        hardest=_hardest(session, learner, history, deck, HARDEST_LIMIT),
        kinds=card_kinds(session=session, deck=deck),
    )
