"""Time to simulate the settings page's workload chart, the way the page does on a cache miss.

    python bench/workload_bench.py                          # 2,000 cards, 1,000 of them studied
    python bench/workload_bench.py --cards 500 --seen 0     # a learner who has studied nothing

Builds a learner's bank in memory: `--seen` studied cards with stabilities spread as in a
year-old collection (log-normal around 20 days), each last reviewed within its interval and
due at the end of it, and the rest of `--cards` new, 20 new cards and 200 reviews a day. It
times app.scheduling.simulate.workload, the whole chart (every 0.03 from 0.70 to 0.97 and every 0.01
around the cheapest; a small bank's new cards over several seeds), next to what the chart
computed before studied cards started from their own state: one fsrs-rs simulation of the
whole bank as new for each of the ten coarse points. Each is the median wall-clock and CPU
time of `--rounds` runs; the app's cache of new-card simulations is cleared before each.
"""

import argparse
import os
import random
import statistics
import time

from fsrs_rs_python import FSRS, default_simulator_config
from fsrs_rs_python import simulate as fsrs_simulate

from app.scheduling import simulate
from app.scheduling.parameters import DEFAULT_PARAMETERS
from app.scheduling.simulate import COARSE, DAYS, NO_LIMIT, SAMPLE, SEED, Bank, workload
from app.scheduling.simulate_reviews import Seen


def studied(count: int, seed: int = 7) -> tuple[Seen, ...]:
    rng = random.Random(seed)
    engine = FSRS(list(DEFAULT_PARAMETERS))
    cards = []
    for _ in range(count):
        stability = min(max(rng.lognormvariate(3.0, 1.2), 0.5), 3000.0)
        interval = max(1, round(engine.next_interval(stability, 0.9, 3)))
        last = -rng.randrange(interval)
        cards.append(Seen(stability, rng.uniform(2.0, 9.0), last, last + interval))
    return tuple(cards)


def timed(run, rounds: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median wall-clock and CPU seconds of `rounds` runs."""
    wall, cpu = [], []
    for _ in range(rounds):
        simulate._new_cards.cache_clear()
        started, started_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--seen", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    seen = studied(args.seen)
    sample = tuple(sorted(seen, key=lambda card: card.due))
    if len(sample) > SAMPLE:
        sample = tuple(sample[i * len(sample) // SAMPLE] for i in range(SAMPLE))
    bank = Bank(new=args.cards - args.seen, seen=sample, seen_total=args.seen)
    limits = {"new_per_day": 20, "max_reviews_per_day": 200}

    def coarse_all_new() -> None:
        # The chart as it was: one fsrs-rs simulation of the whole bank, new, per point.
        config = default_simulator_config()
        config.deck_size, config.learn_span = args.cards, DAYS
        config.learn_limit = limits["new_per_day"]
        config.review_limit = limits["max_reviews_per_day"]
        config.max_cost_perday = NO_LIMIT
        for retention in COARSE:
            fsrs_simulate(list(DEFAULT_PARAMETERS), retention, config, SEED)

    points: tuple = ()

    def chart() -> None:
        nonlocal points
        points = workload(DEFAULT_PARAMETERS, bank, **limits)

    before = timed(coarse_all_new, args.rounds)
    after = timed(chart, args.rounds)
    print(
        f"{args.cards} cards, {args.seen} studied ({len(sample)} simulated), 20 new and 200 "
        f"reviews a day; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  10 points, every card new: {before[0]:.2f} s ({before[1]:.2f} s CPU)")
    print(
        f"  {len(points)} points, studied cards from their state: {after[0]:.2f} s "
        f"({after[1]:.2f} s CPU)"
    )


if __name__ == "__main__":
    main()
