"""Fit and evaluate FSRS-6 parameters on a review log with fsrs-rs, the engine inside Anki.

The log becomes one FSRSItem per rating given a study day or more after the card's previous
one: the card's reviews up to and including that rating, each with the days since the one
before (same-day learning steps are 0 and stay in the history). An item asks the model for the
recall probability of its last review; that review's rating says whether the card was recalled.

Before/after figures come from a time-series split as the srs-benchmark does it: items in time
order cut into six segments, fitted on the first k and tested on segment k+1 (k = 1..5), the
predictions of all five test segments pooled. The parameters in use are tested on the same
pooled items, so both figures answer one question: how well each predicts reviews it has not
seen.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from fsrs_rs_python import FSRS, FSRSItem, FSRSReview

from app.errors import Conflict
from app.scheduling.parameters import DEFAULT_PARAMETERS

# fsrs-rs fits nothing below 8 items (it hands back the defaults) and below 64 only the four
# initial stabilities; from 64 it trains every parameter. A personal fit needs the latter.
MIN_REVIEWS = 64
SPLITS = 5


Item = tuple[tuple[int, int], ...]  # (rating, days since the previous review) per review


class Review(NamedTuple):
    """One study rating as the fitter sees it: `day` is the learner's study-day number."""

    card: str
    rating: int
    day: int
    at: datetime


class FitRefused(Conflict):
    """The log cannot be fitted; `reason` names the i18n message, `details` its values."""

    def __init__(self, reason: str, **details: object) -> None:
        super().__init__(f"fit_{reason}", key=f"fit.{reason}", **details)
        self.reason = reason
        self.details = details
        # What a failed job records as its result, so a page can say it in the reader's language.
        self.result = {"reason": reason, **details}


@dataclass(frozen=True)
class Evaluation:
    log_loss: float
    rmse_bins: float


@dataclass(frozen=True)
class Fit:
    items: int  # ratings the model learns from (see the module docstring)
    parameters: tuple[float, ...]  # fitted on every item
    before: Evaluation  # the parameters in use, on the pooled test segments
    after: Evaluation  # fitted on the earlier segments, on the same items

    @property
    def better(self) -> bool:
        return self.after.log_loss < self.before.log_loss


def fsrs_items(reviews: Iterable[Review]) -> list[Item]:
    """The log's items, in the time order of their last review."""
    history: dict[str, list[tuple[int, int]]] = {}
    last_day: dict[str, int] = {}
    items: list[Item] = []
    for review in sorted(reviews, key=lambda r: r.at):
        seen = history.setdefault(review.card, [])
        delta = review.day - last_day[review.card] if seen else 0
        seen.append((review.rating, delta))
        last_day[review.card] = review.day
        if len(seen) > 1 and delta > 0:
            items.append(tuple(seen))
    return items


def engine_item(reviews: Sequence[tuple[int, int]]) -> FSRSItem:
    return FSRSItem([FSRSReview(rating, delta) for rating, delta in reviews])


def _recalled(item: Item) -> float:
    return float(item[-1][0] > 1)


def predictions(parameters: Sequence[float], items: Sequence[Item]) -> list[float]:
    """The model's recall probability for the last review of each item."""
    engine = FSRS(list(parameters))
    states = engine.memory_state_batch([engine_item(item[:-1]) for item in items])
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return [
        (1 + factor * item[-1][1] / state.stability) ** decay
        for item, state in zip(items, states, strict=True)
    ]


def _bin(item: Item) -> tuple[int, int, int]:
    # The srs-benchmark's (and fsrs-rs's) bins: interval, review count and lapse count, each
    # on a log scale.
    delta = item[-1][1]
    delta_bin = round(2.48 * 3.62 ** math.floor(math.log(delta, 3.62)) * 100)
    length = sum(d > 0 for _, d in item) + 1
    length_bin = round(1.99 * 1.89 ** math.floor(math.log(length, 1.89)))
    lapses = sum(r == 1 and d > 0 for r, d in item[:-1])
    lapse_bin = round(1.65 * 1.73 ** math.floor(math.log(lapses, 1.73))) if lapses else 0
    return delta_bin, length_bin, lapse_bin


def metrics(items: Sequence[Item], predicted: Sequence[float]) -> Evaluation:
    """Log loss and RMSE(bins) of `predicted` recall against what happened."""
    loss = 0.0
    bins: dict[tuple[int, int, int], list[float]] = {}
    for item, p in zip(items, predicted, strict=True):
        y = _recalled(item)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        total = bins.setdefault(_bin(item), [0.0, 0.0, 0.0])
        total[0] += p
        total[1] += y
        total[2] += 1
    squares = sum(n * (p / n - y / n) ** 2 for p, y, n in bins.values())
    return Evaluation(log_loss=loss / len(items), rmse_bins=math.sqrt(squares / len(items)))


def evaluate(parameters: Sequence[float], items: Sequence[Item]) -> Evaluation:
    """How well `parameters` predict the items."""
    return metrics(items, predictions(parameters, items))


def folds(items: Sequence[Item], splits: int = SPLITS) -> list[tuple[int, int, int]]:
    """(train end, test start, test end) of each fold, as fsrs-rs's TimeSeriesSplit cuts."""
    size = len(items) // (splits + 1)
    return [
        (size * (k + 1), size * (k + 1), len(items) if k == splits - 1 else size * (k + 2))
        for k in range(splits)
    ]


def compute_parameters(items: Sequence[Item]) -> tuple[float, ...]:
    """Parameters fitted to the items by fsrs-rs (its seed is fixed: the same log, the same fit)."""
    engine = FSRS(list(DEFAULT_PARAMETERS))
    fitted = engine.compute_parameters([engine_item(item) for item in items])
    return tuple(float(value) for value in fitted)


def check_log(reviews: Sequence[Review]) -> list[Item]:
    """The log's items, or FitRefused saying why it cannot be fitted."""
    items = fsrs_items(reviews)
    if not items and reviews:
        raise FitRefused(
            "same_day",
            counted=0,
            needed=MIN_REVIEWS,
        )
    if len(items) < MIN_REVIEWS:
        raise FitRefused(
            "not_enough",
            counted=len(items),
            needed=MIN_REVIEWS,
        )
    if not any(_recalled(item) for item in items):
        raise FitRefused(
            "all_again",
            counted=len(items),
            needed=MIN_REVIEWS,
        )
    return items


def fit(reviews: Sequence[Review], current: Sequence[float]) -> Fit:
    """Fit parameters to the log and compare them with `current` on held-out reviews."""
    items = check_log(reviews)
    held_out: list[Item] = []
    predicted: list[float] = []
    for train_end, test_start, test_end in folds(items):
        test = items[test_start:test_end]
        held_out.extend(test)
        predicted.extend(predictions(compute_parameters(items[:train_end]), test))
    return Fit(
        items=len(items),
        parameters=compute_parameters(items),
        before=evaluate(current, held_out),
        after=metrics(held_out, predicted),
    )
