"""A question cut out of an inline token of the note's one parse, as its text alone would parse.

A question is the text of a heading (Markdown or `<hN>`), a paragraph's first line, a list
item's first line or a table cell, less what the recogniser took off it (`Q:`, `1.`, `{#id}`,
bold around it all). Here that text is found among the inline token's children, so that compile
renders the question from them instead of parsing the text again.
"""

import re
from dataclasses import dataclass

from markdown_it.token import Token


@dataclass(frozen=True)
class InlineSpan:
    """A question that is an inline token's children `start`…`stop`, less `prefix` and `suffix`
    characters: the inline token at `index` of the note's stream, or, with `line`, the heading
    or summary on that line of the raw HTML block at `index` (htmltext.html_inlines). `at`:
    the line the question stands on, where its problems are reported."""

    index: int
    prefix: int
    suffix: int
    stop: int | None = None
    start: int = 0
    line: int | None = None
    at: int = 0


def balanced(children: list[Token]) -> bool:
    """Whether every emphasis, link or other markup that opens in `children` closes there."""
    depth = 0
    for child in children:
        depth += child.nesting
        if depth < 0:
            return False
    return depth == 0


def line_starts(children: list[Token]) -> list[int | None]:
    """Where each line of an inline token starts among its children; None for a line that
    starts inside a token or markup running across the break before it."""
    starts: list[int | None] = [0]
    depth = 0
    for index, child in enumerate(children):
        if child.type in ("softbreak", "hardbreak"):
            starts.append(None if depth else index + 1)
        else:  # a formula, code or raw HTML over several lines
            newlines = child.meta.get("newlines", 0) if child.type == "code_inline" else 0
            starts += [None] * (newlines or child.content.count("\n"))
        depth += child.nesting
    return starts


def line_of(children: list[Token], content: str, line: int) -> tuple[int, int, str] | None:
    """Where line `line` of an inline token starts and ends among its children, and its text;
    None when markup runs across a break around it."""
    starts = line_starts(children)
    texts = content.split("\n")
    if len(starts) != len(texts) or line >= len(starts) or starts[line] is None:
        return None
    begin = starts[line]
    end = len(children)
    if line + 1 < len(starts):
        after = starts[line + 1]
        if after is None:
            return None
        end = after - 1
    assert begin is not None
    return begin, end, texts[line].strip(" \t")


def question_in(
    children: list[Token],
    content: str,
    question: str,
    index: int,
    at: int,
    *,
    line: int | None = None,
    within: tuple[int, int] | None = None,
) -> InlineSpan | None:
    """`question`, asked on line `at`, as a cut of `children` (`within` those two, whose source
    is `content`); `line`: of an HTML heading or summary (InlineSpan)."""
    # Emphasis leaves an empty text token where its delimiters were; an anchor
    # (`## <a id="x"></a>What is X?`, Typora's and mdnice's) is no part of the question.
    start, stop = within or (0, len(children))
    while start < stop and _left_out(children[start]):
        if children[start].type == "html_inline":
            content = content.removeprefix(children[start].content)
        start += 1
    while stop > start and _left_out(children[stop - 1]):
        if children[stop - 1].type == "html_inline":
            content = content.removesuffix(children[stop - 1].content)
        stop -= 1
    bold, content = _unwrapped(children[start:stop], content)  # `**What is X?**`
    start, stop = start + bold, stop - bold
    start, stop, content = _after_number(children, start, stop, content, question)
    where = content.find(question)
    if where < 0 or start >= stop or not question:
        return None
    prefix, suffix = content[:where], content[where + len(question) :]
    if prefix and children[start].type == "strong_open":  # `**Q:** What is X?`
        label = strong_end(children[start:stop], prefix)
        if label is None:
            return None
        start, prefix = start + label[0], label[1]
    last = children[stop - 1]
    if suffix and not (last.type == "text" and last.content.endswith(suffix)):
        head = children[start]  # `question::answer`: the question starts the first token
        if head.type == "text" and head.content.startswith(prefix + question):
            stop, suffix = start + 1, head.content[len(prefix + question) :]
    found = _cut(children, start, stop, prefix, suffix)
    return None if found is None else InlineSpan(index, *found, line, at)


def _after_number(
    children: list[Token], start: int, stop: int, content: str, question: str
) -> tuple[int, int, str]:
    """`2. **How do you…?**`: the bold run after the number, when the question is all of it."""
    head = children[start] if start < stop else None
    if head is None or head.type != "text" or not head.content.strip():
        return start, stop, content
    rest = content[len(head.content) :]
    bold, inner = _unwrapped(children[start + 1 : stop], rest)
    if not bold or inner.strip() != question:
        return start, stop, content
    return start + 1 + bold, stop - bold, inner


def _left_out(token: Token) -> bool:
    if token.type == "html_inline":
        return _ANCHOR.fullmatch(token.content) is not None
    return token.type == "text" and not token.content


