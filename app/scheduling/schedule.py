"""FSRS scheduling as pure functions over a learner's typed card state; no I/O.

Intervals of 3 days or more are fuzzed as FSRS and Anki do, so cards learned together do not
come due together (see `fuzz_range`). The fuzz is deterministic: it depends on the card and its
review count, so the interval a button shows is the one the rating then gives.
"""

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from fsrs import Card as FsrsCard
from fsrs import Rating as FsrsRating
from fsrs import Scheduler

from app.scheduling.cardstate import CardStateValue, Queue, Rating, State, first_state, queue_of

RATINGS = tuple(Rating)
Parameters = tuple[float, ...]

__all__ = [
    "RATINGS",
    "Parameters",
    "Queue",
    "Spread",
    "fuzz_range",
    "preview",
    "queue_of",
    "retrievability",
    "review",
]

MAXIMUM_INTERVAL = 36500
FUZZ_FROM = 3  # days: shorter intervals are given as computed
# (start, end, factor): an interval of d days may move by 1 day plus this share of the part of
# d inside each band, as in FSRS and Anki.
FUZZ_BANDS = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))
# Load balancing prefers lighter days; an easy day weighs this much of an ordinary one.
EASY_DAY_WEIGHT = 0.1

# Cards due on each day `low`..`high` days from today (load balancing asks only when it fuzzes).
Load = Callable[[int, int], Mapping[int, int]]


@dataclass(frozen=True)
class Spread:
    """How one card's long intervals are spread: its fuzz seed, and optionally the load."""

    seed: str  # the card's id (and learner's): the same card and review always get the same day
    load: Load | None = None  # None: plain fuzz; else pick lighter days in the fuzz range
    today: date | None = None  # the learner's study day, to know the weekday of each candidate
    easy_days: frozenset[int] = field(default_factory=frozenset)  # weekdays, 0 = Monday


def fuzz_range(days: int, maximum: int = MAXIMUM_INTERVAL) -> tuple[int, int]:
    """The days an interval of `days` may become: [days - delta, days + delta], at least 2."""
    delta = 1.0 + sum(
        factor * max(min(days, end) - start, 0.0) for start, end, factor in FUZZ_BANDS
    )
    high = min(round(days + delta), maximum)
    return min(max(2, round(days - delta)), high), high


def _fraction(seed: str, reps: int) -> float:
    digest = hashlib.sha256(f"{seed}:{reps}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def spread_interval(interval: timedelta, spread: Spread, reps: int) -> timedelta:
    """The interval a card reviewed `reps` times before gets, fuzzed if it is 3 days or more."""
    if interval.days < FUZZ_FROM or interval % timedelta(days=1):
        return interval
    low, high = fuzz_range(interval.days)
    days = list(range(low, high + 1))
    weights = [1.0] * len(days)
    if spread.load is not None:
        load = spread.load(low, high)
        easy = {
            day
            for day in days
            if spread.today and (spread.today + timedelta(days=day)).weekday() in spread.easy_days
        }
        if len(easy) == len(days):  # every candidate is an easy day: treat them alike
            easy = set()
        # As Anki's load balancer: fewer cards due and a shorter interval weigh more.
        weights = [
            (EASY_DAY_WEIGHT if day in easy else 1.0) / ((1 + load.get(day, 0)) ** 2 * day)
            for day in days
        ]
    point = _fraction(spread.seed, reps) * sum(weights)
    for day, weight in zip(days, weights, strict=True):
        point -= weight
        if point < 0:
            return timedelta(days=day)
    return timedelta(days=days[-1])


@lru_cache(maxsize=64)
def scheduler(desired_retention: float = 0.9, parameters: Parameters | None = None) -> Scheduler:
    """An FSRS-6 scheduler; fuzzing is off so the interval shown on a button is the one given."""
    if parameters:
        return Scheduler(
            parameters=parameters, desired_retention=desired_retention, enable_fuzzing=False
        )
    return Scheduler(desired_retention=desired_retention, enable_fuzzing=False)


def review(
    state: CardStateValue | None,
    rating: int,
    now: datetime,
    *,
    desired_retention: float = 0.9,
    parameters: Parameters | None = None,
    spread: Spread | None = None,
) -> CardStateValue:
    """Return the state after rating a card whose current state is `state` (None: new).

    `parameters` are a learner's personal FSRS weights; None means the FSRS defaults.
    `spread` fuzzes intervals of 3 days or more; None gives them as FSRS computes them.
    """
    if rating not in RATINGS:
        raise ValueError(f"rating must be 1-4, not {rating!r}")
    fsrs = scheduler(desired_retention, parameters)
    before = FsrsCard(card_id=0, due=now) if state is None else state.to_fsrs()
    card, _ = fsrs.review_card(before, FsrsRating(rating), now)
    if state is None:
        after = first_state(card)
    else:
        after = state.after(card, lapsed=rating == Rating.AGAIN and state.state == State.REVIEW)
    if spread is None:
        return after
    reps = state.reps if state is not None else 0
    return replace(after, due=now + spread_interval(after.due - now, spread, reps))


def preview(
    state: CardStateValue | None,
    now: datetime,
    *,
    desired_retention: float = 0.9,
    parameters: Parameters | None = None,
    spread: Spread | None = None,
) -> dict[int, timedelta]:
    """The interval each rating would give (with the same `spread` as the review)."""
    if state is None:
        intervals = dict(_new_card_intervals(desired_retention, parameters))
    else:
        intervals = _intervals(state, now, desired_retention, parameters)
    if spread is None:
        return intervals
    reps = state.reps if state is not None else 0
    return {rating: spread_interval(gap, spread, reps) for rating, gap in intervals.items()}


_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@lru_cache(maxsize=64)
def _new_card_intervals(
    desired_retention: float, parameters: Parameters | None
) -> dict[int, timedelta]:
    # A new card's intervals do not depend on when it is shown (fuzzing is off), and the
    # study queue shows mostly new cards.
    return _intervals(None, _EPOCH, desired_retention, parameters)


def _intervals(
    state: CardStateValue | None,
    now: datetime,
    desired_retention: float,
    parameters: Parameters | None,
) -> dict[int, timedelta]:
    return {
        rating: review(
            state, rating, now, desired_retention=desired_retention, parameters=parameters
        ).due
        - now
        for rating in RATINGS
    }


def retrievability(
    state: CardStateValue | None,
    now: datetime,
    *,
    desired_retention: float = 0.9,
    parameters: Parameters | None = None,
) -> float | None:
    if state is None or state.stability is None:
        return None
    fsrs = scheduler(desired_retention, parameters)
    return fsrs.get_card_retrievability(state.to_fsrs(), now)


_UNITS = (
    (60, 3600, "min", "分钟"),
    (3600, 86400, "h", "小时"),
    (86400, 30 * 86400, "d", "天"),
    (30 * 86400, 365 * 86400, "mo", "个月"),
    (365 * 86400, float("inf"), "y", "年"),
)


def format_interval(delta: timedelta, lang: str = "en") -> str:
    """Short human interval: '10 min', '3 d', '2.5 mo' (or Chinese units)."""
    seconds = max(delta.total_seconds(), 60)
    size, _, en, zh = next(unit for unit in _UNITS if seconds < unit[1])
    value = seconds / size
    text = str(round(value)) if size <= 86400 or value >= 10 else f"{value:.1f}"
    return f"{text} {zh}" if lang == "zh" else f"{text} {en}"
