"""Markdown compiled to safe HTML and its other forms, math rendered once per distinct formula."""

import html
import re
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pykatex
from markdown_it.token import Token

from app.content.compile.forms import plain_text, section_groups
from app.content.compile.images import (
    TYPES,
    Image,
    ImageError,
    image_names,
    image_stand_in,
    img_tag,
    load,
    resolve,
    show_image,
)
from app.content.compile.lint import FormulaWarning, formula_warnings, literal_markers
from app.content.compile.markup import PageRenderer, note_link, page_options
from app.content.compile.mathtext import readable_math
from app.content.compile.points import Point, key_points, render_marked
from app.content.compile.rawhtml import clean
from app.content.errors import ContentError, ContentWarning
from app.content.notes.markdown import MATH_TYPES, parser

FormulaKey = tuple[str, bool]  # (TeX, display mode)

_KATEX_POSITION = re.compile(r" at position \d+: .*$", re.DOTALL)
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
# KaTeX limits: the longest formula in the bundled decks has ~260 characters.
MAX_FORMULA_CHARS = 4000
MAX_SIZE_EM = 50

# PyKaTeX's engine (QuickJS) belongs to the thread that first uses it: called from another
# thread it fails ("size exceeded") or corrupts memory. `serve --watch` re-imports in a thread
# of its own after the start-up import, so every formula of a process is rendered in this one.
_KATEX_THREAD = ThreadPoolExecutor(1, thread_name_prefix="katex")
# A process whose formulas are all rendered by one thread of its own (a render worker) names it
# here and skips the hand-over to the KaTeX thread, ~7% of each formula's time.
_KATEX_OWNER: list[int | None] = [None]


def render_katex_on_this_thread() -> None:
    """Render every formula of this process on the calling thread, which must be the only
    thread that ever renders one here: call it before the first formula."""
    _KATEX_OWNER[0] = threading.get_ident()


