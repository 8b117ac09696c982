"""Plain, normalised search text from rendered content, the same on every database.

Matching happens on folded text (NFC, then NFKC + casefold one character at a time), made here
at import and stored, so the database only compares strings it was given: SQLite's `lower()`
folds ASCII only, PostgreSQL's follows its collation, and neither folds `ＧＥＭＭ` to `gemm`.
Folding one character at a time keeps a map from folded positions back to the displayed text,
which is what snippets highlight.
"""

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

from app.export.tex import map_katex

# Field groups in ranking order: a match in an earlier group outranks any in a later one.
FIELDS = ("title", "body", "extra", "reading")

_BLOCK_END = re.compile(r"</(?:p|li|h[1-6]|tr|pre|div|blockquote|table|ul|ol)>|<br\s*/?>|<hr\s*/?>")
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
# Emphasis markers the Markdown renderer left literal (e.g. `**…**` against CJK punctuation).
_STRAY_EMPHASIS = re.compile(r"\*\*+")
_H2 = re.compile(r"<h2[^>]*>(.*?)</h2>", re.DOTALL)
# Topic sections by heading: reading lists, and the pitfalls that rank with a card's.
_READING = ("延伸阅读", "接下来读", "继续读", "外部参考", "参考", "阅读", "reading", "references")
_EXTRA = ("易错", "坑", "面试角度", "pitfall", "follow-up", "追问")
_LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def fold(text: str) -> str:
    """`text` as search compares it; queries and stored text go through the same function."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=16_384)
def _fold_char(char: str) -> str:
    return fold(char)


def fold_with_map(text: str) -> tuple[str, list[int]]:
    """`text` folded one character at a time, and for each folded character its origin in `text`.

    The same as fold(text) but for the rare sequences that compatibility forms compose across
    characters; snippets use it to find and highlight matches in the text as displayed.
    """
    if text.isascii():
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = _fold_char(char)
        out.append(folded)
        origin += [index] * len(folded)
    return "".join(out), origin


@lru_cache(maxsize=65_536)
def readable_math(tex: str) -> str:
    """A formula as text a reader recognises: `\\frac{a}{b}` → `a/b`, `\\beta` → `β`."""
    try:
        text = _LATEX.latex_to_text(tex)
    except Exception:  # pylatexenc is lenient, but content is not ours to trust
        text = re.sub(r"\\[A-Za-z]+|[{}]", " ", tex)
    return _SPACE.sub(" ", text).strip()


def _math(tex: str, display: bool) -> str:
    return f" {html.escape(readable_math(tex), quote=False)} "


def plain_text(fragment: str) -> str:
    """Rendered HTML as one line of plain text: math readable, no tags, no Markdown."""
    if not fragment:
        return ""
    text, _ = map_katex(fragment, _math)
    text = _BLOCK_END.sub(" ", text)
    text = _STRAY_EMPHASIS.sub("", html.unescape(_TAG.sub("", text)))
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class SearchFields:
    """The displayed text of each field group; fold each for matching."""

    title: str
    body: str
    extra: str
    reading: str

    def folded(self) -> dict[str, str]:
        return {name: fold(getattr(self, name)) for name in FIELDS}


def card_fields(
    *, question: str, answer_html: str, followups_html: str, pitfalls_html: str, reading: str
) -> SearchFields:
    """A card's field groups: question, answer, follow-ups and pitfalls, continue-reading titles."""
    extra = " ".join(t for t in (plain_text(followups_html), plain_text(pitfalls_html)) if t)
    return SearchFields(
        title=plain_text(question), body=plain_text(answer_html), extra=extra, reading=reading
    )


def _group_of(heading: str) -> str:
    key = fold(plain_text(heading))
    if any(word in key for word in _READING):
        return "reading"
    if any(word in key for word in _EXTRA):
        return "extra"
    return "body"


def topic_fields(*, title: str, aliases: list[str], summary: str, body_html: str) -> SearchFields:
    """A topic's field groups: title and aliases, body, its pitfall sections, its reading list."""
    groups: dict[str, list[str]] = {"body": [summary], "extra": [], "reading": []}
    pos, group = 0, "body"
    for heading in _H2.finditer(body_html):
        groups[group].append(plain_text(body_html[pos : heading.start()]))
        group = _group_of(heading.group(1))
        groups["body"].append(plain_text(heading.group(1)))
        pos = heading.end()
    groups[group].append(plain_text(body_html[pos:]))
    return SearchFields(
        title=" · ".join([title, *aliases]),
        body=" ".join(t for t in groups["body"] if t),
        extra=" ".join(t for t in groups["extra"] if t),
        reading=" ".join(t for t in groups["reading"] if t),
    )
