"""Fitting and evaluating FSRS-6 parameters on review logs, with no database."""

import math
from datetime import timedelta

import fsrs_rs_python
import pytest

from app.scheduling import fitting
from app.scheduling.fitting import MIN_REVIEWS, FitRefused, Review
from app.scheduling.parameters import DEFAULT_PARAMETERS
from tests.support.simulated_log import START, TRUE_PARAMETERS, simulated_log


def review(card: str, rating: int, day: int, minute: int = 0) -> Review:
    return Review(card, rating, day, START + timedelta(days=day, minutes=minute))


def test_items_are_the_ratings_a_study_day_after_the_previous_one_with_their_history() -> None:
    log = [
        review("a", 3, 0),
        review("a", 1, 0, 10),  # a same-day step: part of the history, not an item
        review("b", 4, 1),
        review("a", 3, 2),
        review("b", 3, 5),
        review("a", 2, 5, 1),
    ]
    assert fitting.fsrs_items(log) == [
        ((3, 0), (1, 0), (3, 2)),
        ((4, 0), (3, 4)),
        ((3, 0), (1, 0), (3, 2), (2, 3)),
    ]


def test_evaluation_matches_a_hand_computation_on_a_tiny_log() -> None:
    w = DEFAULT_PARAMETERS
    log = [
        *(review("a", 3, 0), review("a", 3, 3)),  # Good, then recalled after 3 days
        *(review("b", 1, 0), review("b", 3, 1)),  # Again, then recalled after a day
        *(review("c", 3, 0), review("c", 1, 2)),  # Good, then forgotten after 2 days
        *(review("d", 3, 0), review("d", 3, 10)),  # Good, then recalled after 10 days
        *(review("e", 4, 0), review("e", 1, 10)),  # Easy, then forgotten after 10 days
    ]
    items = fitting.fsrs_items(log)
    # After one first rating the stability is that rating's initial stability (w0-w3); recall
    # after t days follows FSRS-6's forgetting curve with decay w20.
    decay = w[20]
    factor = 0.9 ** (-1 / decay) - 1

    def recall(first: int, days: int) -> float:
        return (1 + factor * days / w[first - 1]) ** -decay

    a, b, c, d, e = recall(3, 3), recall(1, 1), recall(3, 2), recall(3, 10), recall(4, 10)
    loss = -(math.log(a) + math.log(b) + math.log(1 - c) + math.log(d) + math.log(1 - e)) / 5
    # Bins: 1-3 days share one interval bin, 10 days is the next; all have one earlier
    # review and no lapse. Each bin's squared gap between mean prediction and mean outcome
    # is weighted by its size.
    short = ((a + b + c) / 3 - 2 / 3) ** 2 * 3
    long = ((d + e) / 2 - 1 / 2) ** 2 * 2
    evaluation = fitting.evaluate(w, items)
    assert evaluation.log_loss == pytest.approx(loss, rel=1e-5)
    assert evaluation.rmse_bins == pytest.approx(math.sqrt((short + long) / 5), rel=1e-5)


def test_a_fit_on_a_simulated_log_predicts_held_out_reviews_better_than_the_defaults() -> None:
    log = simulated_log()
    items = fitting.fsrs_items(log)
    cut = len(items) * 4 // 5
    fitted = fitting.compute_parameters(items[:cut])
    held_out = items[cut:]
    mine, defaults = (
        fitting.evaluate(fitted, held_out),
        fitting.evaluate(DEFAULT_PARAMETERS, held_out),
    )
    assert mine.log_loss < defaults.log_loss
    assert mine.rmse_bins < defaults.rmse_bins
    # The fitted model comes close to the one the log was simulated from.
    truth = fitting.evaluate(TRUE_PARAMETERS, held_out)
    assert mine.log_loss < truth.log_loss + 0.02


def test_fit_reports_the_time_series_split_as_the_engine_computes_it() -> None:
    log = simulated_log()
    result = fitting.fit(log, DEFAULT_PARAMETERS)
    assert result.items == len(fitting.fsrs_items(log)) >= MIN_REVIEWS
    assert result.better
    assert result.after.log_loss < result.before.log_loss
    assert result.after.rmse_bins < result.before.rmse_bins
    items = [fitting.engine_item(item) for item in fitting.fsrs_items(log)]
    engine = fsrs_rs_python.evaluate_with_time_series_splits(items)
    assert result.after.log_loss == pytest.approx(engine.log_loss, rel=1e-4)
    assert result.after.rmse_bins == pytest.approx(engine.rmse_bins, rel=1e-4)
    # The same log gives the same fit.
    assert fitting.fit(log, DEFAULT_PARAMETERS) == result


def test_the_folds_cut_the_items_in_time_order_into_six_segments() -> None:
    items = [((3, 0), (3, n + 1)) for n in range(20)]
    assert fitting.folds(items) == [(3, 3, 6), (6, 6, 9), (9, 9, 12), (12, 12, 15), (15, 15, 20)]


def test_too_few_reviews_are_refused_saying_how_many_are_needed() -> None:
    log = [review(f"c{n}", 3, day) for n in range(10) for day in (0, 2, 5)]
    with pytest.raises(FitRefused) as refused:
        fitting.fit(log, DEFAULT_PARAMETERS)
    assert refused.value.reason == "not_enough"
    assert refused.value.result == {"reason": "not_enough", "counted": 20, "needed": MIN_REVIEWS}
    assert (refused.value.code, refused.value.status) == ("fit_not_enough", 409)


def test_a_log_of_same_day_reviews_only_is_refused() -> None:
    log = [
        review(f"c{n}", rating, 0, step)
        for n in range(200)
        for step, rating in enumerate((1, 3, 3))
    ]
    with pytest.raises(FitRefused) as refused:
        fitting.fit(log, DEFAULT_PARAMETERS)
    assert refused.value.reason == "same_day"


def test_a_log_of_nothing_but_again_is_refused() -> None:
    log = [review(f"c{n}", 1, day) for n in range(40) for day in (0, 1, 3, 7)]
    with pytest.raises(FitRefused) as refused:
        fitting.fit(log, DEFAULT_PARAMETERS)
    assert refused.value.reason == "all_again"
    assert refused.value.result["counted"] == 120
