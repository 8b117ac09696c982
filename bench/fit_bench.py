"""Time to fit personal FSRS parameters to a 10,000-rating log, next to evaluating the defaults.

    python bench/fit_bench.py                  # 10,000 ratings, median of 3 rounds
    python bench/fit_bench.py --ratings 2000 --rounds 5

The log is simulated from known FSRS-6 parameters (tests/support/simulated_log.py: a learner who
remembers better than the defaults assume, new cards every day and every due card studied),
cut at its first `--ratings` ratings. Three things are timed, as medians of `--rounds` runs:
what "fit my parameters" does (app.scheduling.fitting.fit: five time-series folds fitted and tested,
then a fit on every item, with fsrs-rs-python), one fit on every item alone, and evaluating
the default parameters on every item (log loss and RMSE(bins)). Simulating the log is not
timed.
"""

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.scheduling.parameters import DEFAULT_PARAMETERS  # noqa: E402
from app.scheduling.schedule import fitting  # noqa: E402
from tests.support.simulated_log import simulated_log  # noqa: E402

T = TypeVar("T")


def timed(run: Callable[[], T], rounds: int) -> tuple[float, T]:
    """Median seconds of `rounds` runs, and what the last one returned."""
    times, results = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        results.append(run())
        times.append(time.perf_counter() - started)
    return statistics.median(times), results[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    log = sorted(simulated_log(cards=2000, days=365, new_per_day=10), key=lambda r: r.at)
    if len(log) < args.ratings:
        sys.exit(f"the simulated log has only {len(log)} ratings")
    log = log[: args.ratings]
    items = fitting.fsrs_items(log)

    fit_seconds, fit = timed(lambda: fitting.fit(log, DEFAULT_PARAMETERS), args.rounds)
    once_seconds, _ = timed(lambda: fitting.compute_parameters(items), args.rounds)
    evaluate_seconds, _ = timed(lambda: fitting.evaluate(DEFAULT_PARAMETERS, items), args.rounds)
    print(
        f"{len(log)} ratings, {len(items)} items to learn from; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  fit my parameters (5 folds + the fit): {fit_seconds:.2f} s")
    print(f"  one fit on every item:                 {once_seconds:.2f} s")
    print(f"  evaluate the defaults on every item:   {evaluate_seconds:.3f} s")
    print(
        f"  held-out log loss {fit.before.log_loss:.4f} → {fit.after.log_loss:.4f}, "
        f"RMSE(bins) {fit.before.rmse_bins:.4f} → {fit.after.rmse_bins:.4f}"
    )


if __name__ == "__main__":
    main()
