"""Workload against desired retention, simulated for a learner's bank, schedule and limits.

For each desired retention the next year of study is simulated: the cards still new to the
learner by fsrs-rs's simulator (at most `new_per_day` a day), and the cards already in their
schedule, from their stability, difficulty and due day, by app.scheduling.simulate_reviews on the
same
engine. Reviews of cards learned during the year go first within `max_reviews_per_day`; the
cards already studied get what the limit leaves on each day. Recall comes from the learner's
FSRS-6 parameters, seconds per rating from the engine's defaults (Anki users' median times).
Past SAMPLE studied cards, an even sample of them (by due day) stands for all, its figures
scaled up. The retention marked as the one to choose minimises the time spent per card
remembered at the end, as Anki's "help me decide" does.

The curve is simulated every 0.03 from 0.70 to 0.97, then every 0.01 within 0.02 of the
cheapest of those; a learner's curve is kept in memory until their schedule, bank, limits,
parameters or study day change.
"""

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from fsrs_rs_python import default_simulator_config, simulate
from sqlalchemy import ColumnElement
from sqlmodel import Session, col, func, select

from app.infra.db import Database
from app.infra.models import Card, CardMark, CardState, Learner
from app.scheduling.parameters import DEFAULT_PARAMETERS, usable_parameters
from app.scheduling.simulate_reviews import Seen, simulate_seen
from app.scheduling.studyday import local_day

LOW, HIGH = 0.70, 0.97
COARSE = tuple(round(LOW + 0.03 * step, 2) for step in range(10))
FINE, FINE_REACH = 0.01, 2  # steps of 0.01, two each side of the cheapest coarse retention
DAYS = 365
SEED = 2025  # one seed for every retention: the curves differ by retention, not by luck
NO_LIMIT = 86400.0  # seconds a day: the simulated learner never stops for lack of time
SAMPLE = 500  # studied cards simulated one by one at most
# New cards simulated per retention, over as many seeds (up to MAX_SEEDS) as that takes.
NEW_CARD_RUNS, MAX_SEEDS = 1000, 8
CACHED_LEARNERS = 256


@dataclass(frozen=True)
class WorkloadPoint:
    retention: float
    reviews_per_day: float  # reviews of cards already seen, mean over the year
    minutes_per_day: float  # time on new cards and reviews, mean over the year
    remembered: float  # cards expected to be recalled on the last day

    @property
    def minutes_per_card(self) -> float:
        """Minutes of study over the year per card remembered at its end."""
        return self.minutes_per_day * DAYS / self.remembered if self.remembered else float("inf")


@dataclass(frozen=True)
class Bank:
    """What a learner has to study: cards new to them and a sample of those they have studied."""

    new: int
    seen: tuple[Seen, ...] = ()
    seen_total: int = 0  # studied cards the sample stands for

    @property
    def scale(self) -> float:
        return self.seen_total / len(self.seen) if self.seen else 1.0

    @property
    def cards(self) -> int:
        return self.new + self.seen_total


@dataclass(frozen=True)
class Workload:
    cards: int
    new_per_day: int
    max_reviews_per_day: int
    personal: bool  # the learner's fitted parameters, not the defaults
    points: tuple[WorkloadPoint, ...]
    seen: int = 0  # cards already in the learner's schedule
    sampled: int | None = None  # how many of those were simulated, when fewer than all

    @property
    def best(self) -> WorkloadPoint | None:
        """The retention with the least study time per card remembered (None: empty bank)."""
        return min(self.points, key=lambda point: point.minutes_per_card, default=None)


