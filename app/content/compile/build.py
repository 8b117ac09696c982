"""Parse and render sources into ready-to-store data, and validate the bank as a whole."""

import hashlib
import html
import logging
import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from app.content.compile.cloze import cloze_forms
from app.content.compile.render import FormulaKey, Rendered, Renderer
from app.content.errors import ContentError, ContentWarning, Said
from app.content.notes.parse import (
    Block,
    ParsedCard,
    ParsedDeck,
    ParsedTopic,
    parse_note,
)
from app.content.notes.source import SourceText

logger = logging.getLogger(__name__)


@dataclass
class CompiledFollowup:
    id: str
    position: int
    line: int
    question_html: str
    answer_html: str
    question_anki: str = ""
    answer_anki: str = ""


@dataclass
class CompiledCard:
    """A card in every form its readers need, all made from one parse of each block."""

    card: ParsedCard
    question_html: str
    answer_html: str
    followups_html: str
    pitfalls_html: str
    fingerprint: str
    followups: list[CompiledFollowup] = field(default_factory=list)
    # Plain text for search, formulas readable: the question, the answer, and the rest
    # (follow-up questions and prose, pitfalls), which ranks below them.
    question_text: str = ""
    answer_text: str = ""
    extra_text: str = ""
    key_points: list[str] = field(default_factory=list)  # the answer's, as HTML fragments
    # The Anki note's fields (formulas as TeX), the images they show and the formula count.
    anki_fields: dict[str, str] = field(default_factory=dict)
    anki_media: dict[str, str] = field(default_factory=dict)
    formula_count: int = 0
    # A cloze card's front, a block (its question_html is a one-line title for lists).
    front_html: str = ""


@dataclass
class CompiledDeck:
    deck: ParsedDeck
    intro_html: str
    cards: list[CompiledCard]


@dataclass
class CompiledTopic:
    topic: ParsedTopic
    body_html: str
    wikilinks: list[tuple[str, int]]
    # The body's plain text by group (body, extra, reading), as its level-2 headings divide it.
    text: dict[str, str] = field(default_factory=dict)


@dataclass
class Compiled:
    decks: list[CompiledDeck] = field(default_factory=list)
    topics: list[CompiledTopic] = field(default_factory=list)
    errors: list[ContentError] = field(default_factory=list)
    warnings: list[ContentError] = field(default_factory=list)


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
        return parse_note(source.path, source.text, reading=source.reading, house=source.house)
    except Exception as exc:  # one note must not stop a whole folder's import
        logger.exception("parsing %s failed", source.path)
        reason = f"{type(exc).__name__}: {exc}"[:200]
        return None, [ContentWarning.of("note_failed", source.path, 1, reason=reason)]


def compile_item(
    item: Parsed, renderer: Renderer, errors: list[ContentError]
) -> CompiledDeck | CompiledTopic:
    """Render one parsed deck or topic; rendering errors are appended to `errors`."""
    if isinstance(item, ParsedDeck):
        return _compile_deck(item, renderer, errors)
    return _compile_topic(item, renderer, errors)


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
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor | None]:
    """Worker processes to parse and render in, or None to do both in this process.

    Workers are spawned (forking a process that may run threads, like the web server, is
    unsafe), so a script that imports content should guard its top level with
    `if __name__ == "__main__":`, as multiprocessing requires.
    """
    pool = None
    if workers > 1:
        try:
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        except (OSError, NotImplementedError):  # no working semaphores here (/dev/shm)
            pool = None
    try:
        yield pool
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def parse_sources(
    sources: list[SourceText], pool: ProcessPoolExecutor | None = None
) -> list[tuple[Parsed | None, list[ContentError]]]:
    """Parse every source, in `pool`'s workers when there is one; in order."""
    if pool is not None:
        try:
            # Small chunks: a deck of 500 cards and a note of five take turns evenly.
            chunk = max(1, len(sources) // 64)
            remote = list(pool.map(_parse_remote, sources, chunksize=chunk))
            return [(item, _problems(problems)) for item, problems in remote]
        except BrokenProcessPool:
            _log.warning("parse workers failed; parsing the content in this process")
    return [parse_source(source) for source in sources]


def compile_items(
    items: list[Parsed | None],
    renderer: Renderer,
    *,
    workers: int = 1,
    pool: ProcessPoolExecutor | None = None,
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
        for item in items:
            job = pool.submit(_compile_remote, item, renderer.root) if item else None
            in_flight.append(job)
            if len(in_flight) > 2 * workers:
                yield _collect(in_flight.popleft(), renderer)
                done += 1
        while in_flight:
            yield _collect(in_flight.popleft(), renderer)
            done += 1
    except BrokenProcessPool:
        # E.g. the main script cannot be imported again in a worker (stdin, no __main__ guard).
        _log.warning("render workers failed; rendering the remaining content in this process")
        for job in in_flight:
            if job is not None:
                job.cancel()
        yield from _compile_here(items[done:], renderer)


def _compile_here(
    items: list[Parsed | None], renderer: Renderer
) -> Iterator[tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]]:
    for item in items:
        errors: list[ContentError] = []
        yield (compile_item(item, renderer, errors) if item else None), errors


# ContentError (a frozen dataclass exception) cannot be unpickled, so errors travel as tuples
# (path, line, what it says, is_warning).
_RemoteProblem = tuple[str, int, Said, bool]
_RemoteResult = tuple[CompiledDeck | CompiledTopic, list[_RemoteProblem], list[FormulaKey]]


@cache
def _worker_renderer(root: Path | None) -> Renderer:
    """The renderer of a worker process, kept across its items so formulas render once."""
    return Renderer(root)


def _parse_remote(source: SourceText) -> tuple[Parsed | None, list[_RemoteProblem]]:
    item, errors = parse_source(source)
    return item, _remote_problems(errors)


def _remote_problems(errors: list[ContentError]) -> list[_RemoteProblem]:
    return [
        (error.path, error.line, error.said, isinstance(error, ContentWarning)) for error in errors
    ]


def _problems(remote: list[_RemoteProblem]) -> list[ContentError]:
    return [
        (ContentWarning if warning else ContentError)(path, line, said)
        for path, line, said, warning in remote
    ]


def _compile_remote(item: Parsed, root: Path | None) -> _RemoteResult:
    renderer = _worker_renderer(root)
    seen = renderer.formulas_rendered
    errors: list[ContentError] = []
    compiled = compile_item(item, renderer, errors)
    return compiled, _remote_problems(errors), renderer.formula_keys(seen)


def _collect(
    future: "Future[_RemoteResult] | None", renderer: Renderer
) -> tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]:
    if future is None:
        return None, []
    compiled, problems, formulas = future.result()
    renderer.count_rendered(formulas)
    return compiled, _problems(problems)


