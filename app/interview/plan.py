"""Readiness on an interview's day and the plan that gets every card there; pure, no I/O.

A card's readiness is FSRS's predicted recall at the start of the interview's study day if
the learner does nothing more. The plan simulates each unready card's reviews (rated Good,
each when the card falls to the target recall, the first one brought forward as far as
needed) and spreads their first reviews over the days left, the least loaded day first.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from app.scheduling import schedule
from app.scheduling.cardstate import CardStateValue, State

# Enough for a new card to reach any target within a year; a chain that needs more is unreachable.
MAX_CHAIN = 16
# Starting days tried per card: every day when there are few, a spread of them otherwise.
MAX_STARTS = 24


@dataclass(frozen=True)
class Scheduling:
    """What the plan needs to know about the learner and the interview."""

    today: date  # the learner's study day now
    day: date  # the interview's
    moment: datetime  # when recall is predicted: the start of the interview's study day
    now: datetime
    target: float
    parameters: schedule.Parameters | None = None
    new_per_day: int = 20
    max_reviews_per_day: int = 200

    @property
    def days_left(self) -> int:
        return max((self.day - self.today).days, 0)


def recall(state: CardStateValue | None, plan: Scheduling) -> float:
    """FSRS's predicted recall of the card at the interview (0 for a card never studied)."""
    value = schedule.retrievability(state, plan.moment, parameters=plan.parameters)
    return value or 0.0


@dataclass(frozen=True)
class PlanDay:
    day: date
    card_ids: tuple[str, ...]  # one entry per review (a card can be reviewed twice a day)
    new: int  # cards first studied on this day

    @property
    def reviews(self) -> int:
        return len(self.card_ids)


@dataclass(frozen=True)
class Plan:
    days: tuple[PlanDay, ...]
    unreachable: tuple[str, ...] = ()  # cards that cannot reach the target by the day
    warnings: tuple[str, ...] = field(default=())

    @property
    def total(self) -> int:
        return sum(d.reviews for d in self.days)

    @property
    def per_day(self) -> int:
        """The reviews the busiest day of the plan asks for."""
        return max((d.reviews for d in self.days), default=0)

    def today(self) -> tuple[str, ...]:
        """The distinct cards the plan reviews on its first day, in plan order."""
        return tuple(dict.fromkeys(self.days[0].card_ids)) if self.days else ()


def _offset(moment: datetime, plan: Scheduling) -> int:
    return (moment - plan.now) // timedelta(days=1)


def chain(state: CardStateValue | None, start: int, plan: Scheduling) -> list[int] | None:
    """The day offsets of the reviews that bring the card to the target, the first on `start`.

    None when no chain that starts then reaches the target before the interview's day.
    """
    days = plan.days_left
    moment = plan.now + timedelta(days=start)
    offsets: list[int] = []
    for _ in range(MAX_CHAIN):
        state = schedule.review(
            state, 3, moment, desired_retention=plan.target, parameters=plan.parameters
        )
        offsets.append(_offset(moment, plan))
        # Ready means learned (past the learning steps) and recalled well enough on the day.
        if state.state == State.REVIEW and recall(state, plan) >= plan.target:
            return offsets
        following = max(state.due, moment)
        if _offset(following, plan) >= days:
            # Due only after the interview, yet not recalled well enough on the day: review it
            # on the last day before, unless that is the day of this very review.
            last = plan.now + timedelta(days=days - 1)
            if _offset(last, plan) <= _offset(moment, plan):
                return None
            following = last
        moment = following
    return None


def _starts(days: int) -> list[int]:
    if days <= MAX_STARTS:
        return list(range(days))
    step = days / MAX_STARTS
    return sorted({int(i * step) for i in range(MAX_STARTS)})


def make_plan(cards: Sequence[tuple[str, CardStateValue | None]], plan: Scheduling) -> Plan:
    """Spread the reviews that bring every card below the target up to it on the day."""
    days = plan.days_left
    if days == 0:
        return Plan(
            days=(), unreachable=tuple(cid for cid, s in cards if recall(s, plan) < plan.target)
        )
    load = [0] * days
    new = [0] * days
    placed: list[list[str]] = [[] for _ in range(days)]
    unreachable: list[str] = []
    cache: dict[tuple[object, int], list[int] | None] = {}
    # New cards first (their chains are longest and must start early), then the weakest.
    unready = sorted(
        ((cid, s) for cid, s in cards if recall(s, plan) < plan.target),
        key=lambda item: (item[1] is not None, recall(item[1], plan)),
    )
    for card_id, state in unready:
        best = _best_start(state, plan, load=load, new=new, cache=cache)
        if best is None:
            unreachable.append(card_id)
            continue
        start, offsets = best
        if state is None:
            new[start] += 1
        for d in offsets:
            load[d] += 1
            placed[d].append(card_id)
    result = tuple(
        PlanDay(day=plan.today + timedelta(days=i), card_ids=tuple(placed[i]), new=new[i])
        for i in range(days)
    )
    return Plan(days=result, unreachable=tuple(unreachable), warnings=_warnings(result, plan))


def _best_start(
    state: CardStateValue | None,
    plan: Scheduling,
    *,
    load: list[int],
    new: list[int],
    cache: dict[tuple[object, int], list[int] | None],
) -> tuple[int, list[int]] | None:
    """The day to start the card's chain of reviews, and the chain's days; None if none works."""
    days = plan.days_left
    best: tuple[tuple[int, ...], int, list[int]] | None = None
    for start in _starts(days):
        key = (state, start)
        if key not in cache:
            cache[key] = chain(state, start, plan)
        offsets = cache[key]
        if offsets is None:
            continue
        if state is None and days >= 2 and len(set(offsets)) < 2:
            continue  # a new card is learned early enough to be reviewed a day later
        over_new = int(state is None and new[start] >= plan.new_per_day)
        peak = max(load[d] + offsets.count(d) for d in set(offsets))
        # Fewest new cards over the limit, then the lowest peak, then the fewest reviews,
        # then the earliest start: planned again every day, a later one would be put off
        # day after day.
        score = (over_new, peak, len(offsets), start)
        if best is None or score < best[0]:
            best = (score, start, offsets)
    return None if best is None else (best[1], best[2])


def _warnings(days: Sequence[PlanDay], plan: Scheduling) -> tuple[str, ...]:
    """Where the plan asks for more than the learner's daily limits ("key|values" for i18n)."""
    warnings = []
    reviews = max((d.reviews for d in days), default=0)
    if reviews > plan.max_reviews_per_day:
        warnings.append(f"over_reviews|{reviews}|{plan.max_reviews_per_day}")
    new = max((d.new for d in days), default=0)
    if new > plan.new_per_day:
        warnings.append(f"over_new|{new}|{plan.new_per_day}")
    return tuple(warnings)
