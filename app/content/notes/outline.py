"""A note's block structure, from its one markdown-it parse: headings as a tree, top-level blocks.

Recognisers (app.content.notes.recognise) read this outline, never the raw Markdown again, to
decide which parts of someone's notes are questions, answers and sections. Headings written as
HTML on lines of their own (`<h2 id="5.x">5.什么是超参数？</h2>`, as WeChat, Typora and HTML
converters export them) are headings like `##`. The lines the parser reads as math, code or raw
HTML are `protected`: no recogniser splits them or reads a label in them.
"""

import bisect
import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from app.content.notes.cuts import link_text
from app.content.notes.htmltext import html_headings
from app.content.notes.markdown import MATH_TYPES, parser


def explicit_id(text: str) -> tuple[str | None, str]:
    """The `{#id}` that ends `text`, if any, and the text before it.

    String methods, not `[ \\t]*\\{#([^}\\s]*)\\}[ \\t]*$`: searched for, that pattern takes
    quadratic time over a run of spaces, or of `{#`.
    """
    core = text.rstrip(" \t")
    if not core.endswith("}"):
        return None, text
    # The id runs back from the closing brace to a brace or a space; its `{#` is the first
    # one in that run.
    start = len(core) - 1
    while start and core[start - 1] != "}" and not core[start - 1].isspace():
        start -= 1
    opening = core.find("{#", start, len(core) - 1)
    if opening < 0:
        return None, text
    return core[opening + 2 : -1], core[:opening].rstrip(" \t")


def _without_closing_hashes(text: str) -> str:
    """`text` without a closing run of `#` after a space (`## Title ##`)."""
    core = text.rstrip(" \t")
    bare = core.rstrip("#")
    if len(bare) < len(core) and bare.endswith((" ", "\t")):
        return bare.rstrip(" \t")
    return text


# Anchors inside a Markdown heading (`## <a id="x"></a>Title`, Typora's and mdnice's).
_ANCHOR = re.compile(r"</?a(?:\s[^<>]*)?>", re.I)
# Block kinds whose lines are text to every recogniser: code, math and raw HTML.
PROTECTED_KINDS = frozenset(
    {
        "fence",
        "code_block",
        "html_block",
        *(k for k in MATH_TYPES if not k.startswith("math_inline")),
    }
)


@dataclass
class Heading:
    index: int  # position among the document's headings
    line: int  # 0-based line of the body
    end: int  # first line after the heading itself (setext headings take two)
    level: int
    text: str  # without a trailing {#id}
    explicit_id: str | None
    parent: "Heading | None" = None
    children: list["Heading"] = field(default_factory=list)
    # The first line after everything this heading holds (the next heading at its level or above).
    stop: int = 0
    html: bool = False  # written as `<hN>`
    # The Markdown of the link's text when the heading is one link (`## [What is X?](https://…)`).
    link_text: str | None = None


@dataclass
class Item:
    """A top-level list item: its lines and the column its content starts at."""

    start: int
    end: int
    indent: int


@dataclass
class Block:
    """A top-level block of the body: a paragraph, list, fence, quote, HTML, math, table…"""

    kind: str
    start: int
    end: int
    items: list[Item] = field(default_factory=list)
    ordered: bool = False
    inline: Token | None = None  # a paragraph's inline token (its children: the inline parse)
    title: str = ""  # an admonition's title (`??? success "View Answer"`: "View Answer")
    indent: int = 0  # the column an admonition's body starts at


@dataclass
class Unclosed:
    """A `<details>` or `<div>` never closed: ended at the next heading of its level or above."""

    line: int
    tag: str
    ended: int


