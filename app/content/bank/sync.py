"""Check content, and import it into the database: validate everything, then write in batches."""

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session

from app.content.bank.clashes import bank_clashes
from app.content.bank.finish import (
    count_bank,
    finish_import,
    last_read,
    new_stamps,
    restamp,
    unresolved_links,
)
from app.content.bank.limits import hold_to_limits, paths_within_limit
from app.content.bank.repair import repair_card_ids, repair_deck_slugs, repair_topic_slugs
from app.content.bank.report import FileReport, file_reports
from app.content.bank.searchindex import (
    refresh_card_entries,
    refresh_search_index,
    search_index_stale,
)
from app.content.bank.store import CardCounts, write_decks
from app.content.bank.topicindex import TopicRef, resolve, topic_index
from app.content.compile.build import (
    Compiled,
    CompiledCard,
    CompiledDeck,
    CompiledTopic,
    compile_items,
    gather,
    parse_sources,
    split_warnings,
    worker_count,
    worker_pool,
)
from app.content.compile.collection import fewer_full_collections
from app.content.compile.render import Renderer
from app.content.errors import ContentError, ContentErrors, ContentWarning, in_order
from app.content.notes.parsed import ParsedDeck, ParsedTopic
from app.content.notes.source import SourceText, scan
from app.infra.db import Database


@dataclass
class CheckReport:
    decks: int = 0
    cards: int = 0
    topics: int = 0
    formulas: int = 0
    errors: list[ContentError] = field(default_factory=list)
    warnings: list[ContentError] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)


@dataclass
class ImportReport:
    decks: int = 0
    topics: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    resumed: int = 0
    files_read: int = 0
    files_skipped: int = 0
    formulas_rendered: int = 0
    warnings: list[ContentError] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)


def lenient(problems: list[ContentError]) -> list[ContentError]:
    """Problems as warnings: the notes import in the best form they can."""
    return [ContentWarning(p.path, p.line, p.said) for p in problems]


def _link_warnings(
    compiled: Compiled, index: dict[str, str]
) -> tuple[list[ContentError], set[str]]:
    warnings: list[ContentError] = []
    linked: set[str] = set()
    for deck in compiled.decks:
        for item in deck.cards:
            for link in item.card.links:
                if link.external:
                    continue
                slug = resolve(link.target, index)
                if slug is None:
                    warnings.append(
                        ContentError.of(
                            "reading_no_topic", deck.deck.path, link.line, target=link.target
                        )
                    )
                else:
                    linked.add(slug)
    for topic in compiled.topics:
        for title, line in topic.wikilinks:
            slug = resolve(title, index)
            if slug is None:
                warnings.append(
                    ContentError.of("wikilink_no_topic", topic.topic.path, line, title=title)
                )
            elif slug != topic.topic.slug:
                linked.add(slug)
    return warnings, linked


def check_content(root: Path, *, strict: bool = False) -> CheckReport:
    """Parse and render everything under `root` and report every problem, touching no database.

    Without `strict`, problems that a lenient import gets around (a formula KaTeX cannot
    parse, a missing image, the same question twice) are reported as warnings.
    """
    sources, errors = _scan(root, {})
    workers = _worker_count(sources)
    renderer = Renderer(root)
    compiled = Compiled()
    with worker_pool(workers) as pool:
        parsed = parse_sources(sources, pool)
        decks = [item for item, _ in parsed if isinstance(item, ParsedDeck)]
        topics = [item for item, _ in parsed if isinstance(item, ParsedTopic)]
        repairs = hold_to_limits(decks, topics)
        repairs += repair_deck_slugs(decks, {}) + repair_topic_slugs(topics, {})
        repairs += repair_card_ids(decks, {}, {})
        items = compile_items([i for i, _ in parsed], renderer, workers=workers, pool=pool)
        gather(parsed, items, compiled)
    report = CheckReport(formulas=renderer.formulas_rendered)
    problems = errors + compiled.errors + repairs
    report.warnings += compiled.warnings
    report.decks = len(compiled.decks)
    report.cards = sum(len(d.cards) for d in compiled.decks)
    report.topics = len(compiled.topics)
    index, index_errors = topic_index([_topic_ref(t) for t in compiled.topics])
    problems += index_errors
    link_warnings, linked = _link_warnings(compiled, index)
    report.warnings += link_warnings
    for topic in compiled.topics:
        if topic.topic.slug not in linked and strict:
            report.warnings.append(
                ContentError.of("topic_not_linked", topic.topic.path, 1, title=topic.topic.title)
            )
    if strict:
        report.errors = problems
    else:
        report.warnings += lenient(problems)
    report.errors.sort(key=lambda e: (e.path, e.line))
    report.warnings = in_order(report.warnings)
    report.files = file_reports(sources, compiled, report.errors + report.warnings)
    return report


