"""Count the pieces compile parses again from their text instead of cutting the note's tokens.

    python bench/reparse_count.py                      # every folder of tests/fixtures/notes
    python bench/reparse_count.py content tests/fixtures/notes/details

Each note is parsed as the import parses it, then compiled with the one markdown-it parser's
`parse` and `parseInline` counted: a call is a piece (a question, a block, a follow-up) parsed a
second time. Each call is put down to the piece whose text it parsed, by the recogniser that
found the card. Prints one row per folder: questions (`parseInline`), blocks (`parse`), and the
pieces by recogniser and kind.
"""

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.content.compile import build  # noqa: E402
from app.content.compile.render import Renderer  # noqa: E402
from app.content.notes.markdown import parser  # noqa: E402
from app.content.notes.parsed import ParsedDeck  # noqa: E402
from app.content.notes.source import scan  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "notes"


@dataclass
class Count:
    """What compile parsed again in one folder."""

    notes: int = 0
    questions: int = 0  # parseInline calls
    blocks: int = 0  # parse calls
    pieces: Counter[str] = field(default_factory=Counter)  # "recogniser:piece"

    @property
    def total(self) -> int:
        return self.questions + self.blocks


def _pieces(item: build.Parsed) -> dict[tuple[bool, str], str]:
    """(inline, text) of every piece compile may parse, and what it is."""
    if not isinstance(item, ParsedDeck):
        return {(False, item.body.text): "topic:body"}
    found = {(False, item.intro.text): "deck:intro"}
    for card in item.cards:
        name = card.recogniser.value
        if card.kind == "cloze":
            continue  # its sides are the block with its deletions shown or hidden
        found[(True, card.question)] = f"{name}:question"
        for piece in ("answer", "followups", "pitfalls"):
            found.setdefault((False, getattr(card, piece).text), f"{name}:{piece}")
        for question in card.questions:
            found.setdefault((True, question.question), f"{name}:followup-question")
            found.setdefault((False, question.answer), f"{name}:followup-answer")
    return found


@contextmanager
def _counted(calls: list[tuple[bool, str]]) -> Iterator[None]:
    md = parser()
    parse, parse_inline = md.parse, md.parseInline

    def counted(inline: bool, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(text: str, env: Any = None) -> Any:
            calls.append((inline, text))
            return real(text, env)

        return call

    md.parse = counted(False, parse)  # type: ignore[method-assign]
    md.parseInline = counted(True, parse_inline)  # type: ignore[method-assign]
    try:
        yield
    finally:
        md.parse, md.parseInline = parse, parse_inline  # type: ignore[method-assign]


def count_folder(folder: Path) -> Count:
    """Parse and compile every note of `folder` in this process, counting second parses."""
    sources, _ = scan(folder)
    count = Count(notes=len(sources))
    renderer = Renderer(folder)
    for source in sources:
        item, _ = build.parse_source(source)
        if item is None:
            continue
        pieces = _pieces(item)
        calls: list[tuple[bool, str]] = []
        with _counted(calls):
            build.compile_item(item, renderer, [])
        for inline, text in calls:
            count.questions += inline
            count.blocks += not inline
            count.pieces[pieces.get((inline, text), "cloze:side")] += 1
    return count


def _folders(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(path).resolve() for path in paths]
    return sorted(path.parent for path in FIXTURES.glob("*/expected.json"))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    options.add_argument("folders", nargs="*", help="notes folders (default: the fixtures)")
    args = options.parse_args()
    totals = Count()
    print(f"{'folder':26} {'notes':>5} {'quest.':>6} {'blocks':>6}  pieces")
    for folder in _folders(args.folders):
        count = count_folder(folder)
        totals.notes += count.notes
        totals.questions += count.questions
        totals.blocks += count.blocks
        totals.pieces.update(count.pieces)
        pieces = ", ".join(f"{name} {n}" for name, n in count.pieces.most_common())
        print(f"{folder.name:26} {count.notes:5} {count.questions:6} {count.blocks:6}  {pieces}")
    print(f"{'total':26} {totals.notes:5} {totals.questions:6} {totals.blocks:6}")
    for name, n in totals.pieces.most_common():
        print(f"  {name:40} {n:4}")


if __name__ == "__main__":
    main()
