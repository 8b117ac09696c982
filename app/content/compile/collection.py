"""Fewer full garbage collections while notes' tokens stay alive from their parse to their render.

CPython collects its oldest generation each time the objects that outlived the younger ones
grow by a quarter. An import keeps every note's tokens from its parse to its render, so the
heap grows all through the parse, and each full collection walks all of it to free next to
nothing: twelve of them took ~2 s of a 10,000-card import's CPU. Younger generations are
collected as usual, so short-lived cycles still go at once.
"""

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Younger collections between two full ones (CPython's default: 10): a 10,000-card import
# makes ~300.
FULL_AFTER = 1000

# The setting is the process's: the first of overlapping imports (threads) changes it and the
# last puts it back.
_lock = threading.Lock()
_holders = [0]
_saved: list[tuple[int, int, int]] = []


def full_collections_rarely() -> tuple[int, int, int]:
    """Collect the oldest generation rarely from now on; the thresholds it replaced."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, FULL_AFTER))
    return young, middle, full


@contextmanager
def fewer_full_collections() -> Iterator[None]:
    """Collect the oldest generation rarely while the block runs."""
    with _lock:
        if not _holders[0]:
            _saved[:] = [full_collections_rarely()]
        _holders[0] += 1
    try:
        yield
    finally:
        with _lock:
            _holders[0] -= 1
            if not _holders[0]:
                gc.set_threshold(*_saved.pop())
