"""Pieces of a card inside a list, a quote or a table of the note, cut from its tokens.

A list item that asks keeps its answer nested under it; a callout (`> [!question] …`) or a
quoted answer (`> 答：…`) keeps it inside the quote; a question table keeps it in a cell. The
recognisers read these lines less the indentation, `>` or pipes around them: the tokens of the
note's parse inside the container are what those lines give alone, so compile renders them.
"""

from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.token import Token

from app.content.notes.paragraphs import Paragraph, Span, blocky, paragraph_span
from app.content.notes.wording import QUOTE


class Container:
    """The tokens `start`…`end` of a top-level list, quote or table, and the note's lines."""

    def __init__(self, tokens: list[Token], lines: list[str], start: int, end: int) -> None:
        self.tokens = tokens
        self.lines = lines
        self.start = start
        self.end = end

    def child_at(self, line: int, kind: str | None = None, parent: int | None = None) -> int | None:
        """The position of the container's own child (of `kind`) that holds `line`, if any;
        with `parent`, of that block's own child."""
        outer = self.start if parent is None else parent
        level = self.tokens[outer].level + 1
        for at in range(outer + 1, self.end if parent is None else self.close(parent)):
            token = self.tokens[at]
            if token.level != level or token.nesting == -1 or not token.map:
                continue
            if (kind is None or token.type == kind) and token.map[0] <= line < token.map[1]:
                return at
        return None

    def close(self, at: int) -> int:
        """The position after the block that opens at `at`."""
        opening = self.tokens[at]
        if opening.nesting != 1:
            return at + 1
        end = at + 1
        while not (self.tokens[end].level == opening.level and self.tokens[end].nesting == -1):
            end += 1
        return end + 1

    def cell(self, line: int, text: str) -> int | None:
        """The inline token of the one cell of the table's row on `line` whose text is `text`."""
        found = [
            at
            for at in range(self.start, self.end)
            if self.tokens[at].type == "inline"
            and self.tokens[at].map == [line, line + 1]
            and self.tokens[at - 1].type == "td_open"
            and self.tokens[at].content == text
        ]
        return found[0] if len(found) == 1 else None

    def cell_span(self, taken: list[int], present: dict[int, str]) -> Span | None:
        """A question table's answer: one cell, its text alone a paragraph."""
        text = present[taken[0]]
        at = self.cell(taken[0], text)
        if at is None or len(taken) != 1 or blocky(text):
            return None
        return Span(at, at + 1, cell=True)

    def item_rest(
        self, taken: list[int], present: dict[int, str], cut: dict[int, int]
    ) -> Span | None:
        """The blocks of one of the list's items after its first line, when `taken` is their
        lines (or those of the first of them), each less only the indentation the item gave
        it: a list item that asks, its answer nested under it."""
        at = self.child_at(taken[0], "list_item_open")
        if at is None or any(index in cut for index in taken):
            return None
        item, head = self.tokens[at], self.tokens[at + 1]
        assert item.map is not None
        # The item's first block is the question's line alone: a paragraph or a heading.
        if head.type not in ("paragraph_open", "heading_open") or head.map is None:
            return None
        if head.map != [item.map[0], item.map[0] + 1]:
            return None
        last = min(item.map[1], len(self.lines))
        rest = [index for index in range(head.map[1], last) if self.lines[index].strip()]
        if rest[: len(taken)] != taken or not all(
            _dedented(self.lines[i], present[i]) for i in taken
        ):
            return None
        end = self.close(at) - 1
        if len(rest) > len(taken):  # blocks left out at the item's end (`[⬆ Back to Top](#…)`)
            after = self.child_at(rest[len(taken)], parent=at)
            where = None if after is None else self.tokens[after].map
            if after is None or where is None or where[0] != rest[len(taken)]:
                return None
            end = after
        return Span(at + 4, end, shown=item.level + 1)

    def quote_rest(
        self, last: int, taken: list[int], present: dict[int, str], cut: dict[int, int]
    ) -> Span | None:
        """The blocks of a quote (ending before line `last`) from the block's first line on,
        their `>` off: a callout's body under its title, a quoted answer less its `答：`."""
        lines = {i: QUOTE.sub("", self.lines[i], count=1) for i in range(taken[0], last)}
        taken = [i for i in taken if present[i].strip()]
        if [i for i in range(taken[0], last) if lines[i].strip()] != taken:
            return None
        at = self.child_at(taken[0])
        if at is None:
            return None
        head, close = self.tokens[at], self.end - 1
        assert head.map is not None
        if head.type != "paragraph_open":
            same = all(present[i] == lines[i] for i in taken)
            return Span(at, close) if same and head.map[0] == taken[0] else None
        end = min(head.map[1], last)
        if any(present[i] != lines[i] for i in taken if i >= end):
            return None
        paragraph = Paragraph(at, close, head.map[0], end, self.tokens[at + 1])
        return paragraph_span(paragraph, lines, present, cut)


def html_lines(
    tokens: list[Token], lines: list[str], at: int, taken: list[int], present: dict[int, str]
) -> Span | None:
    """Lines of the raw HTML block at `at` (`<p>…</p>` under an `<h2>` line of the same
    block), when written alone they are one raw HTML block too: they are unchanged and
    contiguous, and their first line opens a block that only a blank line ends."""
    block = tokens[at]
    assert block.map is not None
    low, high = taken[0], taken[-1] + 1
    if taken != list(range(low, high)) or any(present[i] != lines[i] for i in taken):
        return None
    first = lines[low]
    indent = len(first) - len(first.lstrip(" "))
    opens = next(
        (n for n, (start, _, _) in enumerate(HTML_SEQUENCES) if start.search(first[indent:])), None
    )
    if indent > 3 or opens is None or HTML_SEQUENCES[opens][1].pattern != "^$":
        return None
    return Span(at, at + 1, html=(low - block.map[0], high - block.map[0]))


def _dedented(line: str, text: str) -> bool:
    """Whether `text` is `line` less some of its indentation."""
    return line.endswith(text) and not line[: len(line) - len(text)].strip()
