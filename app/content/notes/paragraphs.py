"""Some lines of a paragraph of the note as a block of a card, cut from the paragraph's tokens.

Notes put several pieces in one paragraph: `Q: …` on one line and `A: …` on the next, a label
line then the answer, or `追问展开。 …` then `易错点 / 边界。 …` on the line after. Each piece
is a run of the paragraph's lines, less the label that opened its first line: its tokens are
the paragraph's children between two line breaks, when those give what the lines alone give.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from app.content.notes.cuts import balanced, line_starts, strong_end
from app.content.notes.markdown import copied


@dataclass(frozen=True)
class Span:
    """Tokens `start`…`end` of the note's stream, less a label at the start of the first one.

    For a paragraph: its inline children from `skip` (the lines before the block's, and its
    label) up to `stop` (the line break after the block's last line, None: to the end), less
    `chars` characters of the first; its text starts `down` lines below the paragraph's.
    """

    start: int
    end: int
    skip: int = 0
    chars: int = 0
    down: int = 0
    stop: int | None = None
    # A list item's blocks after its first line: its paragraphs at this level, hidden in a
    # tight list, are shown as the same lines written alone show them.
    shown: int | None = None
    cell: bool = False  # a table cell's inline token: its text alone is a paragraph
    html: tuple[int, int] | None = None  # lines `a`…`b` of a raw HTML block's, alone one


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of the note: its tokens `start`…`end` and its lines `first`…`last`."""

    start: int
    end: int
    first: int
    last: int
    inline: Token


def paragraph_span(
    paragraph: Paragraph,
    lines: Sequence[str] | Mapping[int, str],
    present: dict[int, str],
    cut: dict[int, int],
) -> Span | None:
    """The span of the lines of `paragraph` that the block of `present` takes, or None.

    `cut` maps a line to how many characters its label (or, the whole line, its question)
    took from its start; a first line a recogniser cut itself (`> 答：…` less its marker,
    `question::answer` less its question) is its line's end.
    """
    taken = [i for i in range(paragraph.first, paragraph.last) if i in present]
    low, high = taken[0], taken[-1]
    if taken != list(range(low, high + 1)):
        return None
    if any(present[i] != lines[i] for i in range(low + 1, high + 1)):
        return None
    text, line = present[low], lines[low]
    label = len(line) - len(text)
    # A label's cut is exact; a question's line is cut whole, less what is left after it.
    if not line.endswith(text) or cut.get(low, label) not in (label, len(line)):
        return None
    if (label or low > paragraph.first) and blocky(text):
        return None  # alone, the lines could start another block than a paragraph
    children = paragraph.inline.children or []
    starts = line_starts(children)
    if len(starts) != paragraph.last - paragraph.first:
        return None  # the paragraph breaks where the note's lines do not (a U+2028 in a line)
    found = _between(children, starts, low - paragraph.first, high - paragraph.first)
    if found is None:
        return None
    begin, stop = found
    cut_at = _label(children, begin, line[:label]) if label else (begin, 0)
    if cut_at is None or not balanced(children[cut_at[0] : stop]):
        return None
    skip, chars = cut_at
    if skip >= (len(children) if stop is None else stop):
        return None
    down = low - paragraph.first
    return Span(paragraph.start, paragraph.end, skip, chars, down, stop)


def _between(
    children: list[Token], starts: list[int | None], low: int, high: int
) -> tuple[int, int | None] | None:
    """Where lines `low`…`high` of a paragraph start and stop among its children (None: at
    the end), when markup runs across neither break and a soft one ends the last; `starts`
    are the paragraph's line_starts."""
    begin = starts[low]
    if begin is None or high + 1 >= len(starts):
        return None if begin is None else (begin, None)
    after = starts[high + 1]
    if after is None or children[after - 1].type != "softbreak":
        return None  # a hard break ends the line, which alone it would not
    return begin, after - 1


def _label(children: list[Token], lead: int, prefix: str) -> tuple[int, int] | None:
    """(children to skip, characters of the next to drop) to leave out the label `prefix`
    that opens the line starting at child `lead`."""
    # Emphasis leaves an empty text token where its delimiters were.
    while lead < len(children) and children[lead].type == "text" and not children[lead].content:
        lead += 1
    if lead >= len(children):
        return None
    head = children[lead]
    skip, tail = lead, prefix
    if not (head.type == "text" and head.content.startswith(prefix)):
        close = strong_end(children[lead:], prefix)
        if close is None:
            return None
        skip, tail = lead + close[0], close[1]
    if skip >= len(children):
        return None
    after = children[skip]
    if not tail:
        return skip, 0
    if after.type != "text" or not after.content.startswith(tail):
        return None
    if after.content == tail:
        return skip + 1, 0
    return skip, len(tail)


def cell_paragraph(inline: Token) -> list[Token]:
    """A table cell's inline token as the paragraph its text alone is.

    A cell holds no paragraph; its text written alone (a question table's answer) is one. The
    paragraph's two tokens are made here; everything inside it is the note's.
    """
    opening = Token("paragraph_open", "p", 1, map=inline.map, block=True)
    closing = Token("paragraph_close", "p", -1, block=True)
    return [opening, inline, closing]


def cut_paragraph(part: list[Token], span: Span) -> list[Token]:
    """A paragraph's tokens less the lines and the label `span` leaves out."""
    # The opening is the note's own unless its line changes; the inline's children change.
    opening, inline = part[0], copied(part[1])
    children = list(inline.children or [])[span.skip : span.stop]
    if span.chars:
        children[0] = copied(children[0])
        children[0].content = children[0].content[span.chars :]
    inline.children = children
    if span.down:  # the text starts further down: errors are reported there
        opening = copied(opening)
        for token in (opening, inline):
            if token.map:
                token.map = [token.map[0] + span.down, token.map[1]]
    return [opening, inline, *part[2:]]


# What could open another block than a paragraph at the start of a line.
_BLOCK_START = re.compile(
    r"[ \t]*(?:[-+*](?:[ \t]|$)|[-*_](?:[ \t]*[-*_]){2,}|#{1,6}(?:[ \t]|$)|[>|<]|```|~~~"
    r"|\$\$|\\\[|\\begin|\d{1,9}[.)](?:[ \t]|$))"
)


def blocky(rest: str) -> bool:
    """Whether `rest`, parsed alone, could start a block other than a paragraph."""
    return _BLOCK_START.match(rest) is not None
