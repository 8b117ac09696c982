"""The CPU time a piece of work costs, measured apart from the test process's own heap."""

import gc
import time
from collections.abc import Callable


def least_cpu_seconds(work: Callable[[], object], runs: int) -> float:
    """The least process CPU time of `runs` calls of `work`, each starting without garbage.

    A worker that has run hundreds of tests holds over a million objects, unfrozen whenever an
    app's lifespan ended (`gc.unfreeze()` thaws all). A full collection the work happens to
    trigger then walks them all, seconds, and is charged to whichever run it fell in. They are
    frozen first, as the worker's start froze its own, so each collection walks only what the
    runs made; they stay frozen.
    """
    gc.freeze()
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best