@lru_cache(maxsize=256)
def _new_cards(
    parameters: tuple[float, ...],
    retention: float,
    *,
    cards: int,
    new_per_day: int,
    max_reviews_per_day: int,
    days: int,
) -> tuple[tuple[float, ...], tuple[float, ...], float]:
    """fsrs-rs's simulation of `cards` new cards: reviews and seconds a day, remembered.

    A small bank is simulated with several seeds and their figures averaged, so that its
    curve is about as smooth as a large bank's for about the same work.
    """
    if not cards or not new_per_day:
        return (0.0,) * days, (0.0,) * days, 0.0
    config = default_simulator_config()
    # A card the daily limit would introduce after the last day changes nothing.
    config.deck_size = min(cards, new_per_day * days)
    config.learn_span = days
    config.learn_limit = new_per_day
    config.review_limit = max_reviews_per_day
    config.max_cost_perday = NO_LIMIT
    runs = min(max(NEW_CARD_RUNS // config.deck_size, 1), MAX_SEEDS)
    results = [simulate(list(parameters), retention, config, SEED + run) for run in range(runs)]

    def mean(per_day: Sequence[Sequence[float]]) -> tuple[float, ...]:
        return tuple(sum(day) / runs for day in zip(*per_day, strict=True))

    return (
        mean([r.review_cnt_per_day for r in results]),
        mean([r.cost_per_day for r in results]),
        sum(r.memorized_cnt_per_day[-1] for r in results) / runs,
    )


def workload_point(
    parameters: tuple[float, ...],
    bank: Bank,
    retention: float,
    *,
    new_per_day: int,
    max_reviews_per_day: int,
    days: int = DAYS,
) -> WorkloadPoint:
    """The year's reviews, minutes and cards remembered at one desired retention."""
    reviews, seconds, remembered = _new_cards(
        parameters,
        retention,
        cards=bank.new,
        new_per_day=new_per_day,
        max_reviews_per_day=max_reviews_per_day,
        days=days,
    )
    total_reviews, total_seconds = sum(reviews), sum(seconds)
    if bank.seen:
        scale = bank.scale
        budget = [round((max_reviews_per_day - count) / scale) for count in reviews]
        seen = simulate_seen(parameters, bank.seen, retention, budget=budget, seed=SEED)
        total_reviews += scale * sum(seen.reviews_per_day)
        total_seconds += scale * sum(seen.seconds_per_day)
        remembered += scale * seen.remembered
    return WorkloadPoint(
        retention=retention,
        reviews_per_day=total_reviews / days,
        minutes_per_day=total_seconds / days / 60,
        remembered=remembered,
    )


def _near(retention: float) -> list[float]:
    steps = range(-FINE_REACH, FINE_REACH + 1)
    return [near for step in steps if LOW <= (near := round(retention + step * FINE, 2)) <= HIGH]


def workload(
    parameters: tuple[float, ...],
    bank: Bank,
    *,
    new_per_day: int,
    max_reviews_per_day: int,
    retentions: Sequence[float] | None = None,
    days: int = DAYS,
) -> tuple[WorkloadPoint, ...]:
    """The curve at `retentions`, or on the coarse grid refined around its cheapest point."""

    def point(retention: float) -> WorkloadPoint:
        return workload_point(
            parameters,
            bank,
            retention,
            new_per_day=new_per_day,
            max_reviews_per_day=max_reviews_per_day,
            days=days,
        )

    points = {retention: point(retention) for retention in retentions or COARSE}
    if retentions is None:
        cheapest = min(points.values(), key=lambda p: p.minutes_per_card)
        for near in _near(cheapest.retention):
            if near not in points:
                points[near] = point(near)
    return tuple(points[retention] for retention in sorted(points))


def _active(learner: Learner) -> tuple[ColumnElement[bool], ...]:
    """Conditions on Card.id: active in the bank and not suspended by the learner."""
    suspended = select(CardMark.card_id).where(
        CardMark.learner_id == learner.id, col(CardMark.suspended).is_(True)
    )
    return (col(Card.retired).is_(False), col(Card.id).not_in(suspended))


def _schedule_fingerprint(session: Session, learner: Learner) -> tuple[object, ...]:
    """Aggregates that change with the learner's schedule (a rating, an undo, a restore)."""
    return tuple(
        session.exec(
            select(
                func.count(),
                func.coalesce(func.sum(CardState.version), 0),
                func.max(CardState.last_review),
            ).where(CardState.learner_id == learner.id)
        ).one()
    )


def active_cards(session: Session, learner: Learner) -> int:
    """Cards in the bank the learner may study: not retired, not suspended by them."""
    return session.exec(select(func.count()).select_from(Card).where(*_active(learner))).one()


def learner_bank(
    session: Session, *, learner: Learner, now: datetime, cards: int | None = None
) -> Bank:
    """The learner's active cards (`cards`, if counted): how many are new, and the rest."""
    today = local_day(learner, now)
    cards = active_cards(session, learner) if cards is None else cards
    rows = session.exec(
        select(CardState.stability, CardState.difficulty, CardState.last_review, CardState.due)
        .join(Card, col(Card.id) == CardState.card_id)
        .where(
            CardState.learner_id == learner.id,
            col(CardState.stability).is_not(None),
            col(CardState.difficulty).is_not(None),
            col(CardState.last_review).is_not(None),
            *_active(learner),
        )
        .order_by(col(CardState.card_id))
    ).all()
    seen = sorted(
        (
            Seen(
                stability=stability,
                difficulty=difficulty,
                last=(local_day(learner, last) - today).days,
                due=max(0, (local_day(learner, due) - today).days),
            )
            for stability, difficulty, last, due in rows
            # The query already leaves these out; this says so to the type checker.
            if stability is not None and difficulty is not None and last is not None
        ),
        key=lambda card: card.due,
    )
    # Evenly spaced by due day, so the sample's load over the year is the bank's.
    sample = [seen[i * len(seen) // SAMPLE] for i in range(SAMPLE)] if len(seen) > SAMPLE else seen
    return Bank(new=cards - len(seen), seen=tuple(sample), seen_total=len(seen))


class WorkloadCache:
    """Each learner's latest curve with the inputs it was simulated from, per database."""

    def __init__(self, size: int = CACHED_LEARNERS) -> None:
        self._size = size
        self._curves: dict[int, tuple[tuple[object, ...], Workload]] = {}
        self._lock = threading.Lock()

    def get(self, learner_id: int, key: tuple[object, ...]) -> Workload | None:
        with self._lock:
            found = self._curves.get(learner_id)
        return found[1] if found is not None and found[0] == key else None

    def put(self, learner_id: int, key: tuple[object, ...], workload: Workload) -> None:
        with self._lock:
            self._curves.pop(learner_id, None)
            if len(self._curves) >= self._size:
                self._curves.pop(next(iter(self._curves)))
            self._curves[learner_id] = (key, workload)


def learner_workload(
    *, database: Database, session: Session, learner: Learner, now: datetime
) -> Workload:
    """The workload curve for this learner's bank, schedule, limits and parameters."""
    personal = usable_parameters(learner.fsrs_parameters)
    parameters = personal or DEFAULT_PARAMETERS
    cards = active_cards(session, learner)
    key = (
        _schedule_fingerprint(session, learner),
        cards,
        local_day(learner, now),
        learner.timezone,
        learner.rollover_hour,
        parameters,
        learner.new_per_day,
        learner.max_reviews_per_day,
    )
    assert learner.id is not None
    cache = database.kept(WorkloadCache)
    cached = cache.get(learner.id, key)
    if cached is not None:
        return cached
    bank = learner_bank(session, learner=learner, now=now, cards=cards)
    studyable = bank.seen_total or (bank.new and learner.new_per_day)
    result = Workload(
        cards=bank.cards,
        new_per_day=learner.new_per_day,
        max_reviews_per_day=learner.max_reviews_per_day,
        personal=personal is not None,
        points=workload(
            parameters,
            bank,
            new_per_day=learner.new_per_day,
            max_reviews_per_day=learner.max_reviews_per_day,
        )
        if studyable
        else (),
        seen=bank.seen_total,
        sampled=len(bank.seen) if len(bank.seen) < bank.seen_total else None,
    )
    cache.put(learner.id, key, result)
    return result
