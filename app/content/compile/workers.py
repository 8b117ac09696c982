"""Worker processes that parse a note and later render it in the same process.

A note's tokens cost more to send between processes than to make (pickling them takes longer
than parsing the text), and the bank is checked as a whole between the parse and the render.
So each worker has an executor of its own, every note goes to the same worker for both, and
the worker keeps the tokens of the notes it parsed until it renders them, within a budget:
past it a note's text is parsed again when it is rendered.
"""

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from markdown_it.token import Token

from app.content.compile.render import render_katex_on_this_thread
from app.content.notes.spans import NoteTokens

T = TypeVar("T")

# Text of notes whose tokens a worker keeps between parsing and rendering them. Tokens take
# ~27 bytes per character (~27 MB per worker here) and every object kept is one more for the
# garbage collector to walk: past this, parsing a note's text again costs less than keeping it.
KEEP_CHARS = 1_000_000

# In a worker process: note path → (the text parsed, its tokens), and their text's length.
_kept: dict[str, tuple[str, list[Token]]] = {}
_kept_chars = [0]


class Workers:
    """Worker processes, each its own executor, with every note placed on one of them."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.executors = [
            ProcessPoolExecutor(1, mp_context=context, initializer=render_katex_on_this_thread)
            for _ in range(count)
        ]
        self._load = [0] * count
        self._home: dict[str, int] = {}

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


def keep(path: str, note: NoteTokens | None) -> None:
    """In a worker: keep the tokens of the note at `path` for its render, if within budget."""
    if note is None or note.tokens is None or path in _kept:
        return
    if _kept_chars[0] + len(note.text) > KEEP_CHARS:
        return
    _kept[path] = (note.text, note.tokens)
    _kept_chars[0] += len(note.text)


def restore(path: str, note: NoteTokens | None) -> None:
    """In a worker: give `note` the tokens kept when it was parsed here, if they were kept."""
    found = _kept.pop(path, None)
    if found is None:
        return
    text, tokens = found
    _kept_chars[0] -= len(text)
    if note is not None and note.text == text:
        note.tokens = tokens