# Stored with every card's fingerprint: changing how cards compile rewrites each stored card.
COMPILE_VERSION = "forms-1"


def _compile_deck(deck: ParsedDeck, renderer: Renderer, errors: list[ContentError]) -> CompiledDeck:
    def render(block: Block, *, points: bool = False) -> Rendered:
        return renderer.render(
            block.text,
            path=deck.path,
            line=block.line,
            errors=errors,
            breaks=deck.breaks,
            points=points,
        )

    cards = []
    for card in deck.cards:
        if card.kind == "cloze":
            cards.append(_compile_cloze(card, deck, renderer, errors))
            continue
        question = renderer.render(
            card.question, path=deck.path, line=card.line, errors=errors, inline=True
        )
        answer = render(card.answer, points=True)
        prose = render(card.followups)
        pitfalls = render(card.pitfalls)
        questions, rendered = _compile_followups(
            card, deck.path, renderer, errors, card_breaks=deck.breaks
        )
        parts = [question, answer, prose, pitfalls, *rendered]
        fingerprint = f"{COMPILE_VERSION}\x1e{card.fingerprint()}"
        cards.append(
            CompiledCard(
                card=card,
                question_html=question.html,
                answer_html=answer.html,
                followups_html=prose.html,
                pitfalls_html=pitfalls.html,
                fingerprint=hashlib.sha256(fingerprint.encode()).hexdigest(),
                followups=questions,
                question_text=question.text,
                answer_text=answer.text,
                # The follow-up questions rank with the follow-ups' prose.
                extra_text=_joined([*(r.text for r in rendered), prose.text, pitfalls.text]),
                key_points=answer.points,
                anki_fields={
                    "question": question.anki,
                    "answer": answer.anki,
                    "followups": prose.anki,
                    "pitfalls": pitfalls.anki,
                },
                anki_media={name: path for part in parts for name, path in part.media.items()},
                formula_count=sum(part.formulas for part in parts),
            )
        )
    return CompiledDeck(deck, render(deck.intro).html, cards)


def _compile_cloze(
    card: ParsedCard, deck: ParsedDeck, renderer: Renderer, errors: list[ContentError]
) -> CompiledCard:
    """A cloze card: its front and back from the block, a title for lists, its Anki text."""
    # Every card of a block renders the same formulas: a problem in them is reported once.
    found: list[ContentError] = []

    def render(text: str) -> Rendered:
        return renderer.render(
            text, path=deck.path, line=card.answer.line, errors=found, breaks=deck.breaks
        )

    forms = cloze_forms(card.answer.text, card.cloze, render)
    errors.extend(dict.fromkeys(error for error in found if error not in errors))
    title = " ".join(forms.front.text.split())
    fingerprint = f"{COMPILE_VERSION}\x1e{card.fingerprint()}"
    parts = [forms.front, forms.back]
    return CompiledCard(
        card=card,
        question_html=html.escape(title),
        answer_html=forms.back.html,
        followups_html="",
        pitfalls_html="",
        fingerprint=hashlib.sha256(fingerprint.encode()).hexdigest(),
        question_text=title,
        answer_text=forms.back.text,
        anki_fields={"text": forms.anki, "extra": ""},
        anki_media={name: path for part in parts for name, path in part.media.items()},
        formula_count=forms.back.formulas,
        front_html=forms.front.html,
    )


def _joined(texts: list[str]) -> str:
    return " ".join(text for text in texts if text)


def _compile_followups(
    card: ParsedCard,
    path: str,
    renderer: Renderer,
    errors: list[ContentError],
    *,
    card_breaks: bool,
) -> tuple[list[CompiledFollowup], list[Rendered]]:
    compiled, rendered = [], []
    for item in card.questions:
        question = renderer.render(
            item.question, path=path, line=item.line, errors=errors, inline=True
        )
        answer = renderer.render(
            item.answer, path=path, line=item.answer_line, errors=errors, breaks=card_breaks
        )
        compiled.append(
            CompiledFollowup(
                item.id,
                item.position,
                item.line,
                question.html,
                answer.html,
                question_anki=question.anki,
                answer_anki=answer.anki,
            )
        )
        rendered += [question, answer]
    return compiled, rendered


def _compile_topic(
    topic: ParsedTopic, renderer: Renderer, errors: list[ContentError]
) -> CompiledTopic:
    body = renderer.render(
        topic.body.text,
        path=topic.path,
        line=topic.body.line,
        errors=errors,
        breaks=topic.breaks,
        sections=True,
    )
    return CompiledTopic(
        topic=topic,
        body_html=body.html,
        wikilinks=[(title, topic.body.line) for title in body.wikilinks],
        text=body.groups,
    )
