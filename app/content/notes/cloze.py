"""Cloze deletions in notes as written: Anki's `{{c1::text}}` / `{{c1::text::hint}}`, and, where a
note opts in (`cloze: highlights` or `cloze: bold`), `==highlights==` or `**bold**`.

Works on the outline's blocks (from the one markdown-it parse): each paragraph, top-level list
item, table or math block holding deletions is one `ClozeBlock`; each deletion number in it is
one card. The block's text keeps every deletion in one normal form, `{{cN::text}}` or
`{{cN::text::hint}}` (highlights and bold are numbered in order, one card each), which the
compile step (app.content.compile.cloze) turns into the card's front, back and Anki forms.
The note's own lines lose the markers (`strip`), so an answer holding a deletion reads as prose.
"""

import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from app.content.errors import ContentError, ContentWarning
from app.content.names import normalise_title
from app.content.notes.outline import Outline

# `{{c12::` opens a deletion; its text runs to the `}}` that balances the braces inside it
# (`{{c1::\frac{a}{b}}}`), on one line. Every pattern here is linear in its text: none of them
# can scan past the marker that would close it, so a hostile line of unclosed markers costs
# one short scan each.
_TOKEN = re.compile(r"\{\{c(\d{1,3})::|[{}\n]|\\.", re.S)
_HIGHLIGHT = re.compile(r"==(?=\S)((?:[^=\n]|=(?!=))+?)(?<=\S)==")
# Bold but not a label ("**Answer:**", "**面试回答。**"), which is the note's structure.
_BOLD = re.compile(r"(?<![*\\])\*\*(?=\S)((?:[^*\n]|\*(?!\*))+?)(?<=\S)\*\*(?!\*)")
_LABEL_END = re.compile(r"[。.:：]$")
_CODE_SPAN = re.compile(r"(`+)[^`\n]+\1")
# Blocks whose deletions make cards; code, HTML and headings never do.
_KINDS = ("paragraph", "bullet_list", "ordered_list", "table", "math_block", "amsmath")
MODES = ("highlights", "bold")
# Cards one block may make: each renders the whole block, so a block of a thousand deletion
# numbers would cost a thousand renders of it. Anki's own notes rarely pass twenty.
MAX_CARDS_PER_BLOCK = 50
ELLIPSIS = "…"


@dataclass(frozen=True)
class Deletion:
    """One deletion in a block's normal-form text: its number and where it sits."""

    number: int
    start: int  # offset of `{{c` in the block's text
    end: int  # offset after the closing `}}`
    answer: str
    hint: str


@dataclass
class ClozeBlock:
    """A block with deletions: its text in normal form and the file line it starts on."""

    text: str
    line: int  # 1-based file line of the block's first line
    numbers: list[int] = field(default_factory=list)  # its deletion numbers, in order


def cloze_mode(meta: dict[str, Any], path: str, errors: list[ContentError]) -> str:
    """The front matter's `cloze:` (highlights | bold), or "" when the note does not opt in."""
    value = meta.get("cloze")
    if value in (None, "", False):
        return ""
    if not isinstance(value, str) or value.strip().lower() not in MODES:
        errors.append(ContentError.of("cloze_mode_unknown", path, 1, value=str(value)))
        return ""
    return value.strip().lower()


def deletions(text: str) -> list[Deletion]:
    """The `{{cN::…}}` deletions of `text`, left to right, outside code spans.

    One pass over the braces: an opener and the braces after it form a stack, and a `}}` that
    meets its opener on top closes it. A deletion inside another is text of the outer one.
    """
    if "{{c" not in text:
        return []
    # Code spans by start, looked up by bisection: many deletions and spans stay linear.
    code = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text)]
    starts = [a for a, _ in code]
    found: list[Deletion] = []
    # (number, or 0 for a plain brace; offset of the opener; offset of its text)
    stack: list[tuple[int, int, int]] = []
    open_deletions = 0
    position = 0
    for match in _TOKEN.finditer(text):
        at = match.start()
        if at < position:  # the second brace of a `}}` already taken
            continue
        token = match.group(0)
        if match.group(1) is not None:
            stack.append((int(match.group(1)), at, match.end()))
            open_deletions += 1
        elif token == "{":
            stack.append((0, at, at))
        elif token == "\n":
            stack.clear()
            open_deletions = 0
        elif token == "}" and stack:
            number, start, inner = stack.pop()
            if not number:
                continue
            open_deletions -= 1
            if not text.startswith("}}", at):
                continue  # a stray brace: the opener was not a deletion after all
            position = at + 2
            span = bisect_right(starts, start) - 1
            if open_deletions == 0 and not (span >= 0 and start < code[span][1]):
                answer, hint = _split_hint(text[inner:at])
                if answer.strip():
                    found.append(Deletion(number, start, at + 2, answer, hint))
    return found


