"""Parse and render sources into ready-to-store data, and validate the bank as a whole."""

import logging
import os
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path

import pykatex

from app.content.compile.cards import compile_deck, compile_topic
from app.content.compile.compiled import (
    Compiled,
    CompiledCard,
    CompiledDeck,
    CompiledFollowup,
    CompiledTopic,
    Forms,
    forms_of,
    with_parsed,
)
from app.content.compile.render import FormulaKey, Renderer
from app.content.compile.workers import Workers, formulas_here, keep, note_formulas, take
from app.content.errors import ContentError, ContentWarning, Said
from app.content.notes.parse import parse_note
from app.content.notes.parsed import Names, ParsedDeck, ParsedTopic
from app.content.notes.source import SourceText

# The compiled shapes are read from here by the bank stage.
__all__ = [
    "Compiled",
    "CompiledCard",
    "CompiledDeck",
    "CompiledFollowup",
    "CompiledTopic",
    "compile_item",
    "compile_items",
    "compile_sources",
    "gather",
    "parse_source",
    "parse_sources",
    "split_warnings",
    "worker_count",
    "worker_pool",
]

logger = logging.getLogger(__name__)

Parsed = ParsedDeck | ParsedTopic

_log = logging.getLogger("qbank.content")

# Below this much changed text (~500 cards) starting worker processes costs more than it saves.
PARALLEL_MIN_CHARS = 300_000
# Each worker is a Python process with its own KaTeX engine and formula cache (~100 MB on a
# 10,000-card bank); past a few of them memory grows faster than the import gets quicker.
MAX_WORKERS = 4


def compile_sources(sources: list[SourceText], renderer: Renderer) -> Compiled:
    """Parse and render every source; collect all errors rather than stopping at the first."""
    parsed = [parse_source(source) for source in sources]
    items = compile_items([item for item, _ in parsed], renderer, workers=worker_count(sources))
    return gather(parsed, items, Compiled())


def gather(
    parsed: list[tuple[Parsed | None, list[ContentError]]],
    items: Iterable[tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]],
    out: Compiled,
) -> Compiled:
    """Add each note's compiled deck or topic, errors and warnings to `out`."""
    for (_, parse_errors), (compiled, render_errors) in zip(parsed, items, strict=True):
        problems, warnings = split_warnings(render_errors)
        out.errors += parse_errors + problems
        out.warnings += warnings
        if isinstance(compiled, CompiledDeck):
            out.decks.append(compiled)
        elif compiled is not None:
            out.topics.append(compiled)
    return out


def split_warnings(
    problems: list[ContentError],
) -> tuple[list[ContentError], list[ContentWarning]]:
    """Separate rendering's errors from its warnings (ContentWarning)."""
    warnings = [p for p in problems if isinstance(p, ContentWarning)]
    return [p for p in problems if not isinstance(p, ContentWarning)], warnings


def parse_source(source: SourceText) -> tuple[Parsed | None, list[ContentError]]:
    """Parse one note; a note the parser cannot read is left out with a warning, never a crash."""
    try:
        return parse_note(
            source.path,
            source.text,
            reading=source.reading,
            house=source.house,
            named=source.named,
        )
    except Exception as exc:  # one note must not stop a whole folder's import
        logger.exception("parsing %s failed", source.path)
        reason = f"{type(exc).__name__}: {exc}"[:200]
        return None, [ContentWarning.of("note_failed", source.path, 1, reason=reason)]


def compile_item(
    item: Parsed, renderer: Renderer, errors: list[ContentError]
) -> CompiledDeck | CompiledTopic:
    """Render one parsed deck or topic; rendering errors are appended to `errors`."""
    try:
        if isinstance(item, ParsedDeck):
            return compile_deck(item, renderer, errors)
        return compile_topic(item, renderer, errors)
    finally:
        item.note = None  # its tokens are rendered: let them go


def worker_count(sources: list[SourceText]) -> int:
    """How many processes to render `sources` with: one unless there is a lot of text."""
    if sum(len(source.text) for source in sources) < PARALLEL_MIN_CHARS or len(sources) < 2:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return min(cpus, len(sources), MAX_WORKERS)


