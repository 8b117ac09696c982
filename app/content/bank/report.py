"""What an import or check found in each note: its cards, the headings not taken and why, and
its problems by line, for `qbank check`, `qbank import --dry-run` and the import page."""

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from app.content.errors import ContentError

if TYPE_CHECKING:
    from app.content.compile.build import Compiled
    from app.content.notes.source import SourceText


@dataclass
class CardFound:
    id: str
    line: int
    question: str
    answer: str  # plain text
    recogniser: str
    kind: str = "basic"  # basic | cloze | reversed


@dataclass
class HeadingNotTaken:
    line: int
    text: str
    reason: str  # section | inside-answer | not-a-question | title


@dataclass
class Problem:
    line: int
    message: str


@dataclass
class FileReport:
    path: str
    kind: str  # deck | topic | skipped
    title: str = ""
    folder: str = ""
    cards: list[CardFound] = field(default_factory=list)
    headings_not_taken: list[HeadingNotTaken] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def file_reports(
    sources: "list[SourceText]", compiled: "Compiled", problems: list[ContentError]
) -> list[FileReport]:
    """One report per note read, plus one per file left out, in path order."""
    by_path: dict[str, FileReport] = {}
    for deck in compiled.decks:
        parsed = deck.deck
        by_path[parsed.path] = FileReport(
            parsed.path,
            "deck",
            parsed.title,
            parsed.folder,
            cards=[
                CardFound(
                    c.card.id,
                    c.card.line,
                    # A cloze card's front as text: `[…]` where its deletions are.
                    c.question_text if c.card.kind == "cloze" else c.card.question,
                    c.answer_text,
                    c.card.recogniser,
                    c.card.kind,
                )
                for c in deck.cards
            ],
            headings_not_taken=[
                HeadingNotTaken(item.line, item.text, item.reason) for item in parsed.not_taken
            ],
        )
    for topic in compiled.topics:
        parsed_topic = topic.topic
        by_path[parsed_topic.path] = FileReport(
            parsed_topic.path, "topic", parsed_topic.title, parsed_topic.folder
        )
    for source in sources:
        by_path.setdefault(source.path, FileReport(source.path, "skipped"))
    grouped: dict[str, list[ContentError]] = defaultdict(list)
    for problem in problems:
        grouped[problem.path].append(problem)
    for path, items in grouped.items():
        report = by_path.setdefault(path, FileReport(path, "skipped"))
        report.warnings = [Problem(p.line, p.message) for p in items]
    return [by_path[path] for path in sorted(by_path)]


def as_json(files: list[FileReport], summary: dict[str, int]) -> dict[str, Any]:
    """The report as `qbank check --json` prints it."""
    return {"files": [asdict(report) for report in files], "summary": summary}
