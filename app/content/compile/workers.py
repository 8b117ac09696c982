"""Worker processes that parse a note and later render it in the same process.

A note's tokens cost more to send between processes than to make (pickling them takes longer
than parsing the text), and the bank is checked as a whole between the parse and the render.
So each worker has an executor of its own, every note goes to the same worker for both, and
the worker keeps the notes it parsed, tokens and all, until it renders them, within a budget:
those are named by their path when their render is asked for; past it a note is sent back to
its worker and its text parsed again.
"""

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from markdown_it.token import Token

from app.content.compile.collection import full_collections_rarely
from app.content.compile.render import FormulaKey, formula_key, render_katex_on_this_thread
from app.content.notes.markdown import MATH_TYPES
from app.content.notes.parsed import ParsedDeck, ParsedTopic

T = TypeVar("T")
Parsed = ParsedDeck | ParsedTopic

# Text of notes whose tokens a worker keeps between parsing and rendering them. Tokens take
# ~30 bytes per character (~120 MB per worker here). Below it, a note is parsed once: the
# 10,000-card benchmark bank (6.3 M characters, two workers) fits, where at 1 M its largest
# notes, two thirds of its text, were parsed a second time. Past it, the memory is bounded and
# a note's text is parsed again.
KEEP_CHARS = 4_000_000

# In a worker process: note path → the note as parsed here, tokens and all, till its render.
_kept: dict[str, Parsed] = {}
_kept_chars = [0]
# In a worker process: the formulas in the notes parsed here, to share those that notes parsed
# by other workers hold too (see build.compile_items).
_formulas: set[FormulaKey] = set()


class Workers:
    """Worker processes, each its own executor, with every note placed on one of them."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.executors = [
            ProcessPoolExecutor(1, mp_context=context, initializer=_start_worker)
            for _ in range(count)
        ]
        self._load = [0] * count
        self._home: dict[str, int] = {}
        self.kept: set[str] = set()  # paths of notes a worker keeps as it parsed them

    def __len__(self) -> int:
        return len(self.executors)

    def place(self, path: str, size: int) -> int:
        """The worker of the note at `path`: the least loaded when first asked, then the same."""
        if path not in self._home:
            worker = min(range(len(self._load)), key=self._load.__getitem__)
            self._home[path] = worker
            self._load[worker] += size
        return self._home[path]

    def submit(self, worker: int, fn: Callable[..., T], *args: Any) -> "Future[T]":
        """Run `fn(*args)` in worker number `worker`."""
        return self.executors[worker].submit(fn, *args)

    def shutdown(self) -> None:
        """Stop every worker, dropping work not yet started."""
        for executor in self.executors:
            executor.shutdown(cancel_futures=True)


def _start_worker() -> None:
    render_katex_on_this_thread()
    # A worker lives for one import, holding the notes it parsed till it renders them.
    full_collections_rarely()


def keep(item: Parsed) -> bool:
    """In a worker: keep `item`, just parsed here, for its render if within budget; if kept.

    A kept note need not travel back for its render: it is named by its path."""
    note = item.note
    if note is None or note.tokens is None or item.path in _kept:
        return False
    if _kept_chars[0] + len(note.text) > KEEP_CHARS:
        return False
    _kept[item.path] = item
    _kept_chars[0] += len(note.text)
    return True


def take(path: str) -> Parsed:
    """In a worker: the note at `path` as it was kept when parsed here."""
    item = _kept.pop(path)
    if item.note is not None:
        _kept_chars[0] -= len(item.note.text)
    return item


def note_formulas(tokens: list[Token]) -> None:
    """In a worker: note the formulas among `tokens`, a note's just parsed here."""
    stack = [tokens]
    while stack:
        for token in stack.pop():
            if token.type in MATH_TYPES:
                _formulas.add(formula_key(token))
            elif token.children:
                stack.append(token.children)


def formulas_here() -> set[FormulaKey]:
    """In a worker: the formulas of the notes parsed here (see note_formulas)."""
    return _formulas
