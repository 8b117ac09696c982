"""`\\(…\\)` and `\\[…\\]` math for markdown-it, in time linear in the note.

mdit_py_plugins' texmath matches each candidate against a copy of the rest of the text with a
lazy pattern, so a note of many `\\(` or `\\[` lines without their closing delimiter takes
quadratic time. These rules make the same tokens (`math_inline`, `math_block`,
`math_block_eqno`) by finding each closing delimiter once.
"""

import re
from bisect import bisect_left
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

# An equation number after a display formula's closing `\]`, on the same line: `\] (1.2)`.
_EQNO = re.compile(r"[ \t]*\(([^)$\r\n]+?)\)")


class _Finder:
    """`text.find(needle, start)` for starts that only move forward: each character is looked
    at once however many openings without a closing delimiter there are."""

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle = text, needle
        self.searched_from, self.found = 0, -1
        self.fresh = True

    def find(self, start: int) -> int:
        known = not self.fresh and self.searched_from <= start
        if not (known and (self.found < 0 or start <= self.found)):
            self.searched_from, self.found = start, self.text.find(self.needle, start)
            self.fresh = False
        return self.found


def find_forward(state: Any, needle: str, start: int) -> int:
    """`state.src.find(needle, start)`, in linear time over all the calls a parse makes."""
    # Kept on the state, which is made for one text: a paragraph's inline text, or the note.
    finders: dict[str, _Finder] = state.__dict__.setdefault("_qbank_finders", {})
    finder = finders.get(needle)
    if finder is None or finder.text is not state.src:
        finder = finders[needle] = _Finder(state.src, needle)
    return finder.find(start)


def _inline(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith("\\(", start):
        return False
    close = find_forward(state, "\\)", start + 3)  # at least one character of TeX
    if close < 0:
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = state.src[start + 2 : close]
        token.markup = "\\("
    state.pos = close + 2
    return True


def _block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    begin = state.bMarks[start] + state.tShift[start]
    if not state.src.startswith("\\[", begin):
        return False
    close = find_forward(state, "\\]", begin + 3)
    if close < 0:
        return False
    line_end = state.src.find("\n", close)
    line_end = len(state.src) if line_end < 0 else line_end
    number = _EQNO.match(state.src, close + 2, line_end)
    last = (number.end() if number else close + 2) - 1
    # The line holding the closing delimiter, which must be inside this block.
    line = bisect_left(state.eMarks, last, start, end)
    if line >= end or last < state.bMarks[line]:
        return False
    if not silent:
        content = state.src[begin + 2 : close]
        token = state.push("math_block_eqno" if number else "math_block", "math", 0)
        token.block = True
        token.content = content
        token.info = number.group(1) if number else content
        token.markup = "\\["
        token.map = [start, line + 1]
    state.line = line + 1
    return True


def bracket_math_plugin(md: MarkdownIt) -> None:
    """Read `\\(…\\)` as inline math and `\\[…\\]` (with an optional `(n)` after) as display."""
    md.inline.ruler.before("escape", "math_inline_brackets", _inline)
    md.block.ruler.before("fence", "math_block_brackets", _block)
