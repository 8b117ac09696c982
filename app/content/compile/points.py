"""An answer's key points as places in the answer's HTML, found while rendering it once.

A mock interview shows a model answer as a checklist of key points: its list items, else its
sentences, or the list an author marked with `要点：` (`关键点：`, `Key points:`); code, tables
and display formulas belong to the point before them. Each point is a few pieces of the answer's
own HTML, so a point is stored as those pieces' places, not as a second copy of the HTML (the
largest column of the bank, with every formula's KaTeX markup, when it was one).
"""

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from app.content.compile.forms import clean, inline_text, plain_text

# A piece of the answer's HTML, [start, end), and what joins it to the piece before in its point.
Piece = tuple[int, int, str]
Point = list[Piece]
_LISTS = ("bullet_list_open", "ordered_list_open")
# The end of a sentence: Chinese full stops, or an English one followed by a space.
SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)")
ENDS_SENTENCE = re.compile(r"[。！？.!?]\s*$")
# A paragraph that only says this introduces the author's own list of key points.
MARKER = re.compile(r"^(?:要点|关键点|key points?)\s*[:：]?$", re.IGNORECASE)
# Shorter pieces (a stray "例如：") join the point before them.
MIN_POINT_CHARS = 6


@dataclass
class Marked:
    """Rendered HTML with where each token's markup starts in it (and each inline child's)."""

    html: str
    starts: list[int]  # per token, then the end
    inline: dict[int, list[int]]  # inline token's index: per child, then the end


def render_marked(
    renderer: RendererHTML, tokens: Sequence[Token], options: Any, env: dict[str, Any]
) -> Marked:
    """What `renderer.render` makes of `tokens`, token by token, noting where each one starts."""
    out: list[str] = []
    starts: list[int] = []
    inline: dict[int, list[int]] = {}
    at = 0

    def put(markup: str) -> None:
        nonlocal at
        out.append(markup)
        at += len(markup)

    for index, token in enumerate(tokens):
        starts.append(at)
        if token.type == "inline":
            children = token.children or []
            places = inline[index] = []
            for child in range(len(children)):
                places.append(at)
                put(_one(renderer, children, child, options, env))
            places.append(at)
        else:
            put(_one(renderer, tokens, index, options, env))
    starts.append(at)
    return Marked("".join(out), starts, inline)


def _one(
    renderer: RendererHTML, tokens: Sequence[Token], index: int, options: Any, env: dict[str, Any]
) -> str:
    # As RendererHTML.render and renderInline choose a token's rule.
    rule: Callable[..., str] | None = renderer.rules.get(tokens[index].type)
    if rule is not None:
        return rule(tokens, index, options, env)
    return renderer.renderToken(tokens, index, options, env)


def point_html(html: str, point: Point | str) -> str:
    """A point's HTML, from the answer's HTML it was found in (an older bank stored the HTML)."""
    if isinstance(point, str):
        return point
    return "".join(joint + html[start:end] for start, end, joint in point)


def key_points(tokens: list[Token], marked: Marked) -> list[Point]:
    """The answer's key points: its list items, else its sentences, or the list marked `要点：`."""
    blocks = list(_top_level(tokens))
    for (start, end), (list_start, list_end) in pairwise(blocks):
        if (
            tokens[start].type == "paragraph_open"
            and tokens[list_start].type in _LISTS
            and MARKER.match(plain_text(tokens[start:end]))
        ):
            return [[piece] for piece, _ in _items(tokens, list_start, list_end, marked)]
    points: list[Point] = []
    for start, end in blocks:
        if tokens[start].type in _LISTS:
            found = _items(tokens, start, end, marked)
        elif tokens[start].type == "paragraph_open":
            found = _sentences(tokens, start + 1, marked)
        else:  # code, tables, display formulas, headings: part of the point they illustrate
            piece = _strip(marked.html, marked.starts[start], marked.starts[end], "")
            if points:
                points[-1].append(piece)
            else:
                points.append([piece])
            continue
        for (begin, finish, _), length in found:
            if points and length < MIN_POINT_CHARS:
                points[-1].append((begin, finish, " "))
            else:
                points.append([(begin, finish, "")])
    return points


def _strip(html: str, start: int, end: int, joint: str) -> Piece:
    while start < end and html[start].isspace():
        start += 1
    while end > start and html[end - 1].isspace():
        end -= 1
    return start, end, joint


def _top_level(tokens: list[Token]) -> Iterator[tuple[int, int]]:
    """The top-level blocks of `tokens`: where each starts and ends (past its last token)."""
    start = 0
    while start < len(tokens):
        end = start
        if tokens[start].nesting == 1:
            end += 1
            while not (tokens[end].level == tokens[start].level and tokens[end].nesting == -1):
                end += 1
        yield start, end + 1
        start = end + 1


def _items(tokens: list[Token], start: int, end: int, marked: Marked) -> list[tuple[Piece, int]]:
    """The items of the list block tokens[start:end], with the length of each one's text."""
    level = tokens[start].level + 1
    items, first = [], start
    for index in range(start, end):
        token = tokens[index]
        if token.level != level:
            continue
        if token.type == "list_item_open":
            first = index + 1
        elif token.type == "list_item_close":
            piece = _strip(marked.html, marked.starts[first], marked.starts[index], "")
            items.append((piece, len(plain_text(tokens[first:index]))))
    return items


@dataclass(slots=True)
class _Sentence:
    start: int
    end: int
    parts: list[str] = field(default_factory=list)  # each token's text, read once
    shown: bool = False  # whether it shows markup that is not text (an image)


def _sentences(tokens: list[Token], index: int, marked: Marked) -> list[tuple[Piece, int]]:
    """A paragraph's sentences, cut at its own text, never inside markup, with their lengths."""
    children = tokens[index].children or []
    places = marked.inline[index]
    sentences = [_Sentence(places[0], places[0])]
    depth = 0
    # The last character the sentence so far shows, kept as it grows: reading the whole
    # sentence again at every token would take quadratic time in a long paragraph.
    last = ""
    for child, token in enumerate(children):
        if depth or token.type != "text":
            if (
                not depth
                and token.type in ("softbreak", "hardbreak")
                and ENDS_SENTENCE.search(last)
            ):
                # A line break after a full stop ends the sentence; the break is in neither.
                sentences.append(_Sentence(places[child + 1], places[child + 1]))
                last = ""
                continue
            depth += token.nesting
            text = inline_text([token])
            sentences[-1].parts.append(text)
            sentences[-1].shown = sentences[-1].shown or _shown(token)
            sentences[-1].end = places[child + 1]
            last = text.rstrip()[-1:] or last
            continue
        at = places[child]
        for number, piece in enumerate(SENTENCE_END.split(token.content)):
            if number:
                sentences.append(_Sentence(at, at))
                last = ""
            at += len(escapeHtml(piece))  # the text rule escapes character by character
            sentences[-1].parts.append(piece)
            sentences[-1].end = at
            last = piece.rstrip()[-1:] or last
    out: list[tuple[Piece, int]] = []
    for sentence in sentences:
        text = "".join(sentence.parts)
        # An image on its own is a point too: it is what the author shows.
        if text.strip() or sentence.shown:
            out.append((_strip(marked.html, sentence.start, sentence.end, ""), len(clean([text]))))
    return out


def _shown(token: Token) -> bool:
    return token.type not in ("text", "softbreak", "hardbreak")