def _scan(
    root: Path, last: dict[str, tuple[str, str]]
) -> tuple[list[SourceText], list[ContentError]]:
    """The notes under `root` that can be imported, and the problems with the others."""
    sources, errors = scan(root, last)
    kept, too_long = paths_within_limit(sources)
    return kept, errors + too_long


def _topic_ref(topic: CompiledTopic) -> TopicRef:
    t = topic.topic
    return TopicRef(t.slug, t.title, tuple(t.aliases), t.path)


def import_content(
    root: Path, database: Database, *, strict: bool = False, dry_run: bool = False
) -> ImportReport:
    """Bring the database in line with `root`.

    Lenient by default: a problem in a note is a warning and the note imports in the best form
    it can (an unreadable file is left out; the rest imports). With `strict`, any error raises
    ContentErrors and changes nothing. With `dry_run`, nothing is kept either way.

    Cards are written as their decks finish rendering (a big import never holds every rendered
    deck in memory). A lenient import writes each batch in a transaction of its own, so that
    ratings wait at most one batch for the write lock, never the whole import's rendering;
    what ends the import (retirements, topics, source files) is one last transaction, and a
    file whose row is not yet written is simply read again by the next import. Strict and dry
    runs must be able to undo everything: they write in one transaction, rolled back on error.
    """
    with database.session() as session:
        last = last_read(session)
    sources, scan_errors = _scan(root, last)
    if scan_errors and (strict or not sources):
        raise ContentErrors(scan_errors)
    with database.session() as session, ExitStack() as whole:
        changed, removed = _changes(last, sources, scan_errors)
        report = ImportReport(files_read=len(changed), files_skipped=len(sources) - len(changed))
        if not changed and not removed:
            return _unchanged(
                session, database, report, scan_errors, sources, last, dry_run=dry_run
            )

        counts = CardCounts()

        def write_batch(decks: list[CompiledDeck]) -> set[str]:
            if strict or dry_run:  # from here to the end: one transaction
                whole.enter_context(database.writing(session))
            with database.writing(session):
                written = write_decks(session, decks, counts)
                refresh_card_entries(session, sorted(written))
                return written

        workers = _worker_count(changed)
        # Every note's tokens stay alive from its parse to its render, and the decks the
        # report reads to the import's end: a full collection before then frees next to
        # nothing.
        whole.enter_context(fewer_full_collections())
        with worker_pool(workers) as pool:
            parsed = parse_sources(changed, pool)
            decks = [item for item, _ in parsed if isinstance(item, ParsedDeck)]
            topics = [item for item, _ in parsed if isinstance(item, ParsedTopic)]
            # Checked against the bank as it was, before any of this import is written.
            bank_errors = bank_clashes(
                session, decks, topics, {s.path for s in changed} | {*removed}
            )

            renderer = Renderer(root)
            items = compile_items([i for i, _ in parsed], renderer, workers=workers, pool=pool)
            done = Compiled()
            errors, pending, present = _compile_all(
                parsed,
                items,
                done,
                write_batch,
                stop=strict and bool(bank_errors),
                strict=strict,
                aside=not (strict or dry_run),
            )
        report.formulas_rendered = renderer.formulas_rendered
        errors += bank_errors
        if strict and errors:
            raise ContentErrors(sorted(errors, key=lambda e: (e.path, e.line)))

        with database.writing(session):
            present |= write_decks(session, pending, counts)
            report.added, report.updated = counts.added, counts.updated
            report.resumed = counts.resumed
            report.retired = finish_import(
                session,
                decks,
                done.topics,
                present,
                changed,
                removed,
                last=last,
                reorder=counts.reordered,
            )
            restamp(session, new_stamps(sources, last))
            if dry_run:
                session.flush()
                _count_bank(session, report)
                session.rollback()
        if not dry_run:
            _count_bank(session, report)
        problems = lenient(scan_errors + errors) + done.warnings
        report.warnings = in_order(problems + unresolved_links(session))
        report.files = file_reports(changed, done, report.warnings)
    return report


def _worker_count(sources: list[SourceText]) -> int:
    """Worker processes for `sources`: none unless they hold formulas to share out.

    Sending a note to a worker and its cards back costs this process about what parsing and
    rendering a note without formulas costs here (~1 ms), so workers pay off only for KaTeX's
    work (2,000 plain notes: 1.7 s in this process, 5.0 s with two workers).
    """
    delimiters = sum(s.text.count("$") + s.text.count("\\(") + s.text.count("\\[") for s in sources)
    return worker_count(sources) if delimiters >= 2 * len(sources) else 1


