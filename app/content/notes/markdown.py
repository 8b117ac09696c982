"""The one Markdown configuration: the syntax notes are read with, and nothing about output.

markdown-it with math (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`, ```` ```math ````, `\\begin{…}`),
wikilinks, CJK-friendly emphasis, raw HTML blocks, tables, strikethrough, `==highlight==` and
MkDocs admonitions (`!!! note`, `??? success "View Answer"`).
A note is parsed with it once (app.content.notes.parse); the outline, the recognisers and the
compile stage all read that token stream. How tokens become HTML is compile's
(app.content.compile.markup): this module has no render rules.
"""

from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.content.notes.brackets import bracket_math_plugin, find_forward
from app.content.notes.cjk import cjk_emphasis_plugin
from app.content.notes.htmltext import html_text_plugin
from app.content.notes.mark import mark_plugin

# Math token types, and whether each is display math.
MATH_TYPES = {
    "math_inline": False,
    "math_inline_double": True,
    "math_block": True,
    "math_block_eqno": True,
    "amsmath": True,
    "math_block_label": True,
}


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not (embed or src.startswith("[[", pos)):
        return False
    start = pos + (3 if embed else 2)
    # Found forward once, not searched for from every `[[` (quadratic in a run of them).
    end = find_forward(state, "]]", start)
    newline = find_forward(state, "\n", start)
    if end < 0 or 0 <= newline < end or end == start:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        target, _, text = src[start:end].partition("|")
        token.content = target.strip()
        token.meta = {"text": text.strip(), "embed": embed}
    state.pos = end + 2
    return True


def _backtick_rule(state: StateInline, silent: bool) -> bool:
    # A code span turns its line breaks into spaces; remember how many so that errors later
    # in the paragraph can still be given the right line.
    start, count = state.pos, len(state.tokens)
    if not backtick(state, silent):
        return False
    if len(state.tokens) > count:
        state.tokens[-1].meta["newlines"] = state.src.count("\n", start, state.pos)
    return True


def _from_the_start(rule: Any) -> Any:
    """Inline `rule` (dollarmath's), reading nothing before the text's first character.

    At the text's first character the plugin looks one character back with `src[pos - 1]`,
    which Python reads as the text's last: `$x$ 取 2` (a digit last) or `$x$ …\\` (a
    backslash last) was not math. A NUL, which markdown-it never leaves in a text, stands at
    the end while the rule reads there.
    """

    def rule_from_the_start(state: StateInline, silent: bool) -> bool:
        if state.pos:
            return bool(rule(state, silent))
        src = state.src
        state.src = src + "\0"
        try:
            return bool(rule(state, silent))
        finally:
            state.src = src

    return rule_from_the_start


# Token is a dataclass with slots: copy.copy goes through __reduce_ex__, which costs more than
# copying the slots, and the walk over a deck's blocks copies tokens several times a card.
_TOKEN_SLOTS = Token.__slots__


def copied(token: Token) -> Token:
    """A shallow copy of `token`, as copy.copy makes: its attrs, meta and children shared."""
    new: Token = object.__new__(Token)
    for name in _TOKEN_SLOTS:
        setattr(new, name, getattr(token, name))
    return new


def wikilink_text(token: Token) -> str:
    """What a `[[note#heading|text]]` link shows."""
    return str(token.meta.get("text") or token.content.replace("#", " › "))


def _mapped(rule: Any) -> Any:
    """Block `rule`, with the lines they span on the tokens it makes, as markdown-it's own rules.

    amsmath's `\\begin{equation}…\\end{equation}` ended its lines before `\\end`: that line
    was neither protected from the recognisers nor part of the formula's block.
    """

    def rule_with_map(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        count = len(state.tokens)
        found = bool(rule(state, start, end, silent))
        if found and not silent:
            for token in state.tokens[count:]:
                token.map = [start, state.line]
        return found

    return rule_with_map


def _math_fences(state: StateCore) -> None:
    """A ```` ```math ```` fence is display math, seen as such by every reader of the tokens."""
    for token in state.tokens:
        if token.type == "fence" and token.info.strip().lower() == "math":
            token.type = "math_block"
            token.meta["fenced"] = True


def _rule(ruler: Any, name: str) -> Any:
    """The function of the rule called `name` in `ruler`, as a plugin registered it."""
    return next(rule.fn for rule in ruler.__rules__ if rule.name == name)


@cache
def parser() -> MarkdownIt:
    """The one Markdown configuration, shared by every reader of content (parse only)."""
    # Raw HTML is read as tokens and made safe by app.content.compile.rawhtml; markdown-it's
    # validateLink drops javascript:, vbscript:, file: and non-image data: URLs.
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # Escapes (`\*`, `\$`) and entities stay their own tokens instead of joining the text
    # around them, so that literal markup the author escaped on purpose is not reported.
    md.disable("text_join")
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
    md.inline.ruler.at("math_inline", _from_the_start(_rule(md.inline.ruler, "math_inline")))
    # \(…\), \[…\] and a bare \begin{equation}…\end{equation} are math too.
    md.use(bracket_math_plugin)
    md.use(amsmath_plugin)
    md.block.ruler.at("amsmath", _mapped(_rule(md.block.ruler, "amsmath")))
    md.use(cjk_emphasis_plugin)
    md.use(mark_plugin)
    # MkDocs / Material admonitions: `!!! note "Title"` and the collapsible `??? success "View
    # Answer"`, the body indented under them.
    md.use(admon_plugin)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.at("backticks", _backtick_rule)
    md.core.ruler.after("block", "math_fence", _math_fences)
    # `<h2 id="…">…</h2>` and `<summary>…</summary>` in raw HTML: their text parsed inline.
    md.use(html_text_plugin)
    return md