_ANCHOR = re.compile(r"</?a(?:\s[^<>]*)?>", re.I)


def _unwrapped(children: list[Token], content: str) -> tuple[int, str]:
    """(1, the text inside) when the whole line is one bold run, else (0, `content`)."""
    if len(children) < 3 or children[0].type != "strong_open":
        return 0, content
    markup = children[0].markup
    depth = 0
    for index, child in enumerate(children):
        depth += child.nesting if child.type in ("strong_open", "strong_close") else 0
        if depth == 0:
            whole = index == len(children) - 1
            if whole and content.startswith(markup) and content.endswith(markup):
                return 1, content[len(markup) : -len(markup)]
            return 0, content
    return 0, content


def _cut(
    children: list[Token], start: int, stop: int, prefix: str, suffix: str
) -> tuple[int, int, int, int] | None:
    """The question as children `start`…`stop` less `prefix` and `suffix`, if they fit."""
    if start >= stop or not balanced(children[start:stop]):
        return None  # emphasis that runs on past the question's line
    first, last = children[start], children[stop - 1]
    if prefix and not (first.type == "text" and first.content.startswith(prefix)):
        return None
    if suffix and not (last.type == "text" and last.content.endswith(suffix)):
        return None
    if first is last and len(prefix) + len(suffix) > len(first.content):
        return None
    return len(prefix), len(suffix), stop, start


def strong_end(children: list[Token], prefix: str) -> tuple[int, str] | None:
    """After a bold label (`**Answer.**`): (tokens it takes, the rest of `prefix` after it)."""
    head = children[0]
    if head.type != "strong_open" or not prefix.startswith(head.markup):
        return None
    for index, child in enumerate(children[1:], start=1):
        if child.type == "strong_close":
            inner = children[1:index]
            if any(token.type != "text" for token in inner):
                return None
            source = head.markup + "".join(token.content for token in inner) + child.markup
            if not prefix.startswith(source):
                return None
            return index + 1, prefix[len(source) :]
    return None


def sole_link(children: list[Token], tail: str = "") -> tuple[int, int] | None:
    """Where the text of the one link that `children` are starts and ends among them (a
    heading `[How do we use fragments?](https://…)`), or None. Blank text and anchors around
    the link are no part of what the children say, nor a text `tail` after it (`{#id}`)."""
    kept = [
        index
        for index, child in enumerate(children)
        if not (_left_out(child) or (child.type == "text" and child.content.strip() in ("", tail)))
    ]
    # A bare address (`<https://…/faq?>`) names no question: only a link written with its text.
    if not kept or children[kept[0]].type != "link_open" or children[kept[0]].markup == "autolink":
        return None
    depth = 0  # an autolink (`<https://…>`) nests inside the link's text
    for index in range(kept[0], kept[-1] + 1):
        child = children[index]
        depth += child.nesting if child.type in ("link_open", "link_close") else 0
        if depth == 0:
            return (kept[0] + 1, index) if index == kept[-1] else None
    return None


def link_text(inline: Token, tail: str = "") -> str | None:
    """The Markdown of the link's text when `inline` is one link but for a `tail` after it;
    anchors in it left out, as they are from a heading's text."""
    found = linked_source(inline.children or [], tail)
    return None if found is None else _ANCHOR.sub("", found[1]).strip()


def linked_source(children: list[Token], tail: str = "") -> tuple[tuple[int, int], str] | None:
    """Where the text of the one link that `children` are lies among them (see sole_link), and
    the Markdown it was parsed from; None when they are no such link."""
    link = sole_link(children, tail)
    source = None if link is None else inline_source(children[link[0] : link[1]])
    return None if link is None or source is None else (link, source)


def inline_source(children: list[Token]) -> str | None:
    """The Markdown that inline `children` were parsed from, as the author could have written
    it (a code span without the spaces padding it), or None when one of them has no source."""
    parts: list[str] = []
    for child in children:
        part = _source(child)
        if part is None:
            return None
        parts.append(part)
    return "".join(parts)


# Delimiters that close differently from how they open.
_CLOSING = {"\\(": "\\)"}


def _source(token: Token) -> str | None:
    kind = token.type
    if kind in ("text", "html_inline"):
        return token.content
    if kind in ("softbreak", "hardbreak"):
        return " "
    if kind == "text_special":  # an escape (`\*`) or an entity (`&amp;`) as written
        return token.markup
    if kind in ("code_inline", "math_inline", "math_inline_double"):
        return token.markup + token.content + _CLOSING.get(token.markup, token.markup)
    if kind.endswith(("_open", "_close")) and kind.startswith(("em_", "strong_", "s_", "mark_")):
        return token.markup
    if kind in ("link_open", "link_close") and token.markup == "autolink":
        return "<" if token.nesting == 1 else ">"
    if kind == "image":
        title = token.attrGet("title")
        target = str(token.attrGet("src") or "") + (f' "{title}"' if title else "")
        return f"![{token.content}]({target})"
    return None
