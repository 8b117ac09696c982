"""The studied cards' simulation agrees with fsrs-rs's own simulator on the same cards."""

import random
import statistics

import pytest
from fsrs_rs_python import FSRS, default_simulator_config, simulate

from app.scheduling.parameters import DEFAULT_PARAMETERS
from app.scheduling.simulate_reviews import Seen, simulate_seen

CARDS, DAYS, RETENTION, SEEDS = 1000, 365, 0.9, range(1, 5)


def learned_today(count: int, seed: int = 5) -> list[Seen]:
    """Cards as fsrs-rs's simulator leaves them after their first day: a first rating drawn
    from its shares, then its learning steps, each state from the engine."""
    config = default_simulator_config()
    engine = FSRS(list(DEFAULT_PARAMETERS))
    rng = random.Random(seed)
    cards = []
    for _ in range(count):
        rating = rng.choices((1, 2, 3, 4), config.first_rating_prob)[0]
        states = engine.next_states(None, RETENTION, 0)
        memory = (states.again, states.hard, states.good, states.easy)[rating - 1].memory
        steps = config.learning_step_count - (1 if rating > 2 else 0)
        passed = 0
        for _ in range(5):
            if passed >= steps or rating >= 4:
                break
            rating = rng.choices((1, 2, 3, 4), config.learning_step_transitions[rating - 1])[0]
            states = engine.next_states(memory, RETENTION, 0)
            memory = (states.again, states.hard, states.good, states.easy)[rating - 1].memory
            passed = passed + 1 if rating > 2 else 0 if rating == 1 else passed
        interval = max(1, round(engine.next_interval(memory.stability, RETENTION, 3)))
        cards.append(Seen(memory.stability, memory.difficulty, last=0, due=interval))
    return cards


def test_a_year_of_reviews_matches_fsrs_rs_on_cards_learned_the_same_day() -> None:
    # fsrs-rs: every card new and learned on day 0, then reviewed as it falls due.
    config = default_simulator_config()
    config.deck_size, config.learn_span, config.learn_limit = CARDS, DAYS, CARDS
    config.max_cost_perday = 1e9
    engine_runs = [simulate(list(DEFAULT_PARAMETERS), RETENTION, config, s) for s in SEEDS]
    # Ours: the same cards, already past their first day.
    cards = learned_today(CARDS)
    unlimited = [CARDS * 10] * DAYS
    ours = [
        simulate_seen(DEFAULT_PARAMETERS, cards, RETENTION, budget=unlimited, seed=s) for s in SEEDS
    ]

    def mean(values: list[float]) -> float:
        return statistics.mean(values)

    engine_reviews = mean([sum(r.review_cnt_per_day) for r in engine_runs])
    our_reviews = mean([sum(r.reviews_per_day) for r in ours])
    assert our_reviews == pytest.approx(engine_reviews, rel=0.08)
    engine_remembered = mean([r.memorized_cnt_per_day[-1] for r in engine_runs])
    assert mean([r.remembered for r in ours]) == pytest.approx(engine_remembered, rel=0.03)
    # Seconds of review (the engine's day 0 also holds the learning, which ours has not).
    engine_seconds = mean([sum(r.cost_per_day[1:]) for r in engine_runs])
    assert mean([sum(r.seconds_per_day) for r in ours]) == pytest.approx(engine_seconds, rel=0.08)
