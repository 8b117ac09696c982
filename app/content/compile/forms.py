"""Forms of rendered content read from its markdown-it tokens: plain text, key points, sections.

app.content.compile.render walks the tokens first, leaving each formula's readable text and HTML in
its meta; these functions only read the tokens, so nothing ever parses HTML we rendered.
"""

import html
import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from app.content.compile.searchtext import section_group
from app.content.notes.markdown import MATH_TYPES, wikilink_text

_SPACE = re.compile(r"\s+")
# Emphasis markers the Markdown renderer left literal (e.g. `**…**` against CJK punctuation).
_STRAY_EMPHASIS = re.compile(r"\*\*+")
_RAW_TAG = re.compile(r"<[^<>]+>")
# The end of a sentence: Chinese full stops, or an English one followed by a space.
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)")
_ENDS_SENTENCE = re.compile(r"[。！？.!?]\s*$")
_LISTS = ("bullet_list_open", "ordered_list_open")
# A paragraph that only says this introduces the author's own list of key points.
_MARKER = re.compile(r"^(?:要点|关键点|key points?)\s*[:：]?$", re.IGNORECASE)
# Shorter pieces (a stray "例如：") join the point before them.
MIN_POINT_CHARS = 6


def _inline_text(children: list[Token]) -> str:
    out: list[str] = []
    for token in children:
        if token.type in ("text", "text_special", "code_inline"):
            out.append(token.content)
        elif token.type in MATH_TYPES:
            out.append(f" {token.meta.get('text', '')} ")
        elif token.type in ("softbreak", "hardbreak", "html_inline"):
            out.append(" ")
        elif token.type == "wikilink" and "html" not in token.meta:
            out.append(wikilink_text(token))
    return "".join(out)


def _block_text(token: Token) -> str:
    if token.type == "inline":
        return _inline_text(token.children or [])
    if token.type in MATH_TYPES:
        return str(token.meta.get("text", ""))
    if token.type in ("fence", "code_block"):
        return token.content
    if token.type == "html_block":
        return html.unescape(_RAW_TAG.sub(" ", token.content))  # the author's, made safe
    return ""


def _clean(parts: list[str]) -> str:
    return _SPACE.sub(" ", _STRAY_EMPHASIS.sub("", " ".join(parts))).strip()


def plain_text(tokens: list[Token]) -> str:
    """The text a reader sees, on one line: formulas readable, no markup."""
    return _clean([_block_text(token) for token in tokens])


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
    return {name: _clean(parts) for name, parts in groups.items()}


def _top_level(tokens: list[Token]) -> Iterator[list[Token]]:
    """The top-level blocks of `tokens`, each with every token inside it."""
    start = 0
    while start < len(tokens):
        end = start
        if tokens[start].nesting == 1:
            end += 1
            while not (tokens[end].level == tokens[start].level and tokens[end].nesting == -1):
                end += 1
        yield tokens[start : end + 1]
        start = end + 1


def _items(block: list[Token], render: RendererHTML, options: Any) -> list[tuple[str, int]]:
    """The items of a list block, each rendered on its own, with the length of its text."""
    level = block[0].level + 1
    items, start = [], 0
    for index, token in enumerate(block):
        if token.level != level:
            continue
        if token.type == "list_item_open":
            start = index + 1
        elif token.type == "list_item_close":
            inner = block[start:index]
            items.append((render.render(inner, options, {}).strip(), len(plain_text(inner))))
    return items


def _sentences(inline: Token) -> list[list[Token]]:
    """A paragraph's inline tokens cut into sentences at its own text, never inside markup."""
    sentences: list[list[Token]] = [[]]
    depth = 0
    children = inline.children or []
    # The last character the sentence so far shows, kept as it grows: reading the whole
    # sentence again at every token would take quadratic time in a long paragraph.
    last = ""
    for token in children:
        if depth or token.type != "text":
            ends = _ENDS_SENTENCE.search(last)
            if not depth and token.type in ("softbreak", "hardbreak") and ends:
                sentences.append([])  # a line break after a full stop ends the sentence
                last = ""
                continue
            depth += token.nesting
            sentences[-1].append(token)
            last = _inline_text([token]).rstrip()[-1:] or last
            continue
        pieces = _SENTENCE_END.split(token.content)
        sentences[-1].append(_text(pieces[0]))
        sentences.extend([_text(piece)] for piece in pieces[1:])
        if len(pieces) > 1:
            last = ""
        last = pieces[-1].rstrip()[-1:] or last
    # An image on its own is a point too: it is what the author shows.
    return [s for s in sentences if _inline_text(s).strip() or any(_shown(t) for t in s)]


def _shown(token: Token) -> bool:
    return token.type not in ("text", "softbreak", "hardbreak")


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def key_points(tokens: list[Token], render: RendererHTML, options: Any) -> list[str]:
    """An answer as a checklist of key points, as HTML fragments: its list items, else sentences.

    An author marks the key points outright with a paragraph that says only `要点：` (or
    `关键点：`, `Key points:`) followed by a list: then that list's items are the checklist.
    Code, tables and display formulas belong to the point before them.
    """
    blocks = list(_top_level(tokens))
    for before, after in pairwise(blocks):
        if (
            before[0].type == "paragraph_open"
            and after[0].type in _LISTS
            and _MARKER.match(plain_text(before))
        ):
            return [item for item, _ in _items(after, render, options)]
    # Each point as its parts, joined at the end: adding to a growing string is quadratic.
    points: list[list[str]] = []
    for block in blocks:
        if block[0].type in _LISTS:
            found = _items(block, render, options)
        elif block[0].type == "paragraph_open":
            found = [
                (
                    render.renderInline(sentence, options, {}).strip(),
                    len(_clean([_inline_text(sentence)])),
                )
                for sentence in _sentences(block[1])
            ]
        else:  # code, tables, display formulas, headings: part of the point they illustrate
            markup = render.render(block, options, {}).strip()
            if points:
                points[-1].append(markup)
            else:
                points.append([markup])
            continue
        for point, length in found:
            if points and length < MIN_POINT_CHARS:
                points[-1] += [" ", point]
            else:
                points.append([point])
    return ["".join(parts) for parts in points]