def _split_hint(inner: str) -> tuple[str, str]:
    # The hint follows the last `::` at brace depth 0 (a formula may hold `::` of its own).
    depth, split = 0, -1
    for index, char in enumerate(inner):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0 and inner.startswith("::", index):
            split = index
    if split < 0:
        return inner, ""
    return inner[:split], inner[split + 2 :].strip()


def normal_form(text: str, mode: str) -> str:
    """`text` with the opted-in highlights or bold as numbered deletions after its own."""
    if not mode:
        return text
    taken = {d.number for d in deletions(text)}
    counter = iter(n for n in range(1, 1000) if n not in taken)
    pattern = _HIGHLIGHT if mode == "highlights" else _BOLD

    def numbered(match: re.Match[str]) -> str:
        inner = match.group(1)
        if mode == "bold" and _LABEL_END.search(inner):
            return match.group(0)
        return f"{{{{c{next(counter)}::{inner}}}}}"

    return pattern.sub(numbered, text)


def strip(text: str, mode: str = "") -> str:
    """`text` with every deletion's marker removed: what the note says, as prose."""
    text = normal_form(text, mode)
    out, position = [], 0
    for item in deletions(text):
        out += [text[position : item.start], item.answer]
        position = item.end
    out.append(text[position:])
    return "".join(out)


def take_clozes(
    outline: Outline, first: int, mode: str, path: str, errors: list[ContentError]
) -> tuple[list[ClozeBlock], list[str] | None]:
    """The blocks of `outline` with deletions, and the note's lines without markers.

    The lines are None when the note has no deletions (nothing to change). Stripping keeps
    every line where it was, so the outline's line ranges still hold.
    """
    lines = outline.lines
    if not mode and "{{c" not in "\n".join(lines):
        return [], None
    blocks: list[ClozeBlock] = []
    for block in outline.blocks:
        if block.kind not in _KINDS:
            continue
        # A list item is a block of its own, read without its marker and indent.
        spans = (
            [(item.start, item.end, item.indent) for item in block.items]
            if block.items
            else [(block.start, block.end, 0)]
        )
        for start, end, indent in spans:
            held = [
                line[indent:] if not line[:indent].strip() else line for line in lines[start:end]
            ]
            if indent:
                held[0] = lines[start][indent:]
            text = normal_form("\n".join(held).rstrip("\n"), mode)
            numbers = list(dict.fromkeys(d.number for d in deletions(text)))
            if len(numbers) > MAX_CARDS_PER_BLOCK:
                errors.append(
                    ContentWarning.of(
                        "cloze_too_many", path, first + start, max=MAX_CARDS_PER_BLOCK
                    )
                )
                numbers = numbers[:MAX_CARDS_PER_BLOCK]
            if numbers:
                blocks.append(ClozeBlock(text, first + start, numbers))
    if not blocks:
        return [], None
    return blocks, [strip(line, mode) for line in lines]


def own(text: str, number: int) -> list[Deletion]:
    """The deletions of card `number` in a block's normal-form text."""
    return [d for d in deletions(text) if d.number == number]


def cloze_question(text: str, number: int) -> str:
    """The card's front as plain Markdown: its deletions as `[…]`/`[hint]`, the others filled."""
    out, position = [], 0
    for item in deletions(text):
        out.append(text[position : item.start])
        out.append(f"[{item.hint or ELLIPSIS}]" if item.number == number else item.answer)
        position = item.end
    out.append(text[position:])
    return " ".join("".join(out).split())


def cloze_id(slug: str, text: str, number: int) -> str:
    """A cloze card's id: the note's slug and the text its deletions hide.

    Not the number nor the text around it: renumbering deletions or editing the rest of the
    block keeps the card (and the learner's schedule); changing what is deleted makes a new one.
    """
    hidden = "\x1f".join(normalise_title(d.answer) for d in own(text, number))
    return "c-" + hashlib.sha1(f"{slug}\x1e{hidden}".encode()).hexdigest()[:12]
