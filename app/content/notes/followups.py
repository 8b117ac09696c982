"""Split a card's follow-ups block into follow-up questions and the prose around them.

A top-level list item of the block whose text starts with `追问：` (or `Q:`) is a question;
its answer starts at a continuation line of the item that begins with `答：` (or `A:`) and
runs to the end of the item. Everything else in the block stays prose. List items are found
with the same Markdown parser that renders the block, so an item ends exactly where its
rendering does (lazy continuation lines, nested lists and code included).
"""

import re
from dataclasses import dataclass

from app.content.errors import ContentError
from app.content.notes.markdown import parser
from app.content.notes.outline import explicit_id

_CANDIDATE = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(?:追问|Q)[ \t]*[:：]", re.MULTILINE)
_ITEM_MARKER = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ ]{1,4}|\t|$)")
_ASKS = re.compile(r"^(?:追问|Q)[ \t]*[:：][ \t]*(.*)$")
_ANSWERS = re.compile(r"^(?:答|A)[ \t]*[:：][ \t]*(.*)$")
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


def derived_followup_id(card_id: str, position: int) -> str:
    return f"{card_id}.f{position + 1}"


def split_followups(
    text: str, line: int, card_id: str, path: str, errors: list[ContentError]
) -> tuple[str, int, list[ParsedFollowup]]:
    """Return (prose text, its first line, questions) of the block `text` starting at `line`."""
    if not _CANDIDATE.search(text):
        return text, line, []
    lines = text.split("\n")
    items: list[tuple[int, int]] = []
    for token in parser().parse(text):
        if token.type == "list_item_open" and token.level == 1 and token.map:
            start, end = token.map
            if (match := _ITEM_MARKER.match(lines[start])) and _ASKS.match(
                lines[start][match.end() :]
            ):
                items.append((start, end))
    questions: list[ParsedFollowup] = []
    for start, end in items:
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        followup = _followup(lines, start, end, line, card_id, len(questions), path, errors)
        if followup is not None:
            questions.append(followup)
        lines[start:end] = [""] * (end - start)  # keep later prose on its file lines
    first = next((index for index, text_line in enumerate(lines) if text_line.strip()), None)
    if first is None:
        return "", 0, questions
    prose = "\n".join(lines[first:]).rstrip()
    return prose, line + first, questions


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
