"""Split a card's follow-ups block into follow-up questions and the prose around them.

A top-level list item of the block whose text starts with `追问：` (or `Q:`) is a question;
its answer starts at a continuation line of the item that begins with `答：` (or `A:`) and
runs to the end of the item. Everything else in the block stays prose. List items are found
in the note's parse (the block's text is parsed alone only when it has no place there), so an
item ends exactly where its rendering does (lazy continuation lines, nested lists and code
included); a question and answer on the item's first two lines also keep their place in it,
and compile renders them from those tokens.
"""

import re
from dataclasses import dataclass

from markdown_it.token import Token

from app.content.errors import ContentError
from app.content.notes.cuts import balanced
from app.content.notes.markdown import parser
from app.content.notes.outline import explicit_id
from app.content.notes.paragraphs import Span
from app.content.notes.spans import ItemCut

_CANDIDATE = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(?:追问|Q)[ \t]*[:：]", re.MULTILINE)
_ITEM_MARKER = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ ]{1,4}|\t|$)")
_ASKS = re.compile(r"^(?:追问|Q)[ \t]*[:：][ \t]*(.*)$")
_ANSWERS = re.compile(r"^(?:答|A)[ \t]*[:：][ \t]*(.*)$")
_ASK_LABEL = re.compile(r"(?:追问|Q)[ \t]*[:：][ \t]*")
_ANSWER_LABEL = re.compile(r"(?:答|A)[ \t]*[:：][ \t]*")
_VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass
class ParsedFollowup:
    id: str
    explicit_id: bool
    position: int  # 0-based among the card's follow-up questions
    line: int  # of the question
    question: str  # Markdown, rendered inline
    answer: str  # Markdown
    answer_line: int
    cut: ItemCut | None = None  # where it sits in the note's parse, if it can be cut from it


@dataclass(frozen=True)
class InNote:
    """A block's place in the note's parse: its token ranges, and its first line there."""

    stream: list[Token]
    spans: tuple[Span, ...]
    line: int  # the block's first line as the stream's maps count lines


def derived_followup_id(card_id: str, position: int) -> str:
    return f"{card_id}.f{position + 1}"


def split_followups(
    text: str,
    line: int,
    card_id: str,
    path: str,
    errors: list[ContentError],
    in_note: InNote | None = None,
) -> tuple[str, int, list[ParsedFollowup]]:
    """Return (prose text, its first line, questions) of the block `text` starting at `line`.

    `in_note`: where the block sits in the note's parse, when it is whole blocks of it.
    """
    if not _CANDIDATE.search(text):
        return text, line, []
    lines = text.split("\n")
    items: list[tuple[int, int, int | None]] = []  # lines, and the item's token in the note
    for index, start, end in _list_items(text, in_note):
        if (match := _ITEM_MARKER.match(lines[start])) and _ASKS.match(lines[start][match.end() :]):
            items.append((start, end, index))
    questions: list[ParsedFollowup] = []
    for start, end, index in items:
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        followup = _followup(lines, start, end, line, card_id, len(questions), path, errors)
        if followup is not None:
            if in_note is not None and index is not None:
                followup.cut = _cut(in_note.stream, index, followup)
            questions.append(followup)
        lines[start:end] = [""] * (end - start)  # keep later prose on its file lines
    first = next((index for index, text_line in enumerate(lines) if text_line.strip()), None)
    if first is None:
        return "", 0, questions
    prose = "\n".join(lines[first:]).rstrip()
    return prose, line + first, questions


def _list_items(text: str, in_note: InNote | None) -> list[tuple[int | None, int, int]]:
    """The block's top-level list items: the index of each in the note's stream when the block
    has its place there, and the lines it spans, counting the block's lines."""
    if in_note is None:
        return [
            (None, token.map[0], token.map[1])
            for token in parser().parse(text)
            if token.type == "list_item_open" and token.level == 1 and token.map
        ]
    found: list[tuple[int | None, int, int]] = []
    count = text.count("\n") + 1
    for span in in_note.spans:
        opening = in_note.stream[span.start]
        if span.skip or span.chars or opening.type not in ("bullet_list_open", "ordered_list_open"):
            continue
        for index in range(span.start + 1, span.end):
            token = in_note.stream[index]
            if token.type == "list_item_open" and token.level == opening.level + 1 and token.map:
                # The note's item may end past the block, on the blank lines after it.
                start, end = (at - in_note.line for at in token.map)
                found.append((index, start, min(end, count)))
    return found


