"""`==highlight==` (Obsidian, Typora) as `mark` tokens: strikethrough's rule, with `=`.

Markers are delimiters balanced by markdown-it's own pass (linear in the text), so a run of
`=` never costs more than its length; CJK-friendly flanking as for emphasis.
"""

from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token

from app.content.notes.cjk import scan_delims

_EQUALS = 0x3D


def _tokenize(state: StateInline, silent: bool) -> bool:
    if silent or state.src[state.pos] != "=":
        return False
    can_open, can_close, length = scan_delims(state, state.pos, True)
    if length != 2:
        # `=` alone or `===…` (a rule of equals signs in a line of text) stays text.
        state.push("text", "", 0).content = "=" * length
        state.pos += length
        return True
    state.push("text", "", 0).content = "=="
    state.delimiters.append(Delimiter(_EQUALS, 0, len(state.tokens) - 1, -1, can_open, can_close))
    state.pos += length
    return True


def _pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    for opener in delimiters:
        if opener.marker != _EQUALS or opener.end == -1:
            continue
        closer = delimiters[opener.end]
        _retype(state.tokens[opener.token], "mark_open", 1)
        _retype(state.tokens[closer.token], "mark_close", -1)


def _retype(token: Token, kind: str, nesting: Literal[1, -1]) -> None:
    token.type, token.tag, token.nesting = kind, "mark", nesting
    token.markup, token.content = "==", ""


def _post_process(state: StateInline) -> None:
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def mark_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("emphasis", "mark", _tokenize)
    md.inline.ruler2.before("emphasis", "mark", _post_process)
