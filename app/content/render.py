"""Markdown to safe HTML, with math rendered once per distinct formula by KaTeX."""

import html
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote, unquote

import pykatex
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from markdown_it.token import Token
from markdown_it.utils import OptionsDict, OptionsType
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.texmath import texmath_plugin

from app.content.cjk import cjk_emphasis_plugin
from app.content.errors import ContentError, ContentWarning
from app.content.highlight import highlight_code
from app.content.images import TYPES, Image, ImageError, image_names, load, resolve
from app.content.lint import formula_warnings
from app.content.parse import NOTE_SUFFIXES, note_stem
from app.content.rawhtml import clean

FormulaKey = tuple[str, bool]  # (TeX, display mode)

_MATH_TYPES = {
    "math_inline": False,
    "math_inline_double": True,
    "math_block": True,
    "math_block_eqno": True,
    "amsmath": True,
}
_TAGS = re.compile(r"<[^>]+>")
_KATEX_POSITION = re.compile(r" at position \d+: .*$", re.DOTALL)
# Markup that should never survive into rendered text: an emphasis that did not open or close,
# or a `$` that opened no formula. `$` before a digit is a price, never math, so it is fine.
_LITERAL_MARKUP = re.compile(r"\*\*|__|\$(?!\d)")

_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
# KaTeX limits: the longest formula in the bundled decks has ~260 characters.
MAX_FORMULA_CHARS = 4000
MAX_SIZE_EM = 50

# PyKaTeX's engine (QuickJS) belongs to the thread that first uses it: called from another
# thread it fails ("size exceeded") or corrupts memory. `serve --watch` re-imports in a thread
# of its own after the start-up import, so every formula of a process is rendered in this one.
_KATEX_THREAD = ThreadPoolExecutor(1, thread_name_prefix="katex")


def _katex(tex: str, display: bool) -> str:
    return pykatex.renderToString(
        tex,
        displayMode=display,
        output=pykatex.OUTPUT_HTML_AND_MATHML,
        throwOnError=True,
        trust=False,
        strict=pykatex.STRICT_IGNORE,
        # No \rule or \kern larger than a page. Macro expansion keeps KaTeX's
        # own limit (1000): pykatex, given maxExpand too, applies it as maxSize.
        maxSize=MAX_SIZE_EM,
    )


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not (embed or src.startswith("[[", pos)):
        return False
    start = pos + (3 if embed else 2)
    end = src.find("]]", start)
    if end < 0 or "\n" in src[start:end] or end == start:
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