@contextmanager
def worker_pool(workers: int) -> Iterator[Workers | None]:
    """Worker processes to parse and render in, or None to do both in this process.

    Workers are spawned (forking a process that may run threads, like the web server, is
    unsafe), so a script that imports content should guard its top level with
    `if __name__ == "__main__":`, as multiprocessing requires.
    """
    pool = None
    if workers > 1:
        try:
            pool = Workers(workers)
        except (OSError, NotImplementedError):  # no working semaphores here (/dev/shm)
            pool = None
    try:
        yield pool
    finally:
        if pool is not None:
            pool.shutdown()


def parse_sources(
    sources: list[SourceText], pool: Workers | None = None
) -> list[tuple[Parsed | None, list[ContentError]]]:
    """Parse every source, in `pool`'s workers when there is one; in order.

    Each note is parsed by the worker that will render it, which keeps it till then.
    """
    if pool is not None:
        try:
            return _parse_in(pool, sources)
        except BrokenProcessPool:
            _log.warning("parse workers failed; parsing the content in this process")
    return [parse_source(source) for source in sources]


def _parse_in(
    pool: Workers, sources: list[SourceText]
) -> list[tuple[Parsed | None, list[ContentError]]]:
    # Small chunks: a deck of 500 cards and a note of five take turns evenly.
    size = max(1, len(sources) // 64)
    chunks: list[list[int]] = [[] for _ in range(len(pool))]
    jobs: list[tuple[list[int], Future[list[_RemoteParsed]]]] = []
    for index, source in enumerate(sources):
        worker = pool.place(source.path, len(source.text))
        chunks[worker].append(index)
        if len(chunks[worker]) >= size:
            jobs.append(
                (
                    chunks[worker],
                    pool.submit(worker, _parse_many, [sources[i] for i in chunks[worker]]),
                )
            )
            chunks[worker] = []
    for worker, chunk in enumerate(chunks):
        if chunk:
            jobs.append((chunk, pool.submit(worker, _parse_many, [sources[i] for i in chunk])))
    out: list[tuple[Parsed | None, list[ContentError]]] = [(None, [])] * len(sources)
    for chunk, job in jobs:
        for index, (item, problems, kept) in zip(chunk, job.result(), strict=True):
            out[index] = (item, _problems(problems))
            if item is not None and kept:
                pool.kept.add(item.path)
    return out


def compile_items(
    items: list[Parsed | None],
    renderer: Renderer,
    *,
    workers: int = 1,
    pool: Workers | None = None,
) -> Iterator[tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]]:
    """Render `items` in order, yielding (compiled, its errors) for each as soon as it is done.

    In `pool` (or, with workers > 1 and no pool, in that many processes started here) items
    are rendered by the workers, each with its own formula cache; `renderer` then only counts
    the distinct formulas they rendered. At most a few items are in flight at once, so memory
    stays bounded however large the bank is. Whenever workers cannot be started or die, the
    items not yet yielded are rendered here instead.
    """
    if pool is None and workers > 1:
        with worker_pool(workers) as own:
            yield from compile_items(items, renderer, workers=workers, pool=own)
        return
    if pool is None:
        yield from _compile_here(items, renderer)
        return

    done = 0
    in_flight: deque[Future[_RemoteResult] | None] = deque()
    try:
        _share_formulas(pool, renderer.root)
        for item in items:
            job = None
            if item is not None:
                worker = pool.place(item.path, 0)
                if item.path in pool.kept:  # the worker has it as it parsed it
                    # With the names the checks against the bank gave it here since.
                    job = pool.submit(worker, _compile_kept, item.path, item.names(), renderer.root)
                else:
                    job = pool.submit(worker, _compile_remote, item, renderer.root)
            in_flight.append(job)
            # Each note has its worker: a longer queue keeps both busy behind a big deck.
            if len(in_flight) > 4 * len(pool):
                result = _collect(in_flight.popleft(), items[done], renderer)
                _let_go(items[done])
                done += 1
                yield result
        while in_flight:
            result = _collect(in_flight.popleft(), items[done], renderer)
            _let_go(items[done])
            done += 1
            yield result
    except BrokenProcessPool:
        # E.g. the main script cannot be imported again in a worker (stdin, no __main__ guard).
        _log.warning("render workers failed; rendering the remaining content in this process")
        for job in in_flight:
            if job is not None:
                job.cancel()
        yield from _compile_here(items[done:], renderer)


