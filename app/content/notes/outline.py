"""A note's block structure, from one markdown-it parse: headings as a tree, top-level blocks.

Recognisers (app.content.notes.recognise) read this outline, never the raw Markdown again, to decide
which parts of someone's notes are questions, answers and sections.
"""

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from app.content.notes.markdown import parser

_EXPLICIT_ID = re.compile(r"[ \t]*\{#([^}\s]*)\}[ \t]*$")
_TRAILING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")


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


@dataclass
class Outline:
    lines: list[str]
    headings: list[Heading]
    blocks: list[Block]  # headings excluded, in line order

    def blocks_between(self, start: int, end: int) -> list[Block]:
        return [block for block in self.blocks if start <= block.start and block.end <= end]


def build_outline(lines: list[str]) -> Outline:
    """Parse `lines` once and return its heading tree and top-level blocks."""
    tokens = parser().parse("\n".join(lines))
    headings: list[Heading] = []
    blocks: list[Block] = []
    for position, token in enumerate(tokens):
        if token.level != 0 or not token.map or token.nesting == -1:
            continue
        start, end = token.map
        if token.type == "heading_open":
            text = tokens[position + 1].content.strip()
            text = _TRAILING_HASHES.sub("", text)
            explicit = None
            if match := _EXPLICIT_ID.search(text):
                explicit, text = match.group(1), text[: match.start()].strip()
            level = int(token.tag[1])
            headings.append(Heading(len(headings), start, end, level, text, explicit))
            continue
        kind = token.type.removesuffix("_open")
        block = Block(kind, start, min(end, len(lines)))
        if kind in ("bullet_list", "ordered_list"):
            block.ordered = kind == "ordered_list"
            block.items = _items(tokens, position, lines)
        blocks.append(block)
    inside = _inside_details(lines, blocks)
    headings = [h for h in headings if h.line not in inside]
    for index, heading in enumerate(headings):
        heading.index = index
    _link_headings(headings, len(lines))
    return Outline(lines, headings, blocks)


_OPEN = re.compile(r"<details\b", re.I)
_CLOSE = re.compile(r"</details\s*>", re.I)


def _inside_details(lines: list[str], blocks: list[Block]) -> set[int]:
    """Lines between <details> and </details>: a heading there is the answer's, not the note's."""
    code = {
        index
        for block in blocks
        if block.kind in ("fence", "code_block")
        for index in range(block.start, block.end)
    }
    inside: set[int] = set()
    depth = 0
    for index, line in enumerate(lines):
        if index in code:
            if depth:
                inside.add(index)
            continue
        if depth:
            inside.add(index)
        depth = max(0, depth + len(_OPEN.findall(line)) - len(_CLOSE.findall(line)))
    return inside


def _items(tokens: list[Token], position: int, lines: list[str]) -> list[Item]:
    items: list[Item] = []
    for token in tokens[position + 1 :]:
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