def _render_wikilink(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    if "html" in token.meta:  # an embedded image, resolved while walking the tokens
        return str(token.meta["html"])
    target = token.content
    note, _, anchor = target.partition("#")
    env.setdefault("wikilinks", []).append(note.strip() or target)
    text = token.meta.get("text") or target.replace("#", " › ")
    return f'<a class="topic-link" href="{note_href(note, anchor)}">{html.escape(text)}</a>'


def note_href(note: str, anchor: str = "") -> str:
    """Where a link to another note goes: the page resolving it by name, at its heading."""
    href = "/topics/go/" + quote(note.strip(), safe="")
    return href + ("?h=" + quote(anchor.strip(), safe="") if anchor.strip() else "")


def _render_math(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return tokens[idx].meta.get("html", "")


def _render_text_special(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return html.escape(tokens[idx].content, quote=False)


def _render_link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    href = token.attrGet("href") or ""
    if href.startswith(("http://", "https://")):
        token.attrSet("rel", "noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


def build_markdown() -> MarkdownIt:
    """The one Markdown configuration used for every piece of content."""
    # Raw HTML is read as tokens and made safe by app.content.rawhtml; markdown-it's
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
    md.use(texmath_plugin, delimiters="brackets")
    md.use(amsmath_plugin)
    md.use(cjk_emphasis_plugin)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.at("backticks", _backtick_rule)
    for name in (*_MATH_TYPES, "math_block_label"):
        md.add_render_rule(name, _render_math)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("text_special", _render_text_special)
    return md


@dataclass
class Rendered:
    html: str
    text: str
    wikilinks: list[str] = field(default_factory=list)


class Renderer:
    """Render content to HTML; one instance per import so its formula cache is per import."""

    def __init__(self, root: Path | None = None) -> None:
        """`root` is the content directory that image paths are resolved in (None: no images)."""
        self.md = build_markdown()
        self.root = root
        self._images: dict[str, Image | ImageError] = {}
        self._names: dict[str, str] | None = None
        self._formulas: dict[FormulaKey, str | Exception] = {}
        self._rendered_elsewhere: set[FormulaKey] = set()

    @property
    def formulas_rendered(self) -> int:
        """Distinct formulas met so far, here or by worker processes (see count_rendered)."""
        if not self._rendered_elsewhere:
            return len(self._formulas)
        return len(self._rendered_elsewhere.union(self._formulas))

    def formula_keys(self, start: int = 0) -> list[FormulaKey]:
        """The distinct formulas this renderer met, in first-seen order, from the `start`th on."""
        return list(islice(self._formulas, start, None))

    def count_rendered(self, keys: Iterable[FormulaKey]) -> None:
        """Count formulas another process's renderer met on behalf of this one."""
        self._rendered_elsewhere.update(keys)

    def formula(self, tex: str, display: bool) -> str:
        """Return KaTeX's HTML+MathML for `tex`; raise pykatex.ParseError when it is invalid."""
        # Zero-width spaces and joiners pasted in from web pages show nothing, and KaTeX,
        # which has no metrics for them, would print a complaint for each.
        tex = _INVISIBLE.sub("", tex)
        key = (tex, display)
        cached = self._formulas.get(key)
        if cached is None and len(tex) > MAX_FORMULA_CHARS:
            # KaTeX's time grows with the square of a formula's length: one huge formula would
            # hold the import, and the one KaTeX thread, longer than the rest of the bank.
            cached = pykatex.ParseError(f"formula longer than {MAX_FORMULA_CHARS} characters")
        if cached is None:
            try:
                cached = _KATEX_THREAD.submit(_katex, tex, display).result()
            except pykatex.ParseError as exc:
                cached = exc
            except UnicodeDecodeError:
                # pykatex cannot decode some of KaTeX's error messages (their context snippet
                # is cut inside a non-BMP character such as an emoji); the formula is invalid.
                cached = pykatex.ParseError("could not parse this formula")
            self._formulas[key] = cached
        if isinstance(cached, Exception):
            raise cached
        return cached

    def render(
        self,
        text: str,
        *,
        path: str,
        line: int,
        errors: list[ContentError],
        inline: bool = False,
        breaks: bool = False,
    ) -> Rendered:
        """Render Markdown `text` that starts at `line` of `path`; math errors go to `errors`.

        With `breaks`, a single line break shows as one: notes written as plain text mean it.
        """
        if not text:
            return Rendered("", "")
        env: dict[str, Any] = {}
        tokens = self.md.parseInline(text, env) if inline else self.md.parse(text, env)
        plain: list[str] = []
        self._walk(tokens, line, path, errors, plain)
        options = self.md.options
        if breaks:
            options = OptionsDict(cast("OptionsType", {**options, "breaks": True}))
        body = self.md.renderer.render(tokens, options, env)
        return Rendered(body, " ".join(plain), env.get("wikilinks", []))

    def _walk(
        self,
        tokens: list[Token],
        line: int,
        path: str,
        errors: list[ContentError],
        plain: list[str],
    ) -> None:
        block_line = line
        for token in tokens:
            if token.map:
                block_line = line + token.map[0]
            if token.type == "fence" and token.info.strip().lower() == "math":
                token.type = "math_block"
            if token.type == "image":
                self._image(token, path, block_line, errors)
            elif token.type == "wikilink" and token.meta.get("embed"):
                self._embed(token, path, block_line, errors)
            elif token.type == "link_open":
                _note_link(token)
            elif token.type in ("html_inline", "html_block"):
                token.content = clean(
                    token.content,
                    partial(self._raw_image, path=path, line=block_line, errors=errors),
                )
            elif token.type in _MATH_TYPES or token.type == "math_block_label":
                display = _MATH_TYPES.get(token.type, True)
                plain.append(token.content)
                for w in formula_warnings(token.content, inline=not display):
                    errors.append(ContentWarning(path, block_line + w.offset, w.message))
                try:
                    token.meta["html"] = self.formula(token.content.strip(), display)
                except pykatex.ParseError as exc:
                    message = _KATEX_POSITION.sub("", str(exc))
                    formula = " ".join(token.content.split())
                    problem = f"KaTeX: {message} in ${formula}$"
                    errors.append(ContentError(path, block_line, problem))
                    token.meta["html"] = (
                        f'<code class="math-error" title="{html.escape(message)}">'
                        f"{html.escape(token.content)}</code>"
                    )
                # Inline children carry no line map: count the line breaks they span instead.
                block_line += token.content.count("\n") if not token.map else 0
            elif token.type in (
                "text",
                "text_special",
                "code_inline",
                "code_block",
                "fence",
                "wikilink",
            ):
                plain.append(token.content)
                if token.type == "text":
                    for marker in dict.fromkeys(_LITERAL_MARKUP.findall(token.content)):
                        message = f"'{marker}' is left literal in the rendered text"
                        errors.append(ContentWarning(path, block_line, message))
                block_line += token.meta.get("newlines", 0)
            elif token.type in ("softbreak", "hardbreak"):
                block_line += 1
            if token.children:
                self._walk(token.children, block_line, path, errors, plain)

    def _image(self, token: Token, path: str, line: int, errors: list[ContentError]) -> None:
        src = str(token.attrGet("src") or "")
        name = unquote(src.rsplit("/", 1)[-1].split("?", 1)[0]) or src
        web = src.startswith(("http://", "https://"))
        if not web and not "".join(child.content for child in token.children or []).strip():
            errors.append(
                ContentWarning(path, line, f"image '{src}' has no alt text; shown as '{name}'")
            )
            token.children = [Token("text", "", 0, content=name)]
        try:
            image = self.image(resolve(src, path))
        except ImageError as exc:
            # Notes moved between folders, or written for a site root ("/img/x.png"), still
            # name their image: found by that name, as Obsidian finds it.
            found = None if "://" in src else self.find_by_name(name)
            try:
                if found is None:
                    raise exc
                image = self.image(found)
            except ImageError as problem:
                errors.append(ContentError(path, line, str(problem)))
                _image_stand_in(token, src)
                return
        _show_image(token, image)

    def _embed(self, token: Token, path: str, line: int, errors: list[ContentError]) -> None:
        """Obsidian's `![[name.png|300]]`: the image of that name anywhere in the folder."""
        name = token.content
        if not name.lower().endswith(tuple(TYPES)):
            token.meta["embed"] = False  # a note embedded: shown as a link to it
            return
        token.type = "image"
        token.attrs = {"src": name, "alt": ""}
        token.children = [Token("text", "", 0, content=name)]
        found = self.find_by_name(name)
        if found is None:
            errors.append(ContentError(path, line, f"image '{name}' is not in the folder"))
            _image_stand_in(token, name)
            return
        try:
            image = self.image(found)
        except ImageError as exc:
            errors.append(ContentError(path, line, str(exc)))
            _image_stand_in(token, name)
            return
        _show_image(token, image)
        width = token.meta.get("text", "")
        if width.isdigit() and image.size:
            token.attrSet("width", width)
            token.attrSet("height", str(round(image.size[1] * int(width) / image.size[0])))

    def _raw_image(
        self, src: str, alt: str, width: str, *, path: str, line: int, errors: list[ContentError]
    ) -> str:
        """An `<img>` written as HTML, checked as a Markdown image is."""
        token = Token("image", "img", 0)
        token.attrs = {"src": src, "alt": ""}
        token.children = [Token("text", "", 0, content=alt)] if alt else []
        self._image(token, path, line, errors)
        if token.type != "image":
            return str(token.meta["html"])
        alt_text = "".join(child.content for child in token.children or [])
        attrs = {**token.attrs, "alt": alt_text}
        if width.isdigit():
            attrs["width"] = width
            attrs.pop("height", None)
        return "<img " + " ".join(f'{k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"

    def find_by_name(self, name: str) -> str | None:
        """The content-relative path of the image file called `name`, anywhere in the folder."""
        if self.root is None:
            return None
        if self._names is None:
            self._names = image_names(self.root)
        return self._names.get(name.casefold())

    def image(self, path: str) -> Image:
        """The checked image at content-relative `path`; raise ImageError."""
        if path not in self._images:
            try:
                if self.root is None:
                    raise ImageError(f"image '{path}' cannot be shown here (no content directory)")
                self._images[path] = load(self.root, path)
            except ImageError as exc:
                self._images[path] = exc
        found = self._images[path]
        if isinstance(found, ImageError):
            raise found
        return found


def _show_image(token: Token, image: Image) -> None:
    token.attrSet("src", image.url)
    if image.size:
        token.attrSet("width", str(image.size[0]))
        token.attrSet("height", str(image.size[1]))
    token.attrSet("loading", "lazy")
    token.attrSet("decoding", "async")


def _image_stand_in(token: Token, src: str) -> None:
    """An image that cannot be shown: its alt text, or a link for a web image (never fetched)."""
    alt = "".join(child.content for child in token.children or []).strip() or src
    if src.startswith(("http://", "https://")):
        markup = (
            f'<a class="image-link" href="{html.escape(src)}" rel="noopener noreferrer">'
            f"{html.escape(alt)}</a>"
        )
    else:
        markup = f'<span class="image-missing" title="{html.escape(src)}">{html.escape(alt)}</span>'
    token.type = "wikilink"  # rendered from meta["html"] by the wikilink rule
    token.meta = {"html": markup}
    token.children = None


def _note_link(token: Token) -> None:
    """A relative link to another note (`../other.md#anchor`) goes to that note's page."""
    href = str(token.attrGet("href") or "")
    if not href or "://" in href or href.startswith(("/", "#", "mailto:")):
        return
    target, _, anchor = href.partition("#")
    if unquote(target).lower().endswith(NOTE_SUFFIXES):
        token.attrSet("href", note_href(note_stem(unquote(target)), unquote(anchor)))


def strip_tags(fragment: str) -> str:
    return html.unescape(_TAGS.sub(" ", fragment))
