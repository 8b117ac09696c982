"""Workload against desired retention, simulated by fsrs-rs for a learner's bank and limits.

For each desired retention from 0.70 to 0.97 the engine simulates a year of study: every card
of the bank new on day one, at most `new_per_day` new cards and `max_reviews_per_day` reviews a
day, recall drawn from the learner's FSRS-6 parameters, seconds per review from the engine's
defaults (Anki users' median times per state and rating). The retention marked as the one to
choose minimises the time spent per card remembered at the end, as Anki's "help me decide" does.
"""

from dataclasses import dataclass
from functools import lru_cache

from fsrs_rs_python import default_simulator_config, simulate
from sqlmodel import Session, col, func, select

from app.models import Card, Learner
from app.parameters import DEFAULT_PARAMETERS, usable_parameters

# Every 0.03 from 0.70 to 0.97: ten simulations keep the first view of the page quick.
RETENTIONS = tuple(round(0.70 + 0.03 * step, 2) for step in range(10))
DAYS = 365
SEED = 2025  # one seed for every retention: the curves differ by retention, not by luck
NO_LIMIT = 86400.0  # seconds a day: the simulated learner never stops for lack of time


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
class Workload:
    cards: int
    new_per_day: int
    max_reviews_per_day: int
    personal: bool  # the learner's fitted parameters, not the defaults
    points: tuple[WorkloadPoint, ...]

    @property
    def best(self) -> WorkloadPoint | None:
        """The retention with the least study time per card remembered (None: empty bank)."""
        return min(self.points, key=lambda point: point.minutes_per_card, default=None)


@lru_cache(maxsize=32)
def workload(
    parameters: tuple[float, ...],
    *,
    cards: int,
    new_per_day: int,
    max_reviews_per_day: int,
    retentions: tuple[float, ...] = RETENTIONS,
    days: int = DAYS,
) -> tuple[WorkloadPoint, ...]:
    """Simulated reviews and minutes a day at each desired retention."""
    config = default_simulator_config()
    config.deck_size = cards
    config.learn_span = days
    config.learn_limit = new_per_day
    config.review_limit = max_reviews_per_day
    config.max_cost_perday = NO_LIMIT
    points = []
    for retention in retentions:
        result = simulate(list(parameters), retention, config, SEED)
        points.append(
            WorkloadPoint(
                retention=retention,
                reviews_per_day=sum(result.review_cnt_per_day) / days,
                minutes_per_day=sum(result.cost_per_day) / days / 60,
                remembered=result.memorized_cnt_per_day[-1],
            )
        )
    return tuple(points)


def bank_size(session: Session) -> int:
    """Active cards in the bank: what a learner would study."""
    return session.exec(
        select(func.count()).select_from(Card).where(col(Card.retired).is_(False))
    ).one()


def learner_workload(*, session: Session, learner: Learner) -> Workload:
    """The workload curve for this learner's bank, limits and parameters."""
    personal = usable_parameters(learner.fsrs_parameters)
    cards = bank_size(session)
    return Workload(
        cards=cards,
        new_per_day=learner.new_per_day,
        max_reviews_per_day=learner.max_reviews_per_day,
        personal=personal is not None,
        points=workload(
            personal or DEFAULT_PARAMETERS,
            cards=cards,
            new_per_day=learner.new_per_day,
            max_reviews_per_day=learner.max_reviews_per_day,
        )
        if cards and learner.new_per_day
        else (),
    )
