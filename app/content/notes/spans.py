"""Where each piece of a card sits in the note's one token stream, so compile renders from it.

A card's blocks are lines of the note, less the labels that opened them (`**面试回答。** …`),
and the indentation, `>` or pipes a list item, quote or table put around them. When a block is
whole top-level blocks, some lines of a paragraph (notes.paragraphs), or the inside of a list
item, quote, table cell or raw HTML block (notes.containers), it is a list of token ranges of
the note's parse; a question is cut from an inline token (notes.cuts). Compile renders those
tokens and never parses the piece's text again. A block the recognisers rewrote (a fold's
tags taken off its lines, an admonition's body unindented) or whose lines alone give other
tokens than in the note has no ranges and is parsed on its own.
"""

import bisect
from dataclasses import dataclass, field

from markdown_it.token import Token

from app.content.notes.containers import Container, html_lines
from app.content.notes.cuts import InlineSpan, line_of, linked_source, question_in
from app.content.notes.htmltext import html_headings, html_inlines
from app.content.notes.markdown import copied, parser
from app.content.notes.outline import explicit_id
from app.content.notes.paragraphs import (
    Paragraph,
    Span,
    cell_paragraph,
    cut_paragraph,
    paragraph_span,
)

Lines = list[tuple[int, str]]


@dataclass(frozen=True)
class ItemCut:
    """A follow-up that is a list item of the note's parse, `- 追问：… ⏎ 答：…`.

    The item's first paragraph is the inline token `inline`; the question is its children up to
    the line break `split`, less `ask` characters of the first (the `追问：` label) and `suffix`
    of the last (an `{#id}`); the answer is the children after the break, less `answer`
    characters of the first (`答：`), then the item's other blocks up to the token `end`.
    """

    inline: int
    split: int
    ask: int
    suffix: int
    answer: int
    end: int


@dataclass
class NoteTokens:
    """The one parse of a note, for compile; a worker process parses `text` again (see stream)."""

    text: str  # what was parsed: the note's body, lines joined
    first: int  # the file line of the body's first line
    tokens: list[Token] | None = field(default=None, repr=False)
    # Token ranges already rendered: their tokens carry that render's changes (images, HTML).
    # A block by its first token and line (blocks cut from one paragraph take lines of their
    # own), a question by its inline token (and an HTML heading's line), a follow-up by its.
    used: set[tuple[str, int, int]] = field(default_factory=set, repr=False)

    def __getstate__(self) -> dict[str, object]:
        # Tokens pickle slowly (~30 times the text's size): another process parses the text.
        return {"text": self.text, "first": self.first, "tokens": None, "used": set()}

    def stream(self) -> list[Token]:
        """The note's tokens, parsed here if this process has not parsed it."""
        if self.tokens is None:
            self.tokens = parser().parse(self.text)
        return self.tokens

    def take(self, spans: "tuple[Span, ...] | None") -> list[Token] | None:
        """The tokens of `spans`, or None when there are none or they were rendered already."""
        if spans is None or any(("block", span.start, span.down) in self.used for span in spans):
            return None
        stream = self.stream()
        out: list[Token] = []
        for span in spans:
            self.used.add(("block", span.start, span.down))
            part = stream[span.start : span.end]
            if span.cell:
                out += cell_paragraph(part[0])
                continue
            if span.html is not None:
                out.append(_html_lines(part[0], *span.html))
                continue
            if span.shown is not None:
                part = [_shown(t) if t.hidden and t.level == span.shown else t for t in part]
            whole = not (span.skip or span.chars or span.down or span.stop is not None)
            out += part if whole else cut_paragraph(part, span)
        return _ended(out)

    def inline(self, span: InlineSpan | None) -> list[Token] | None:
        """A question's inline token, cut as `span` says, or None."""
        if span is None:
            return None
        # Questions cut from one paragraph's lines start at children of their own.
        key = ("question", span.index, span.start if span.line is None else span.line)
        if key in self.used:
            return None
        self.used.add(key)
        token = self.stream()[span.index]
        if span.line is not None:  # a heading or summary written in raw HTML
            token = html_inlines(token)[span.line]
        token = copied(token)
        token.map = [span.at, span.at + 1]  # the question's line, where its problems are
        children = list(token.children or [])[span.start : span.stop]
        if span.prefix:
            children[0] = _text(children[0], children[0].content[span.prefix :])
        if span.suffix:
            children[-1] = _text(children[-1], children[-1].content[: -span.suffix])
        token.children = [c for c in children if c.type != "text" or c.content]
        return [token]

    def followup(self, cut: ItemCut | None) -> tuple[list[Token], list[Token]] | None:
        """A follow-up's question (an inline token) and answer (blocks), cut as `cut` says."""
        if cut is None or ("followup", cut.inline, 0) in self.used:
            return None
        self.used.add(("followup", cut.inline, 0))
        stream = self.stream()
        inline = stream[cut.inline]
        children = list(inline.children or [])
        asked, answered = children[: cut.split], children[cut.split + 1 :]
        asked[0] = _text(asked[0], asked[0].content[cut.ask :])
        if cut.suffix:
            asked[-1] = _text(asked[-1], asked[-1].content[: -cut.suffix])
        answered[0] = _text(answered[0], answered[0].content[cut.answer :])
        question, body = copied(inline), copied(inline)
        question.children = [c for c in asked if c.type != "text" or c.content]
        body.children = [c for c in answered if c.type != "text" or c.content]
        opening = copied(stream[cut.inline - 1])
        for token in (opening, body):  # the answer starts a line down: errors point there
            if token.map:
                token.map = [token.map[0] + 1, token.map[1]]
        level = inline.level - 1
        # `答：` alone on its line: the answer is the item's next blocks.
        first = [opening, body, stream[cut.inline + 1]] if body.children else []
        # Written alone, the answer is not inside a tight list: its paragraphs show as such.
        rest = [
            _shown(token) if token.hidden and token.level == level else token
            for token in [*first, *stream[cut.inline + 2 : cut.end]]
        ]
        return [question], _ended(rest)