def _cut(stream: list[Token], index: int, followup: ParsedFollowup) -> ItemCut | None:
    """Where `followup`, the list item at token `index`, has its question and answer: when
    they are its first paragraph's first line and the rest (`- 追问：… ⏎ 答：…`)."""
    if stream[index + 1].type != "paragraph_open":
        return None
    children = stream[index + 2].children or []
    labels = _labels(children)
    tail = _id_tail(stream[index + 2].content, followup.question)
    if labels is None or tail is None:
        return None
    split, ask, answer = labels
    last = children[split - 1]
    if tail and (last.type != "text" or not last.content.endswith(tail)):
        return None
    if split == 1 and len(tail) + ask > len(last.content):
        return None
    end = index + 1
    while stream[end].type != "list_item_close" or stream[end].level != stream[index].level:
        end += 1
    return ItemCut(index + 2, split, ask, len(tail), answer, end)


def _labels(children: list[Token]) -> tuple[int, int, int] | None:
    """(the line break after the question, the characters of its label, of the answer's)."""
    split = next((i for i, child in enumerate(children) if child.type == "softbreak"), None)
    if not split or split + 1 >= len(children):
        return None
    if not (balanced(children[:split]) and balanced(children[split + 1 :])):
        return None  # emphasis that runs across the line break: the lines are not apart
    head, after = children[0], children[split + 1]
    asks = _ASK_LABEL.match(head.content) if head.type == "text" else None
    answers = _ANSWER_LABEL.match(after.content) if after.type == "text" else None
    if asks is None or answers is None:
        return None
    return split, asks.end(), answers.end()


def _id_tail(source: str, question: str) -> str | None:
    """What follows `question` on the first line of the item's `source` (an `{#id}` and the
    spaces before it), or None when that line does not ask `question`."""
    written = source.split("\n", 1)[0].strip(" \t")
    labelled = _ASK_LABEL.match(written)
    if labelled is None:
        return None
    _, asked = explicit_id(written[labelled.end() :])
    if asked.strip() != question:
        return None
    return written[labelled.end() + len(asked.rstrip(" \t")) :]


def _followup(
    lines: list[str],
    start: int,
    end: int,
    line: int,
    card_id: str,
    position: int,
    path: str,
    errors: list[ContentError],
) -> ParsedFollowup | None:
    marker = _ITEM_MARKER.match(lines[start])
    assert marker is not None
    indent = len(marker.group(0).expandtabs(4))
    asks = _ASKS.match(lines[start][marker.end() :])
    assert asks is not None
    body = [asks.group(1)] + [_dedent(text, indent) for text in lines[start + 1 : end]]
    answer_at = next(
        (offset for offset, text in enumerate(body) if offset and _ANSWERS.match(text)), None
    )
    question_lines = body[:answer_at] if answer_at is not None else body
    question = " ".join(part.strip() for part in question_lines if part.strip())
    explicit, question = explicit_id(question)
    question = question.strip()
    where = line + start
    if not question:
        errors.append(ContentError.of("followup_no_question", path, where))
        return None
    if explicit is not None and not _VALID_ID.match(explicit):
        errors.append(ContentError.of("followup_id_invalid", path, where, id=explicit))
        return None
    answer_lines: list[str] = []
    answer_line = where
    if answer_at is not None:
        answers = _ANSWERS.match(body[answer_at])
        assert answers is not None
        answer_lines = [answers.group(1), *body[answer_at + 1 :]]
        blank = next((i for i, t in enumerate(answer_lines) if t.strip()), len(answer_lines))
        answer_lines = answer_lines[blank:]
        answer_line = where + answer_at + blank
    answer = "\n".join(answer_lines).rstrip()
    if not answer:
        errors.append(ContentError.of("followup_no_answer", path, where, question=question))
        return None
    return ParsedFollowup(
        id=explicit or derived_followup_id(card_id, position),
        explicit_id=explicit is not None,
        position=position,
        line=where,
        question=question,
        answer=answer,
        answer_line=answer_line,
    )


def _dedent(text: str, indent: int) -> str:
    """Remove the item's content indent; a lazy continuation line has less, all of it goes."""
    expanded = text.expandtabs(4)
    if expanded[:indent].strip():
        return expanded.lstrip()
    return expanded[indent:]
