"""A learner's cards already in review, simulated day by day on fsrs-rs's own FSRS-6 model.

fsrs-rs-python's `simulate` starts every card new, so the cards a learner has already studied
are simulated here, as the engine's simulator does: each day the cards due are reviewed in
order of due day, then difficulty, up to the day's review budget (the rest wait a day); a card
is recalled with the probability of the engine's forgetting curve (`Card.retention_on`); a
recalled card is rated Hard, Good or Easy with the engine's default shares; a forgotten one is
rated Again and goes through the relearning steps, each step rated by the engine's step
transitions; every new memory state comes from the engine (`FSRS.next_states`, with zero
days elapsed for a same-day step) and the next interval from `FSRS.next_interval`. The seconds
per rating are the engine's defaults, as for new cards.
"""

import heapq
import random
from bisect import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from fsrs_rs_python import FSRS, Card, MemoryState, SimulatorConfig, default_simulator_config

# The engine's state_rating_costs rows and its cap on relearning steps.
REVIEW, RELEARNING = 1, 2
MAX_STEPS = 5


@dataclass(frozen=True)
class Seen:
    """A studied card; days count from today (0), so `last` is 0 or before and `due` 0 or after."""

    stability: float
    difficulty: float
    last: int
    due: int


@dataclass(frozen=True)
class SeenResult:
    reviews_per_day: tuple[int, ...]
    seconds_per_day: tuple[float, ...]
    remembered: float  # the cards' recall probabilities summed on the last day


def _draw(rng: random.Random, weights: Sequence[float]) -> int:
    """An index drawn with the given weights."""
    bounds = list(accumulate(weights))
    return min(bisect(bounds, rng.random() * bounds[-1]), len(bounds) - 1)


def _memory(
    engine: FSRS, memory: MemoryState, retention: float, days: int, rating: int
) -> MemoryState:
    states = engine.next_states(memory, retention, days)
    return (states.again, states.hard, states.good, states.easy)[rating - 1].memory


def _relearn(
    engine: FSRS, memory: MemoryState, retention: float, config: SimulatorConfig, rng: random.Random
) -> tuple[MemoryState, float]:
    """The relearning steps after a lapse, as the engine's simulator takes them."""
    rating, consecutive, seconds = 1, 0, 0.0
    costs = config.state_rating_costs[RELEARNING]
    for _ in range(MAX_STEPS):
        if consecutive >= config.relearning_step_count or rating >= 4:
            break
        rating = 1 + _draw(rng, config.relearning_step_transitions[rating - 1])
        memory = _memory(engine, memory, retention, 0, rating)
        seconds += costs[rating - 1]
        if rating > 2:
            consecutive += 1
        elif rating == 1:
            consecutive = 0
    return memory, seconds


def simulate_seen(
    parameters: Sequence[float],
    cards: Sequence[Seen],
    retention: float,
    *,
    budget: Sequence[int],
    seed: int,
    config: SimulatorConfig | None = None,
) -> SeenResult:
    """Reviews and seconds on each day of `budget` (the reviews the day allows these cards)."""
    config = config or default_simulator_config()
    days = len(budget)
    engine = FSRS(list(parameters))
    # Each card draws from its own stream, so that at another retention it meets the same
    # luck: the curves then differ by retention rather than by chance.
    luck = [random.Random(seed * 1_000_003 + index) for index in range(len(cards))]
    recall_shares = config.review_rating_prob
    state = []
    for card in cards:
        engine_card = Card()
        engine_card.parameters = list(parameters)
        engine_card.stability, engine_card.difficulty = card.stability, card.difficulty
        engine_card.last_date = float(card.last)
        state.append(engine_card)
    queue = [(card.due, card.difficulty, index) for index, card in enumerate(cards)]
    heapq.heapify(queue)
    reviews, seconds = [0] * days, [0.0] * days
    review_costs = config.state_rating_costs[REVIEW]
    for day in range(days):
        while queue and queue[0][0] <= day:
            _, _, index = heapq.heappop(queue)
            held = state[index]
            if reviews[day] >= budget[day]:
                heapq.heappush(queue, (day + 1, held.difficulty, index))
                continue
            elapsed = day - round(held.last_date)
            rng = luck[index]
            recalled = rng.random() < held.retention_on(float(day))
            rating = 2 + _draw(rng, recall_shares) if recalled else 1
            memory = _memory(
                engine, MemoryState(held.stability, held.difficulty), retention, elapsed, rating
            )
            cost = review_costs[rating - 1]
            if not recalled:
                memory, steps = _relearn(engine, memory, retention, config, rng)
                cost += steps
            reviews[day] += 1
            seconds[day] += cost
            held.stability, held.difficulty = memory.stability, memory.difficulty
            held.last_date = float(day)
            interval = engine.next_interval(memory.stability, retention, 3)
            interval = min(max(round(interval), 1), config.max_ivl)
            if day + interval < days:
                heapq.heappush(queue, (day + int(interval), held.difficulty, index))
    remembered = sum(card.retention_on(float(days - 1)) for card in state)
    return SeenResult(tuple(reviews), tuple(seconds), remembered)
