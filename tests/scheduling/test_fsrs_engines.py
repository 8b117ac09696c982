"""The scheduler (fsrs) and the fitter and simulator (fsrs-rs-python) are one model, FSRS-6."""

from datetime import UTC, datetime, timedelta

import fsrs_rs_python
import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS as SCHEDULER_DEFAULTS

from app.scheduling import fitting, schedule
from app.scheduling.cardstate import CardStateValue, State
from app.scheduling.parameters import COUNT, DEFAULT_PARAMETERS, check_parameters
from tests.support.simulated_log import simulated_log

NOW = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


def test_both_engines_have_the_fsrs6_defaults() -> None:
    assert COUNT == 21
    assert pytest.approx(DEFAULT_PARAMETERS) == SCHEDULER_DEFAULTS
    assert pytest.approx(DEFAULT_PARAMETERS) == fsrs_rs_python.DEFAULT_PARAMETERS


@pytest.fixture(scope="module")
def fitted() -> tuple[float, ...]:
    return fitting.compute_parameters(fitting.fsrs_items(simulated_log()))


def test_fitted_parameters_are_ones_the_scheduler_accepts(fitted: tuple[float, ...]) -> None:
    assert check_parameters(fitted) == fitted
    assert schedule.scheduler(0.9, fitted).parameters == fitted


@pytest.mark.parametrize("which", ["defaults", "fitted"])
@pytest.mark.parametrize(
    ("stability", "difficulty", "days"), [(3.0, 5.0, 3), (12.5, 7.2, 20), (80.0, 3.1, 45)]
)
@pytest.mark.parametrize("retention", [0.8, 0.9, 0.95])
def test_a_review_cards_next_states_agree_between_the_engines(
    which: str,
    stability: float,
    difficulty: float,
    days: int,
    retention: float,
    fitted: tuple[float, ...],
) -> None:
    parameters = DEFAULT_PARAMETERS if which == "defaults" else fitted
    last = NOW - timedelta(days=days)
    state = CardStateValue(State.REVIEW, None, stability, difficulty, NOW, last, 5, 0)
    engine = fsrs_rs_python.FSRS(list(parameters))
    memory = fsrs_rs_python.MemoryState(stability, difficulty)
    expected = engine.next_states(memory, retention, days)
    for rating, rust in zip(
        (1, 2, 3, 4), (expected.again, expected.hard, expected.good, expected.easy), strict=True
    ):
        after = schedule.review(
            state, rating, NOW, desired_retention=retention, parameters=parameters
        )
        assert after.stability == pytest.approx(rust.memory.stability, rel=1e-4)
        assert after.difficulty == pytest.approx(rust.memory.difficulty, rel=1e-4)
        if rating > 1:  # Again goes to a relearning step instead
            assert (after.due - NOW).days == max(1, round(rust.interval))


@pytest.mark.parametrize("rating", [1, 2, 3, 4])
def test_a_new_cards_first_stability_agrees_between_the_engines(
    rating: int, fitted: tuple[float, ...]
) -> None:
    after = schedule.review(None, rating, NOW, parameters=fitted)
    rust = fsrs_rs_python.FSRS(list(fitted)).next_states(None, 0.9, 0)
    state = (rust.again, rust.hard, rust.good, rust.easy)[rating - 1]
    assert after.stability == pytest.approx(state.memory.stability, rel=1e-4)
    assert after.difficulty == pytest.approx(state.memory.difficulty, rel=1e-4)