def _share_formulas(pool: Workers, root: Path | None) -> None:
    """Render each formula that notes parsed by more than one worker hold on one of them only,
    and give its HTML to every worker whose notes hold it, before they render the notes.

    Each worker has a formula cache of its own and a note is placed on a worker by its path, so
    a formula that notes on several workers share (`$O(n)$`) would be rendered by each of them.
    """
    held = [job.result() for job in [pool.submit(w, formulas_here) for w in range(len(pool))]]
    shared = sorted(key for key, n in Counter(k for keys in held for k in keys).items() if n > 1)
    jobs = [pool.submit(w, _render_formulas, shared[w :: len(pool)]) for w in range(len(pool))]
    rendered: dict[FormulaKey, str] = {}
    for job in jobs:
        rendered |= job.result()
    for worker, keys in enumerate(held):
        pool.submit(worker, _give_formulas, {k: rendered[k] for k in keys if k in rendered}, root)


def _let_go(item: Parsed | None) -> None:
    """Drop the text a worker parsed again: the item is rendered, and it keeps the rest."""
    if item is not None:
        item.note = None


def _compile_here(
    items: list[Parsed | None], renderer: Renderer
) -> Iterator[tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]]:
    for item in items:
        errors: list[ContentError] = []
        yield (compile_item(item, renderer, errors) if item else None), errors


# ContentError (a frozen dataclass exception) cannot be unpickled, so errors travel as tuples
# (path, line, what it says, is_warning).
_RemoteProblem = tuple[str, int, Said, bool]
_RemoteResult = tuple[Forms, list[_RemoteProblem], list[FormulaKey]]


@cache
def _worker_renderer(root: Path | None) -> Renderer:
    """The renderer of a worker process, kept across its items so formulas render once."""
    return Renderer(root)


# (the note parsed, its problems, whether the worker keeps it for its render)
_RemoteParsed = tuple[Parsed | None, list[_RemoteProblem], bool]


def _parse_many(sources: list[SourceText]) -> list[_RemoteParsed]:
    """In a worker: parse `sources`, keeping what it can here for their render."""
    out: list[_RemoteParsed] = []
    for source in sources:
        item, errors = parse_source(source)
        if item is not None and item.note is not None and item.note.tokens is not None:
            note_formulas(item.note.tokens)
        kept = item is not None and keep(item)
        out.append((item, _remote_problems(errors), kept))
    return out


def _remote_problems(errors: list[ContentError]) -> list[_RemoteProblem]:
    return [
        (error.path, error.line, error.said, isinstance(error, ContentWarning)) for error in errors
    ]


def _problems(remote: list[_RemoteProblem]) -> list[ContentError]:
    return [
        (ContentWarning if warning else ContentError)(path, line, said)
        for path, line, said, warning in remote
    ]


def _render_formulas(keys: list[FormulaKey]) -> dict[FormulaKey, str]:
    """In a worker: KaTeX's HTML of the formulas `keys` (those it refuses are left out)."""
    scratch = Renderer()  # counts nothing: each is counted where a note renders it
    out: dict[FormulaKey, str] = {}
    for tex, display in keys:
        with suppress(pykatex.ParseError):
            out[tex, display] = scratch.formula(tex, display)
    return out


def _give_formulas(formulas: dict[FormulaKey, str], root: Path | None) -> None:
    """In a worker: the formulas another worker rendered, for the renders to come here."""
    _worker_renderer(root).give(formulas)


def _compile_kept(path: str, names: Names, root: Path | None) -> _RemoteResult:
    """In a worker: render the note at `path` that this worker parsed and kept, under the
    `names` the import process has for it (a clashing id renamed there, say)."""
    item = take(path)
    item.rename(names)
    return _compile_remote(item, root)


def _compile_remote(item: Parsed, root: Path | None) -> _RemoteResult:
    """In a worker: render `item` (sent here, its text parsed again if its tokens are not)."""
    renderer = _worker_renderer(root)
    seen = renderer.formulas_rendered
    errors: list[ContentError] = []
    compiled = compile_item(item, renderer, errors)
    return forms_of(compiled), _remote_problems(errors), renderer.formula_keys(seen)


def _collect(
    future: "Future[_RemoteResult] | None", item: Parsed | None, renderer: Renderer
) -> tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]:
    if future is None or item is None:
        return None, []
    forms, problems, formulas = future.result()
    renderer.count_rendered(formulas)
    # The worker's copy of the note had the names given here: this one is the same note.
    return with_parsed(forms, item), _problems(problems)