def _katex(tex: str, display: bool) -> str:
    rendered: str = pykatex.renderToString(
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
    return rendered


def formula_key(token: Token) -> FormulaKey:
    """The formula of a math token, as Renderer.formula renders and counts it."""
    return _INVISIBLE.sub("", token.content.strip()), MATH_TYPES[token.type]


@lru_cache(maxsize=65_536)
def _formula_warnings(tex: str, inline: bool) -> tuple[FormulaWarning, ...]:
    """The lint of one formula, once per distinct formula (pools repeat them across cards)."""
    return tuple(formula_warnings(tex, inline=inline))


@dataclass
class Rendered:
    """One piece of content compiled from its tokens into every form its consumers read."""

    html: str  # for the page: formulas as KaTeX's HTML
    text: str  # plain, formulas as readable text: what search matches
    anki: str = ""  # HTML with formulas as \(TeX\) / \[TeX\] and images by media name
    points: list[Point] = field(default_factory=list)  # key points (asked for with `points`)
    groups: dict[str, str] = field(default_factory=dict)  # text by section group (`sections`)
    wikilinks: list[str] = field(default_factory=list)
    media: dict[str, str] = field(default_factory=dict)  # Anki media name: content path
    formulas: int = 0  # formulas KaTeX rendered (a bad one stays marked source)


@dataclass
class _Walk:
    """What one render collects while walking its tokens."""

    path: str
    errors: list[ContentError]
    media: dict[str, str] = field(default_factory=dict)
    formulas: int = 0
    anki: bool = False  # a token has an Anki form of its own


class Renderer:
    """Render content to HTML; one instance per import so its formula cache is per import."""

    def __init__(self, root: Path | None = None) -> None:
        """`root` is the content directory that image paths are resolved in (None: no images)."""
        self.md = parser()
        self.page = PageRenderer()
        self.root = root
        self._images: dict[str, Image | ImageError] = {}
        self._names: dict[str, str] | None = None
        self._formulas: dict[FormulaKey, str | Exception] = {}
        self._rendered_elsewhere: set[FormulaKey] = set()
        self._given: dict[FormulaKey, str] = {}  # rendered by another process (see give)

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

    def give(self, formulas: dict[FormulaKey, str]) -> None:
        """Take KaTeX's HTML of `formulas` from another process; each counts once it is met."""
        self._given |= formulas

    def formula(self, tex: str, display: bool) -> str:
        """Return KaTeX's HTML+MathML for `tex`; raise pykatex.ParseError when it is invalid."""
        # Zero-width spaces and joiners pasted in from web pages show nothing, and KaTeX,
        # which has no metrics for them, would print a complaint for each.
        tex = _INVISIBLE.sub("", tex)
        key = (tex, display)
        cached = self._formulas.get(key)
        if cached is None and key in self._given:
            cached = self._formulas[key] = self._given.pop(key)
        if cached is None and len(tex) > MAX_FORMULA_CHARS:
            # KaTeX's time grows with the square of a formula's length: one huge formula would
            # hold the import, and the one KaTeX thread, longer than the rest of the bank.
            cached = pykatex.ParseError(f"formula longer than {MAX_FORMULA_CHARS} characters")
        if cached is None:
            try:
                if _KATEX_OWNER[0] == threading.get_ident():
                    cached = _katex(tex, display)
                else:
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
        points: bool = False,
        sections: bool = False,
    ) -> Rendered:
        """Compile Markdown `text` that starts at `line` of `path`; math errors go to `errors`.

        One parse, then every form from its tokens: the page's HTML, the plain text, the Anki
        HTML, and on demand the key points (`points`) and the text by section (`sections`).
        With `breaks`, a single line break shows as one: notes written as plain text mean it.
        """
        if not text:
            return Rendered("", "")
        tokens = self.md.parseInline(text, {}) if inline else self.md.parse(text, {})
        return self.render_tokens(
            tokens,
            path=path,
            line=line,
            errors=errors,
            breaks=breaks,
            points=points,
            sections=sections,
        )

    def render_tokens(
        self,
        tokens: list[Token],
        *,
        path: str,
        line: int,
        errors: list[ContentError],
        breaks: bool = False,
        points: bool = False,
        sections: bool = False,
    ) -> Rendered:
        """Compile `tokens` (a note's, or a block's), whose line map counts from `line` of `path`.

        The walk changes the tokens (formulas, images, raw HTML): each is rendered once.
        """
        if not tokens:
            return Rendered("", "")
        env: dict[str, Any] = {}
        walk = _Walk(path, errors)
        self._walk(tokens, line, walk)
        options = page_options(breaks=breaks)
        renderer = self.page
        if points:  # the answer's key points are places in its HTML, noted as it is rendered
            marked = render_marked(renderer, tokens, options, env)
            page, found = marked.html, key_points(tokens, marked)
        else:
            page, found = renderer.render(tokens, options, env), []
        return Rendered(
            html=page,
            text=plain_text(tokens),
            # Anki's form differs only where a formula, an image or raw HTML has one of its own.
            anki=renderer.render(tokens, options, {"anki": True}) if walk.anki else page,
            points=found,
            groups=section_groups(tokens) if sections else {},
            wikilinks=env.get("wikilinks", []),
            media=walk.media,
            formulas=walk.formulas,
        )

    def _walk(self, tokens: list[Token], line: int, walk: _Walk) -> None:
        block_line = line
        for token in tokens:
            if token.map:
                block_line = line + token.map[0]
            if token.type == "image":
                self._image(token, block_line, walk)
            elif token.type == "wikilink" and token.meta.get("embed"):
                self._embed(token, block_line, walk)
            elif token.type == "link_open":
                note_link(token)
            elif token.type in ("html_inline", "html_block"):
                self._raw(token, block_line, walk)
            elif token.type in MATH_TYPES:
                self._math(token, block_line, walk)
                # Inline children carry no line map: count the line breaks they span instead.
                block_line += token.content.count("\n") if not token.map else 0
            elif token.type in ("text", "code_inline"):
                if token.type == "text":
                    for marker in literal_markers(token.content):
                        walk.errors.append(
                            ContentWarning.of("left_literal", walk.path, block_line, marker=marker)
                        )
                block_line += token.meta.get("newlines", 0)
            elif token.type in ("softbreak", "hardbreak"):
                block_line += 1
            walk.anki = walk.anki or "anki" in token.meta or "anki_src" in token.meta
            if token.children:
                self._walk(token.children, block_line, walk)

    def _math(self, token: Token, line: int, walk: _Walk) -> None:
        """Render one formula: KaTeX's HTML, the Anki form and readable text into its meta."""
        tex, display = formula_key(token)
        # A fence's formula starts on the line after the fence; `$$` and `\[` keep theirs.
        first = line + 1 if token.meta.get("fenced") else line
        for w in _formula_warnings(token.content, not display):
            walk.errors.append(ContentWarning(walk.path, first + w.offset, w.said))
        token.meta["text"] = readable_math(tex)
        try:
            token.meta["html"] = self.formula(tex, display)
        except pykatex.ParseError as exc:
            message = _KATEX_POSITION.sub("", str(exc))
            formula = " ".join(token.content.split())
            walk.errors.append(
                ContentError.of("katex", walk.path, line, message=message, formula=formula)
            )
            token.meta["html"] = token.meta["anki"] = (
                f'<code class="math-error" title="{html.escape(message)}">'
                f"{html.escape(token.content)}</code>"
            )
            return
        walk.formulas += 1
        opening, closing = (r"\[", r"\]") if display else (r"\(", r"\)")
        token.meta["anki"] = opening + html.escape(tex, quote=False) + closing

    def _image(self, token: Token, line: int, walk: _Walk) -> None:
        src = str(token.attrGet("src") or "")
        name = unquote(src.rsplit("/", 1)[-1].split("?", 1)[0]) or src
        web = src.startswith(("http://", "https://"))
        if not web and not "".join(child.content for child in token.children or []).strip():
            walk.errors.append(
                ContentWarning.of("image_no_alt", walk.path, line, src=src, name=name)
            )
            token.children = [Token("text", "", 0, content=name)]
        try:
            image = self.image(resolve(src, walk.path))
        except ImageError as exc:
            # Notes moved between folders, or written for a site root ("/img/x.png"), still
            # name their image: found by that name, as Obsidian finds it.
            found = None if "://" in src else self.find_by_name(name)
            try:
                if found is None:
                    raise exc
                image = self.image(found)
            except ImageError as problem:
                walk.errors.append(ContentError(walk.path, line, problem.said))
                image_stand_in(token, src)
                return
        show_image(token, image, walk.media)

    def _embed(self, token: Token, line: int, walk: _Walk) -> None:
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
            walk.errors.append(ContentError.of("image_not_in_folder", walk.path, line, name=name))
            image_stand_in(token, name)
            return
        try:
            image = self.image(found)
        except ImageError as exc:
            walk.errors.append(ContentError(walk.path, line, exc.said))
            image_stand_in(token, name)
            return
        show_image(token, image, walk.media)
        width = token.meta.get("text", "")
        if width.isdigit() and image.size:
            token.attrSet("width", width)
            token.attrSet("height", str(round(image.size[1] * int(width) / image.size[0])))

    def _raw(self, token: Token, line: int, walk: _Walk) -> None:
        """Raw HTML made safe; its images checked, with their Anki form beside the page's."""
        made: list[tuple[str, str]] = []

        def image(src: str, alt: str, width: str) -> str:
            page, anki = self._raw_image(src, alt, width, line, walk)
            made.append((page, anki))
            return page

        token.content = clean(token.content, image)
        if any(page != anki for page, anki in made):
            anki_content = token.content
            for page, anki in made:
                anki_content = anki_content.replace(page, anki)
            token.meta["anki"] = anki_content

    def _raw_image(self, src: str, alt: str, width: str, line: int, walk: _Walk) -> tuple[str, str]:
        """An `<img>` written as HTML, checked as a Markdown image is: (page, Anki) markup."""
        token = Token("image", "img", 0)
        token.attrs = {"src": src, "alt": ""}
        token.children = [Token("text", "", 0, content=alt)] if alt else []
        self._image(token, line, walk)
        if token.type != "image":
            return str(token.meta["html"]), str(token.meta["html"])
        alt_text = "".join(child.content for child in token.children or [])
        attrs = {**token.attrs, "alt": alt_text}
        if width.isdigit():
            attrs["width"] = width
            attrs.pop("height", None)
        anki_src = token.meta.get("anki_src")
        return img_tag(attrs), img_tag({**attrs, "src": anki_src} if anki_src else attrs)

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
                    raise ImageError.of("image_no_folder", path=path)
                self._images[path] = load(self.root, path)
            except ImageError as exc:
                self._images[path] = exc
        found = self._images[path]
        if isinstance(found, ImageError):
            raise found
        return found