@dataclass
class Outline:
    lines: list[str]
    headings: list[Heading]
    blocks: list[Block]  # headings excluded, in line order
    tokens: list[Token] = field(default_factory=list)  # the parse everything here is read from
    # Each line of a paragraph or raw HTML block as the parse read it, by line: without the
    # list marker, quote prefix or indentation its container took (`read_texts`).
    texts: dict[int, str] = field(default_factory=dict)
    inlines: dict[int, Token] = field(default_factory=dict)  # a paragraph's, by its first line
    protected: set[int] = field(default_factory=set)  # math, code and raw HTML
    code: set[int] = field(default_factory=set)  # math and code: not even HTML is read there
    unclosed: list[Unclosed] = field(default_factory=list)
    _starts: list[int] = field(default_factory=list, repr=False)
    _heading_lines: list[int] = field(default_factory=list, repr=False)

    def blocks_between(self, start: int, end: int) -> list[Block]:
        """The blocks inside lines `start`…`end`, found by bisection (blocks are in order)."""
        if len(self._starts) != len(self.blocks):
            self._starts = [block.start for block in self.blocks]
        first = bisect.bisect_left(self._starts, start)
        last = bisect.bisect_left(self._starts, end, lo=first)
        return [block for block in self.blocks[first:last] if block.end <= end]

    def block_at(self, line: int) -> Block | None:
        """The top-level block that starts on `line`, if any."""
        if len(self._starts) != len(self.blocks):
            self._starts = [block.start for block in self.blocks]
        at = bisect.bisect_left(self._starts, line)
        return self.blocks[at] if at < len(self.blocks) and self._starts[at] == line else None

    def holds_text(self, start: int, end: int) -> bool:
        """Whether the parse found anything in lines `start`…`end`: a block or a heading."""
        if len(self._starts) != len(self.blocks):
            self._starts = [block.start for block in self.blocks]
        first = bisect.bisect_left(self._starts, start)
        if first < len(self.blocks) and self.blocks[first].start < end:
            return True
        if first and self.blocks[first - 1].end > start:  # a block running on into them
            return True
        if len(self._heading_lines) != len(self.headings):
            self._heading_lines = [heading.line for heading in self.headings]
        at = bisect.bisect_left(self._heading_lines, start)
        return at < len(self.headings) and self._heading_lines[at] < end

    def left_blank(self, line: int) -> bool:
        """Whether the parse read nothing on `line` (a list's map runs on over blank lines)."""
        if line < 0 or not self.holds_text(line, line + 1):
            return True
        at = bisect.bisect_right(self._starts, line) - 1  # a heading on `line` is no block's
        listed = at >= 0 and self.blocks[at].kind in ("bullet_list", "ordered_list")
        covered = listed and self.blocks[at].end > line
        return covered and line not in self.texts and line not in self.protected


def build_outline(lines: list[str]) -> Outline:
    """Parse `lines` once and return its heading tree and top-level blocks."""
    tokens = parser().parse("\n".join(lines))
    headings: list[Heading] = []
    blocks: list[Block] = []
    protected: set[int] = set()
    for position, token in enumerate(tokens):
        if token.level != 0 or not token.map or token.nesting == -1:
            continue
        start, end = token.map[0], min(token.map[1], len(lines))
        if token.type == "heading_open":
            headings.append(_heading(len(headings), token, tokens[position + 1], end))
            continue
        kind = token.type.removesuffix("_open")
        if kind == "html_block":
            _html_block(token, start, end, headings, blocks)
        else:
            block = Block(kind, start, end)
            if kind in ("bullet_list", "ordered_list"):
                block.ordered = kind == "ordered_list"
                block.items = _items(tokens, position, lines)
            elif kind == "paragraph":
                block.inline = tokens[position + 1]
                protected |= _inline_protected(block.inline, start)
            elif kind == "admonition":
                block.title = token.content
                # The body is indented four columns past the marker, as MkDocs reads it.
                block.indent = len(lines[start]) - len(lines[start].lstrip(" ")) + 4
            blocks.append(block)
        if kind in PROTECTED_KINDS:
            protected.update(range(start, end))
    headings.sort(key=lambda heading: heading.line)
    raw = {
        i for block in blocks if block.kind == "html_block" for i in range(block.start, block.end)
    }
    code = protected - raw
    inside, unclosed = _inside_folds(lines, headings, code | _nested_code(tokens))
    headings = [h for h in headings if h.line not in inside]
    for index, heading in enumerate(headings):
        heading.index = index
    _link_headings(headings, len(lines))
    texts, inlines = read_texts(tokens)
    return Outline(lines, headings, blocks, tokens, texts, inlines, protected, code, unclosed)


