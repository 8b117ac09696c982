"""FSRS scheduling as pure functions over a learner's typed card state; no I/O."""

from datetime import UTC, datetime, timedelta
from functools import lru_cache

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from app.cardstate import CardStateValue, Queue, State, first_state, queue_of

RATINGS = (1, 2, 3, 4)
Parameters = tuple[float, ...]

__all__ = ["RATINGS", "Parameters", "Queue", "preview", "queue_of", "retrievability", "review"]


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
) -> CardStateValue:
    """Return the state after rating a card whose current state is `state` (None: new).

    `parameters` are a learner's personal FSRS weights; None means the FSRS defaults.
    """
    if rating not in RATINGS:
        raise ValueError(f"rating must be 1-4, not {rating!r}")
    fsrs = scheduler(desired_retention, parameters)
    before = FsrsCard(card_id=0, due=now) if state is None else state.to_fsrs()
    card, _ = fsrs.review_card(before, Rating(rating), now)
    if state is None:
        return first_state(card)
    return state.after(card, lapsed=rating == Rating.Again and state.state == State.REVIEW)


def preview(
    state: CardStateValue | None,
    now: datetime,
    *,
    desired_retention: float = 0.9,
    parameters: Parameters | None = None,
) -> dict[int, timedelta]:
    """The interval each rating would give."""
    if state is None:
        return dict(_new_card_intervals(desired_retention, parameters))
    return _intervals(state, now, desired_retention, parameters)


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
