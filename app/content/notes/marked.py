"""Question headings that are parts of the answer of a question marked `**Q25：…**`."""

import bisect
import re

from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers.lines import unbold
from app.content.notes.wording import Q_PREFIX, Kind

_NUMBER = re.compile(r"^(?:Q|问|问题|Question)[ \t]*(\d{1,3})", re.I)


def marked_answer_parts(outline: Outline, kinds: list[Kind]) -> set[int]:
    """The question headings (by index) that answer a part of the marked question before them.

    `**Q25：…JSON？…类别？…词汇？**`, bold lines of its parts, then `### 如何限制词汇范围？` and
    `**Q26：…**`: where a note marks each question, a heading that asks without the mark,
    between one marked question and the next (Q25 and Q26 where they are numbered), with text
    of its own before the next, answers a part of the first; it is no question of the run.
    """
    marks = _marks(outline)
    if len(marks) < 2:
        return set()
    lines = [line for line, _ in marks]
    parts: set[int] = set()
    boundary = -1  # the last heading that ends a marked question's answer
    for heading in outline.headings:
        if _is_part(heading, kinds, marks, lines, boundary, outline):
            parts.add(heading.index)
        else:
            boundary = heading.line
    return parts


def _is_part(
    heading: Heading,
    kinds: list[Kind],
    marks: list[tuple[int, int | None]],
    lines: list[int],
    boundary: int,
    outline: Outline,
) -> bool:
    if kinds[heading.index] != Kind.CARD or heading.children:
        return False
    if Q_PREFIX.match(unbold(heading.text)[0]):
        return False
    after = bisect.bisect_right(lines, heading.line)
    if after in (0, len(lines)):
        return False
    (before_line, before), (next_line, number) = marks[after - 1], marks[after]
    if before_line < boundary or next_line >= heading.stop:
        return False
    if before is not None and number is not None and number != before + 1:
        return False
    return outline.holds_text(heading.end, next_line)


def _marks(outline: Outline) -> list[tuple[int, int | None]]:
    """The paragraphs that open with a marked question (`Q3：`, `**Q3：…**`): line, number."""
    marks: list[tuple[int, int | None]] = []
    for block in outline.blocks:
        if block.kind != "paragraph":
            continue
        lead, _ = unbold(outline.texts.get(block.start, ""))
        if Q_PREFIX.match(lead):
            number = _NUMBER.match(lead)
            marks.append((block.start, int(number.group(1)) if number else None))
    return marks
