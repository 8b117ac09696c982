"""The one Markdown configuration: markdown-it with math, wikilinks and the render rules.

Every token stream is rendered twice from the same tokens: once for the page (formulas as
KaTeX's HTML), once for Anki (formulas as `\\(TeX\\)` / `\\[TeX\\]` for Anki's MathJax, images
by their media names). `env["anki"]` selects the second form; the walk in app.content.compile.render
puts both forms in each token's meta.
"""

import html
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.content.compile.highlight import highlight_code
from app.content.notes.brackets import bracket_math_plugin, find_forward
from app.content.notes.cjk import cjk_emphasis_plugin

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


def wikilink_text(token: Token) -> str:
    """What a `[[note#heading|text]]` link shows."""
    return str(token.meta.get("text") or token.content.replace("#", " › "))


def _render_wikilink(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    if "html" in token.meta:  # an embedded image, resolved while walking the tokens
        return str(token.meta["anki" if env.get("anki") and "anki" in token.meta else "html"])
    target = token.content
    note, _, anchor = target.partition("#")
    if not env.get("anki"):
        env.setdefault("wikilinks", []).append(note.strip() or target)
    href = note_href(note, anchor)
    return f'<a class="topic-link" href="{href}">{html.escape(wikilink_text(token))}</a>'


def note_href(note: str, anchor: str = "") -> str:
    """Where a link to another note goes: the page resolving it by name, at its heading."""
    href = "/topics/go/" + quote(note.strip(), safe="")
    return href + ("?h=" + quote(anchor.strip(), safe="") if anchor.strip() else "")


def _render_math(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return str(tokens[idx].meta.get("anki" if env.get("anki") else "html", ""))


def _render_text_special(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return html.escape(tokens[idx].content, quote=False)


def _render_link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if href.startswith(("http://", "https://")):
        token.attrSet("rel", "noopener noreferrer")
    return str(self.renderToken(tokens, idx, options, env))


def _render_image(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    anki_src = token.meta.get("anki_src")
    if not (env.get("anki") and anki_src):
        return str(RendererHTML.image(self, tokens, idx, options, env))
    # Anki finds an image by its media name, beside the collection.
    src = token.attrGet("src")
    token.attrSet("src", anki_src)
    try:
        return str(RendererHTML.image(self, tokens, idx, options, env))
    finally:
        token.attrSet("src", src or "")


def _render_raw(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    if env.get("anki") and "anki" in token.meta:
        return str(token.meta["anki"])
    return token.content


def build_markdown() -> MarkdownIt:
    """The one Markdown configuration used for every piece of content."""
    # Raw HTML is read as tokens and made safe by app.content.compile.rawhtml; markdown-it's
    # validateLink drops javascript:, vbscript:,
    # file: and non-image data: URLs, so content can never inject script.
    options = {"html": True, "linkify": False, "typographer": False, "highlight": highlight_code}
    md = MarkdownIt("commonmark", options)
    md.enable(["table", "strikethrough"])
    # Escapes (`\*`, `\$`) and entities stay their own tokens instead of joining the text
    # around them, so that literal markup the author escaped on purpose is not reported.
    md.disable("text_join")
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
    # \(…\), \[…\] and a bare \begin{equation}…\end{equation} are math too.
    md.use(bracket_math_plugin)
    md.use(amsmath_plugin)
    md.use(cjk_emphasis_plugin)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.at("backticks", _backtick_rule)
    for name in MATH_TYPES:
        md.add_render_rule(name, _render_math)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("text_special", _render_text_special)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("html_inline", _render_raw)
    md.add_render_rule("html_block", _render_raw)
    return md
