"""How compile turns the notes' tokens into HTML: compile's own renderer over the one parse.

The parser (app.content.notes.markdown) says what the syntax is; these rules say what it
becomes. Every token stream is rendered twice from the same tokens: once for the page
(formulas as KaTeX's HTML, code highlighted), once for Anki (formulas as `\\(TeX\\)` /
`\\[TeX\\]` for Anki's MathJax, images by their media names). `env["anki"]` selects the second
form; the walk in app.content.compile.render puts both forms in each token's meta.
"""

import html
from collections.abc import Sequence
from functools import cache
from typing import Any, cast
from urllib.parse import quote, unquote

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict, OptionsType

from app.content.compile.highlight import highlight_code
from app.content.names import NOTE_SUFFIXES, note_stem
from app.content.notes.markdown import parser, wikilink_text


def note_href(note: str, anchor: str = "") -> str:
    """Where a link to another note goes: the page resolving it by name, at its heading."""
    href = "/topics/go/" + quote(note.strip(), safe="")
    return href + ("?h=" + quote(anchor.strip(), safe="") if anchor.strip() else "")


def note_link(token: Token) -> None:
    """A relative link to another note (`../other.md#anchor`) goes to that note's page."""
    href = str(token.attrGet("href") or "")
    if not href or "://" in href or href.startswith(("/", "#", "mailto:")):
        return
    target, _, anchor = href.partition("#")
    if unquote(target).lower().endswith(NOTE_SUFFIXES):
        token.attrSet("href", note_href(note_stem(unquote(target)), unquote(anchor)))


@cache
def page_options(*, breaks: bool = False) -> OptionsDict:
    """The parser's options, with code highlighting and (for plain-text notes) line breaks."""
    options = {**parser().options, "highlight": highlight_code, "breaks": breaks}
    return OptionsDict(cast("OptionsType", options))


class PageRenderer(RendererHTML):
    """markdown-it's HTML renderer with qbank's rules; each method renders one token type."""

    def _formula(self, tokens: Sequence[Token], idx: int, env: EnvType) -> str:
        return str(tokens[idx].meta.get("anki" if env.get("anki") else "html", ""))

    def math_inline(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        return self._formula(tokens, idx, env)

    math_inline_double = math_block = math_block_eqno = math_inline
    amsmath = math_block_label = math_inline

    def wikilink(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        token = tokens[idx]
        if "html" in token.meta:  # an embedded image, resolved while walking the tokens
            return str(token.meta["anki" if env.get("anki") and "anki" in token.meta else "html"])
        target = token.content
        note, _, anchor = target.partition("#")
        if not env.get("anki"):
            env.setdefault("wikilinks", []).append(note.strip() or target)
        href = note_href(note, anchor)
        return f'<a class="topic-link" href="{href}">{html.escape(wikilink_text(token))}</a>'

    def text_special(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        return html.escape(tokens[idx].content, quote=False)

    def link_open(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        if href.startswith(("http://", "https://")):
            token.attrSet("rel", "noopener noreferrer")
        return self.renderToken(tokens, idx, options, env)

    def image(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        token = tokens[idx]
        anki_src = token.meta.get("anki_src")
        if not (env.get("anki") and anki_src):
            return super().image(tokens, idx, options, env)
        # Anki finds an image by its media name, beside the collection.
        src = token.attrGet("src")
        token.attrSet("src", anki_src)
        try:
            return super().image(tokens, idx, options, env)
        finally:
            token.attrSet("src", src or "")

    def html_inline(self, tokens: Sequence[Token], idx: int, options: Any, env: EnvType) -> str:
        token = tokens[idx]
        if env.get("anki") and "anki" in token.meta:
            return str(token.meta["anki"])
        return token.content

    html_block = html_inline
