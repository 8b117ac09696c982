"""The text of headings and fold summaries written in raw HTML, parsed inline with the note.

WeChat, Typora and HTML converters write headings as `<h2 id="5.x">5.什么是超参数？</h2>` on
lines of their own, and notes fold answers under `<details><summary>What is X?</summary>`. To
markdown-it both are raw HTML; to the reader, a heading and a question. Each one's text is
parsed inline here, in the note's one parse, into an inline token kept in its HTML block's
`meta` by the line it starts on: the outline reads headings from it and compile renders a
question from its children, so neither parses that text again.
"""

import html
import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from app.content.notes.wording import SUMMARY, TAGS

# An HTML heading alone on its line; `[^<>]` keeps each part linear in the line's length.
HTML_HEADING = re.compile(r"[ ]{0,3}<h([1-6])(?:\s[^<>]*)?>(.*)</h\1\s*>\s*", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")


def html_inlines(token: Token) -> dict[int, Token]:
    """The inline tokens of a raw HTML block's headings and summaries, by line."""
    found: dict[int, Token] = token.meta.get("inlines", {})
    return found


def html_headings(token: Token) -> dict[int, tuple[int, Token]]:
    """The headings of a raw HTML block, by line: (level, their text's inline token)."""
    levels: dict[int, int] = token.meta.get("headings", {})
    inlines = html_inlines(token)
    return {line: (level, inlines[line]) for line, level in levels.items()}


def html_text_plugin(md: MarkdownIt) -> None:
    """Parse the text of HTML headings and summaries inline, after the note's own inline text."""
    md.core.ruler.after("inline", "html_text", _html_text)


def _html_text(state: StateCore) -> None:
    for token in state.tokens:
        if token.type != "html_block" or token.map is None:
            continue
        lower = token.content.lower()
        inlines: dict[int, Token] = {}
        if "<h" in lower:
            token.meta["headings"] = _headings(state, token, inlines)
        if "<summary" in lower:
            _summaries(state, token, inlines)
        if inlines:
            token.meta["inlines"] = inlines


def _headings(state: StateCore, token: Token, inlines: dict[int, Token]) -> dict[int, int]:
    """The block's heading lines, by line: their levels; their text (tags dropped, entities
    read) parsed into `inlines`."""
    assert token.map is not None
    levels: dict[int, int] = {}
    for offset, line in enumerate(token.content.split("\n")):
        match = HTML_HEADING.fullmatch(line) if "<" in line else None
        if match is not None:
            at = token.map[0] + offset
            inlines[at] = _parsed(state, html.unescape(_TAG.sub("", match.group(2))).strip(), at)
            levels[at] = int(match.group(1))
    return levels


def _summaries(state: StateCore, token: Token, inlines: dict[int, Token]) -> None:
    """Each `<summary>…</summary>` of the block, its tags dropped, parsed into `inlines` by the
    line it opens on (the text the details recogniser asks with)."""
    assert token.map is not None
    for match in SUMMARY.finditer(token.content):
        at = token.map[0] + token.content.count("\n", 0, match.start())
        if at not in inlines:
            inlines[at] = _parsed(state, TAGS.sub("", match.group(1)).strip(), at)


def _parsed(state: StateCore, text: str, line: int) -> Token:
    """`text` parsed as the inline text of line `line`, as a heading's text is."""
    children: list[Token] = []
    state.md.inline.parse(text, state.md, state.env, children)
    inline = Token("inline", "", 0, map=[line, line + 1], level=1, content=text)
    inline.children = children
    return inline