def read_texts(tokens: list[Token]) -> tuple[dict[int, str], dict[int, Token]]:
    """The text of each paragraph and raw HTML line, from the tokens that hold it; and each
    paragraph's inline token by the line it starts on."""
    texts: dict[int, str] = {}
    inlines: dict[int, Token] = {}
    for position, token in enumerate(tokens):
        if token.map is None:
            continue
        opener = tokens[position - 1] if position > 0 else None
        paragraph = opener is not None and opener.type == "paragraph_open"
        # `1. ### What is X?`: a heading inside a list item is the item's text, as a paragraph
        # would be (headings outside lists are read from the heading tree instead).
        item_heading = opener is not None and opener.type == "heading_open" and opener.level > 0
        if token.type == "inline" and paragraph:
            inlines.setdefault(token.map[0], token)
        if (token.type == "inline" and (paragraph or item_heading)) or token.type == "html_block":
            for offset, text in enumerate(token.content.split("\n")):
                texts.setdefault(token.map[0] + offset, text)
    return texts, inlines


def _heading(index: int, token: Token, inline: Token, end: int) -> Heading:
    text = _ANCHOR.sub("", inline.content).strip()
    explicit, rest = explicit_id(_without_closing_hashes(text))
    text = rest.strip() if explicit is not None else _without_closing_hashes(text)
    assert token.map is not None
    link = link_text(inline, "" if explicit is None else f"{{#{explicit}}}")
    return Heading(index, token.map[0], end, int(token.tag[1]), text, explicit, link_text=link)


def _html_block(
    token: Token, start: int, end: int, headings: list[Heading], blocks: list[Block]
) -> None:
    """An HTML block: its `<hN>` lines are headings, the runs of lines between them HTML."""
    run = start
    for index, (level, inline) in sorted(html_headings(token).items()):
        if index >= end:
            break
        if run < index:
            blocks.append(Block("html_block", run, index))
        text, link = inline.content, link_text(inline)
        headings.append(
            Heading(len(headings), index, index + 1, level, text, None, html=True, link_text=link)
        )
        run = index + 1
    if run < end:
        blocks.append(Block("html_block", run, end))


def _inline_protected(inline: Token, start: int) -> set[int]:
    """The lines a paragraph's formulas continue onto (`$$` … `$$` inside a paragraph)."""
    protected: set[int] = set()
    line = start
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
            continue
        spans = child.meta.get("newlines", 0) if child.type == "code_inline" else 0
        spans = spans or child.content.count("\n")
        if spans and (child.type in MATH_TYPES or child.type == "code_inline"):
            protected.update(range(line + 1, line + spans + 1))
        line += spans
    return protected


def _nested_code(tokens: list[Token]) -> set[int]:
    """The lines of fences and indented code inside lists and quotes (a `<div />` in JSX there
    is code, not a fold to balance)."""
    lines: set[int] = set()
    for token in tokens:
        if token.level and token.map and token.type in ("fence", "code_block"):
            lines.update(range(*token.map))
    return lines


def _without_code_spans(text: str) -> str:
    """`text` less its inline code spans: a backtick run up to the next run of its length."""
    runs = [match.span() for match in _BACKTICKS.finditer(text)]
    # The next run of the same length after each run, found in one pass from the end, so that
    # a line of unmatched runs takes linear time.
    following: list[int | None] = [None] * len(runs)
    latest: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        size = runs[k][1] - runs[k][0]
        following[k], latest[size] = latest.get(size), k
    kept: list[str] = []
    position = k = 0
    while k < len(runs):
        closing = following[k]
        if closing is None:
            k += 1
            continue
        kept.append(text[position : runs[k][0]])
        position, k = runs[closing][1], closing + 1
    kept.append(text[position:])
    return "".join(kept)