def _changes(
    last: dict[str, tuple[str, str]], sources: list[SourceText], scan_errors: list[ContentError]
) -> tuple[list[SourceText], list[str]]:
    """The notes new or changed since the last import, and the paths of those gone."""
    known = {path: sha256 for path, (_, sha256) in last.items()}
    on_disk = {s.path for s in sources} | {e.path for e in scan_errors if known.get(e.path)}
    changed = [s for s in sources if known.get(s.path) != s.sha256]
    return changed, sorted(set(known) - on_disk)


def _unchanged(
    session: Session,
    database: Database,
    report: ImportReport,
    scan_errors: list[ContentError],
    sources: list[SourceText],
    last: dict[str, tuple[str, str]],
    *,
    dry_run: bool,
) -> ImportReport:
    """The report of an import that found no file changed, added or removed.

    It writes only when there is something to mend, so that it takes no write lock (which
    would make a rating wait) when, as usual, there is none.
    """
    stamps = new_stamps(sources, last)
    if not dry_run and (stamps or search_index_stale(session)):  # e.g. a bank before search
        with database.writing(session):
            refresh_search_index(session)
            restamp(session, stamps)
    _count_bank(session, report)
    report.warnings = lenient(scan_errors) + unresolved_links(session)
    return report


def _compile_all(
    parsed: list[tuple[ParsedDeck | ParsedTopic | None, list[ContentError]]],
    items: Iterator[tuple[CompiledDeck | CompiledTopic | None, list[ContentError]]],
    done: Compiled,
    write_batch: Callable[[list[CompiledDeck]], set[str]],
    *,
    stop: bool,
    strict: bool,
    aside: bool,
) -> tuple[list[ContentError], list[CompiledDeck], set[str]]:
    """Collect each rendered note, writing decks in batches; (errors, decks unwritten, ids).

    With `aside`, each batch is written by a thread of its own, one batch at a time, while
    this one goes on collecting: the render workers are handed new notes as they finish
    others, instead of standing idle for as long as a batch takes to write. (Strict and dry
    runs write in one transaction, which must begin and end on this thread.)
    """
    errors: list[ContentError] = []
    pending: list[CompiledDeck] = []
    pending_cards = 0  # counted as they come: summing `pending` each time is quadratic
    present: set[str] = set()
    with ThreadPoolExecutor(1, thread_name_prefix="qbank-write") as writer:
        writing: Future[set[str]] | None = None
        for (_, parse_errors), (compiled, problems) in zip(parsed, items, strict=True):
            render_errors, warnings = split_warnings(problems)
            errors += parse_errors + render_errors
            done.warnings += warnings
            if strict and (errors or stop):
                continue  # render the rest only to report every error
            if isinstance(compiled, CompiledDeck):
                pending.append(compiled)
                pending_cards += len(compiled.cards)
                done.decks.append(_as_reported(compiled))
            elif compiled is not None:
                done.topics.append(compiled)
            # Small imports write at the end, keeping the write transaction short; big ones
            # in batches, as soon as the writer is free once a batch is worth a transaction.
            enough = _WRITE_BATCH_CARDS
            if aside and (writing is None or writing.done()):
                enough = min(enough, _WRITE_SOON_CARDS)
            if pending_cards >= enough:
                if writing is not None:
                    present |= writing.result()
                if aside:
                    writing = writer.submit(write_batch, pending)
                else:
                    present |= write_batch(pending)
                pending, pending_cards = [], 0
        if writing is not None:
            present |= writing.result()
    return errors, pending, present


# Rendered decks are buffered until they hold this many cards, then written; with the writer
# idle, from the smaller figure on.
_WRITE_BATCH_CARDS = 2_000
_WRITE_SOON_CARDS = 500


def _as_reported(compiled: CompiledDeck) -> CompiledDeck:
    """What the file report keeps of a deck: not its HTML and other forms, which are written
    with the deck and let go, so that a vault's import does not hold every card twice over."""
    cards = [
        CompiledCard(item.card, "", "", "", "", "", answer_text=item.answer_text)
        for item in compiled.cards
    ]
    return CompiledDeck(compiled.deck, "", cards)


def _count_bank(session: Session, report: ImportReport) -> None:
    cards, report.decks, report.topics = count_bank(session)
    report.unchanged = cards - report.added - report.updated - report.resumed
