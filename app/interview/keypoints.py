"""A model answer as a checklist of key points: its list items, else its sentences.

An author marks the key points outright with a paragraph that says only `要点：` (or `关键点：`,
`Key points:`) followed by a list: then that list's items are the checklist, and the rest of
the answer is explanation around them.

Works on the answer's HTML as rendered at import (well-formed, no raw HTML from authors), so a
point is itself balanced HTML: sentences are cut only in text directly inside a paragraph,
never inside a formula, code or emphasis.
"""

import hashlib
import re
from itertools import pairwise

_TOKEN = re.compile(r"(<[^>]+>)")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>")
_VOID = {"br", "hr", "img", "input", "col", "wbr", "source", "area", "embed", "link", "meta"}
# The end of a sentence: Chinese full stops, or an English one followed by a space.
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)")
_LISTS = {"ul", "ol"}
_MARKER = re.compile(r"^(?:要点|关键点|key points?)\s*[:：]?$", re.IGNORECASE)
# Shorter pieces (a stray "例如：") join the point before them.
MIN_POINT_CHARS = 6


def _text_length(html: str) -> int:
    return len(re.sub(r"<[^>]+>", "", html).strip())


def _tag(token: str) -> tuple[str, bool, bool] | None:
    """(name, closing, self-closing) for a tag token, None for text."""
    found = _TAG.fullmatch(token)
    if found is None:
        return None
    name = found.group(2).lower()
    return name, bool(found.group(1)), bool(found.group(3)) or name in _VOID


def _blocks(html: str) -> list[tuple[str, list[str], str]]:
    """The top-level elements of `html` as (tag name, tokens inside it, its opening tag)."""
    blocks: list[tuple[str, list[str], str]] = []
    depth = 0
    for token in _TOKEN.split(html):
        if not token:
            continue
        tag = _tag(token)
        if depth == 0:
            if tag is None:
                if token.strip():
                    blocks.append(("text", [token], ""))
                continue
            name, closing, void = tag
            if not closing:
                blocks.append((name, [], token))
                depth = 0 if void else 1
            continue
        if tag is not None:
            _, closing, void = tag
            if closing:
                depth -= 1
                if depth == 0:
                    continue
            elif not void:
                depth += 1
        blocks[-1][1].append(token)
    return blocks


def _items(tokens: list[str]) -> list[str]:
    """The `<li>` elements of a list's tokens, each as its inner HTML."""
    items: list[list[str]] = []
    depth = 0
    for token in tokens:
        tag = _tag(token)
        if tag is not None:
            name, closing, void = tag
            if not closing and not void:
                depth += 1
                if depth == 1 and name == "li":
                    items.append([])
                    continue
            elif closing:
                depth -= 1
                if depth == 0:
                    continue
        if items and depth >= 1:
            items[-1].append(token)
    return ["".join(item).strip() for item in items]


def _sentences(tokens: list[str]) -> list[str]:
    """A paragraph's inner tokens cut into sentences at its own text, never inside elements."""
    sentences: list[str] = [""]
    depth = 0
    for token in tokens:
        tag = _tag(token)
        if tag is not None:
            _, closing, void = tag
            if closing:
                depth -= 1
            elif not void:
                depth += 1
            sentences[-1] += token
            continue
        if depth:
            sentences[-1] += token
            continue
        pieces = _SENTENCE_END.split(token)
        sentences[-1] += pieces[0]
        sentences.extend(pieces[1:])
    return [s.strip() for s in sentences if s.strip()]


def _marked(blocks: list[tuple[str, list[str], str]]) -> list[str] | None:
    """The items of the list after a `要点：` paragraph, if the author wrote one."""
    for (name, tokens, _), (after, items, _) in pairwise(blocks):
        text = re.sub(r"<[^>]+>", "", "".join(tokens)).strip()
        if name == "p" and after in _LISTS and _MARKER.match(text):
            return _items(items)
    return None


def key_points(answer_html: str) -> list[str]:
    """The answer's key points, as HTML fragments, in order."""
    blocks = _blocks(answer_html)
    marked = _marked(blocks)
    if marked:
        return marked
    points: list[str] = []
    for name, tokens, opening in blocks:
        if name in _LISTS:
            found = _items(tokens)
        elif name in ("p", "text"):
            found = _sentences(tokens)
        else:  # code, tables, display formulas: part of the point they illustrate
            inner = "".join(tokens)
            # The opening tag as it was: a display formula's class is what lets it scroll.
            block = f"{opening}{inner}</{name}>" if name != "text" else inner
            if points:
                points[-1] += block
            else:
                points.append(block)
            continue
        for point in found:
            if points and _text_length(point) < MIN_POINT_CHARS:
                points[-1] += " " + point
            else:
                points.append(point)
    return points


def points_key(points: list[str]) -> str:
    """A short fingerprint of a checklist, to notice when the content changed meanwhile."""
    return hashlib.sha256("\x1f".join(points).encode()).hexdigest()[:16]


def suggested_rating(said: int, total: int, *, overtime: bool) -> int:
    """The rating that the share of key points said suggests: 1 Again … 4 Easy."""
    coverage = said / total if total else 1.0
    if coverage < 0.4:
        return 1
    if coverage < 0.7:
        return 2
    if coverage < 0.95 or overtime:
        return 3
    return 4