def _inside_folds(
    lines: list[str], headings: list[Heading], code: set[int]
) -> tuple[set[int], list[Unclosed]]:
    """Lines inside a `<details>` (a heading there is the answer's, not the note's).

    A `<details>` or `<div>` never closed ends at the next heading of the level it was opened
    under, or above: an author who forgot `</details>` in one answer did not mean the rest of
    the note to be folded into it.
    """
    folds: list[tuple[int, str, int | None]] = []  # (line opened, tag, line closed)
    stack: list[int] = []
    for index, text in enumerate(lines):
        if index in code or "<" not in text:
            continue
        for match in _FOLD_TAG.finditer(_without_code_spans(text) if "`" in text else text):
            tag = match.group(2).lower()
            if not match.group(1):
                stack.append(len(folds))
                folds.append((index, tag, None))
                continue
            while stack:  # close the innermost open fold of this tag, and any left inside it
                fold = stack.pop()
                if folds[fold][1] == tag:
                    folds[fold] = (folds[fold][0], tag, index)
                    break
    spans: list[tuple[int, int]] = []
    unclosed: list[Unclosed] = []
    ends = _FoldEnds(headings, len(lines))
    for opened, tag, closed in folds:
        if closed is None:
            closed = ends.after(opened)
            unclosed.append(Unclosed(opened, tag, closed))
            closed -= 1
        if tag == "details":
            spans.append((opened + 1, closed + 1))
    # Folds overlap (nested, or many left open): each line is added once.
    inside: set[int] = set()
    reached = 0
    for first, stop in sorted(spans):
        inside.update(range(max(first, reached), stop))
        reached = max(reached, stop)
    return inside, unclosed


class _FoldEnds:
    """Where a fold never closed ends: the next heading at or above the one it sits under."""

    def __init__(self, headings: list[Heading], total: int) -> None:
        self.headings = headings
        self.starts = [h.line for h in headings]
        # following[k][level]: the line of the first heading from the k-th on at `level` or
        # above, so that each fold left open is ended in constant time.
        self.following = [[total] * 7 for _ in range(len(headings) + 1)]
        for k in range(len(headings) - 1, -1, -1):
            row = list(self.following[k + 1])
            for level in range(headings[k].level, 7):
                row[level] = headings[k].line
            self.following[k] = row

    def after(self, opened: int) -> int:
        k = bisect.bisect_right(self.starts, opened)
        level = self.headings[k - 1].level if k else 6
        return self.following[k][level]


_FOLD_TAG = re.compile(r"<(/?)(details|div)\b", re.I)
_BACKTICKS = re.compile(r"`+")


def _items(tokens: list[Token], position: int, lines: list[str]) -> list[Item]:
    items: list[Item] = []
    for k in range(position + 1, len(tokens)):  # not a slice: a note may hold many lists
        token = tokens[k]
        if token.level == 0:
            break
        if token.type == "list_item_open" and token.level == 1 and token.map:
            start, end = token.map
            marker = str(token.markup or "")
            first = lines[start]
            at = first.find(marker) if marker else 0
            column = at + len(marker) if at >= 0 else 0
            while column < len(first) and first[column] in " \t":
                column += 1
            items.append(Item(start, min(end, len(lines)), column))
    return items


def _link_headings(headings: list[Heading], total: int) -> None:
    stack: list[Heading] = []
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop().stop = heading.line
        if stack:
            heading.parent = stack[-1]
            stack[-1].children.append(heading)
        stack.append(heading)
    for heading in stack:
        heading.stop = total