def _html_lines(token: Token, low: int, high: int) -> Token:
    """Lines `low`…`high` of a raw HTML block, as the block they make alone."""
    cut = _text(token, "".join(line + "\n" for line in token.content.split("\n")[low:high]))
    if token.map:
        cut.map = [token.map[0] + low, token.map[0] + high]
    return cut


def _shown(token: Token) -> Token:
    shown = copied(token)
    shown.hidden = False
    return shown


def _ended(tokens: list[Token]) -> list[Token]:
    """`tokens` as they end a text: raw HTML that ends a text has no line break after it."""
    last = len(tokens) - 1
    while last >= 0 and tokens[last].nesting == -1:
        last -= 1
    if last >= 0 and tokens[last].type == "html_block" and tokens[last].content.endswith("\n"):
        tokens[last] = _text(tokens[last], tokens[last].content[:-1])
    return tokens


def _text(token: Token, content: str) -> Token:
    cut = copied(token)
    cut.content = content
    return cut


@dataclass
class _Group:
    start: int  # token range
    end: int
    first: int  # line range
    last: int
    kind: str


class Groups:
    """The note's top-level token groups with the lines each spans, to find a block's spans."""

    def __init__(self, tokens: list[Token], lines: list[str]) -> None:
        self.lines = lines
        self.groups: list[_Group] = []
        self.valid = True
        index = 0
        while index < len(tokens):
            token = tokens[index]
            end = index
            if token.nesting == 1:
                end += 1
                while not (tokens[end].level == token.level and tokens[end].nesting == -1):
                    end += 1
            if token.map is None:
                self.valid = False  # a block without lines cannot be placed
            else:
                first, last = token.map[0], min(token.map[1], len(lines))
                self.groups.append(_Group(index, end + 1, first, last, token.type))
            index = end + 1
        self._firsts = [group.first for group in self.groups]
        self._tokens = tokens

    @property
    def tokens(self) -> list[Token]:
        """The note's token stream."""
        return self._tokens

    def spans(self, entries: Lines, cut: dict[int, int]) -> tuple[Span, ...] | None:
        """The token ranges that are exactly the block of `entries`, or None.

        `cut` maps a line to how many characters its label took from its start.
        """
        if not self.valid:
            return None
        if not entries:
            return ()
        present = dict(entries)
        low, high = entries[0][0], entries[-1][0] + 1
        at = max(0, bisect.bisect_right(self._firsts, low) - 1)
        found: list[Span] = []
        covered: set[int] = set()
        # Walked by index: a slice would copy the rest of the note's groups for every block.
        for index in range(at, len(self.groups)):
            group = self.groups[index]
            if group.first >= high:
                break
            shown = [i for i in range(group.first, group.last) if self.lines[i].strip()]
            taken = [i for i in shown if i in present]
            if not taken:
                continue
            span = self._group_span(group, len(shown), taken, present, cut)
            if span is None:
                return None
            found.append(span)
            covered.update(taken)
        if any(text.strip() and index not in covered for index, text in entries):
            return None
        if len(found) > 1 and any(span.shown is not None for span in found):
            return None  # written alone, the item's blocks may join those around them
        return tuple(found)

    def _group_span(
        self,
        group: _Group,
        shown: int,
        taken: list[int],
        present: dict[int, str],
        cut: dict[int, int],
    ) -> Span | None:
        """The span of `group` when the block takes `taken` of its `shown` lines, or None."""
        container = Container(self._tokens, self.lines, group.start, group.end)
        if group.kind in _LISTS and len(taken) != shown:
            return container.item_rest(taken, present, cut)
        if group.kind == "table_open" and len(taken) != shown:  # a question table's answer
            return container.cell_span(taken, present)
        if group.kind == "blockquote_open" and any(present[i] != self.lines[i] for i in taken):
            return container.quote_rest(group.last, taken, present, cut)  # its `>` taken off
        if group.kind == "html_block" and len(taken) != shown:
            return html_lines(self._tokens, self.lines, group.start, taken, present)
        if len(taken) != shown and group.kind != "paragraph_open":
            return None
        return self._span(group, present, cut)

    def _span(self, group: _Group, present: dict[int, str], cut: dict[int, int]) -> Span | None:
        if group.kind == "paragraph_open":
            inline = self._tokens[group.start + 1]
            paragraph = Paragraph(group.start, group.end, group.first, group.last, inline)
            return paragraph_span(paragraph, self.lines, present, cut)
        if group.first in cut:
            return None
        if any(
            present.get(i, self.lines[i]) != self.lines[i] for i in range(group.first, group.last)
        ):
            return None
        return Span(group.start, group.end)

    def _html_question(self, group: _Group, line: int, question: str) -> InlineSpan | None:
        """A question written in raw HTML: the `<hN>` heading on `line`, or the summary of the
        `<details>` opened there (the first summary from that line on)."""
        block = self._tokens[group.start]
        at: int | None = line
        if line not in html_headings(block):
            at = min((key for key in html_inlines(block) if key >= line), default=None)
        if at is None:
            return None
        inline = html_inlines(block)[at]
        children = inline.children or []
        return question_in(children, inline.content, question, group.start, line, line=at)

    def question(self, line: int, question: str) -> InlineSpan | None:
        """The heading or paragraph at `line` as the inline tokens of `question`, or None."""
        if not self.valid:
            return None
        at = bisect.bisect_right(self._firsts, line) - 1
        if at < 0 or line >= self.groups[at].last:
            return None
        group = self.groups[at]
        if group.kind == "html_block":
            return self._html_question(group, line, question)
        container = Container(self._tokens, self.lines, group.start, group.end)
        if group.kind == "table_open":  # a question table's question cell
            cell = container.cell(line, question)
            if cell is None:
                return None
            inline = self._tokens[cell]
            return question_in(inline.children or [], inline.content, question, cell, line)
        opening: int | None = group.start
        if group.kind in _LISTS:  # a list item that asks: its first line
            item = container.child_at(line, "list_item_open")
            opening = None if item is None else item + 1
        elif group.kind == "blockquote_open":  # a callout's title
            opening = container.child_at(line)
        if opening is None:
            return None
        head = self._tokens[opening]
        if head.type not in ("heading_open", "paragraph_open") or not head.map:
            return None
        inline = self._tokens[opening + 1]
        children, content = inline.children or [], inline.content
        if head.type != "paragraph_open":
            if head.map[0] != line:
                return None
            cut = question_in(children, content, question, opening + 1, line)
            return cut or _linked(children, content, question, opening + 1, line)
        found = line_of(children, content, line - head.map[0])  # the question is one of its lines
        if found is None:
            return None
        begin, end, text = found
        return question_in(children, text, question, opening + 1, line, within=(begin, end))


def _linked(
    children: list[Token], content: str, question: str, index: int, line: int
) -> InlineSpan | None:
    """`question` cut from the text of the one link a heading is (`## [What is X?](…)`)."""
    explicit = explicit_id(content)[0]
    found = linked_source(children, "" if explicit is None else f"{{#{explicit}}}")
    if found is None:
        return None
    link, source = found
    return question_in(children, source, question, index, line, within=link)


_LISTS = ("bullet_list_open", "ordered_list_open")
