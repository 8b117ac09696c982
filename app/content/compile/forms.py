"""Forms of rendered content read from its markdown-it tokens: plain text and text by section.

app.content.compile.render walks the tokens first, leaving each formula's readable text and HTML in
its meta; these functions only read the tokens, so nothing ever parses HTML we rendered.
"""

import html
import re

from markdown_it.token import Token

from app.content.compile.images import image_alt
from app.content.compile.searchtext import section_group
from app.content.notes.markdown import MATH_TYPES, wikilink_text

# Emphasis markers the Markdown renderer left literal (e.g. `**…**` against CJK punctuation).
_STRAY_EMPHASIS = re.compile(r"\*\*+")
_RAW_TAG = re.compile(r"<[^<>]+>")
# A formula is set apart by spaces as it is read (`where$x$is`); none are left before the
# punctuation that ends a phrase, nor beside full-width punctuation (`写？ dγ` → `写？dγ`).
_FULL_WIDTH = "，。？！；：、（）「」『』《》"
_LOOSE = re.compile(rf" (?=[?!,.;:)](?: |$))|(?<=[{_FULL_WIDTH}]) | (?=[{_FULL_WIDTH}])")


def inline_text(children: list[Token]) -> str:
    """What inline tokens show as text, formulas readable."""
    out: list[str] = []
    for token in children:
        if token.type in ("text", "text_special", "code_inline"):
            out.append(token.content)
        elif token.type in MATH_TYPES:
            out.append(f" {token.meta.get('text', '')} ")
        elif token.type in ("softbreak", "hardbreak", "html_inline"):
            out.append(" ")
        elif token.type == "image":
            # An answer that is a figure is not empty: its alt text is what it says in words.
            out.append(f" {image_alt(token)} ")
        elif token.type == "wikilink" and "html" in token.meta:
            # Pre-rendered: an image that cannot be shown, which keeps its alt text aside.
            out.append(f" {token.meta.get('alt', '')} ")
        elif token.type == "wikilink":
            out.append(wikilink_text(token))
    return "".join(out)


def _block_text(token: Token) -> str:
    if token.type == "inline":
        return inline_text(token.children or [])
    if token.type in MATH_TYPES:
        return str(token.meta.get("text", ""))
    if token.type in ("fence", "code_block"):
        return token.content
    if token.type == "html_block":
        return html.unescape(_RAW_TAG.sub(" ", token.content))  # the author's, made safe
    return ""


def clean(parts: list[str]) -> str:
    """Pieces of text on one line, spaces collapsed, stray emphasis markers dropped."""
    text = " ".join(filter(None, parts))  # most tokens have no text of their own
    if "**" in text:
        text = _STRAY_EMPHASIS.sub("", text)
    text = " ".join(text.split())  # str.split's whitespace is the regex's \s
    return _LOOSE.sub("", text)


def plain_text(tokens: list[Token]) -> str:
    """The text a reader sees, on one line: formulas readable, no markup."""
    return clean([_block_text(token) for token in tokens])


def section_groups(tokens: list[Token]) -> dict[str, str]:
    """A note's text by group (body, extra, reading), as its level-2 headings divide it."""
    groups: dict[str, list[str]] = {"body": [], "extra": [], "reading": []}
    group = "body"
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else None
        if token.type == "heading_open" and token.tag == "h2":
            heading = _block_text(tokens[index + 1])
            group = section_group(heading)
            groups["body"].append(heading)  # a heading is the topic's own words
        elif not (before and before.type == "heading_open" and before.tag == "h2"):
            groups[group].append(_block_text(token))
    return {name: clean(parts) for name, parts in groups.items()}
