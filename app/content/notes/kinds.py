"""Which headings ask: each heading's kind (card, section, not a question) from what it says
and what it holds, numbered headings judged among their siblings."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers.contents import is_contents
from app.content.notes.wording import (
    DOTTED,
    HOUSE_NUMBER,
    TAG,
    Kind,
    asks,
    generic_question,
    numbering,
    question_text,
    unwrap,
)


@dataclass
class _Facts:
    """What each heading says by itself, by index, and what is below it."""

    explicit: list[bool]  # asks by its mark (`?`, `Q:`, #card)
    asked: list[bool]  # asks by its mark or its words
    numbered: list[bool]
    holds_question: list[bool]
    holds_numbered: list[bool]
    tagged: bool  # the note tags its cards (#card): no guessing there


def _facts(headings: list[Heading]) -> _Facts:
    # A heading asks by its mark (`?`, `Q:`, #card) or by its words ("简述…", "Explain…"),
    # as a whole note of `# 解释Gini系数` headings does; numbered ones are judged apart.
    explicit = [question_text(h.text)[1] for h in headings]
    tagged = any(TAG.search(h.text) for h in headings)
    numbered = [numbering(h.text) is not None for h in headings]
    asked = [
        explicit[h.index]
        or (not tagged and not numbered[h.index] and asks(h.text) and not generic_question(h.text))
        for h in headings
    ]
    holds_question = [False] * len(headings)
    holds_numbered = [False] * len(headings)
    for heading in reversed(headings):
        for child in heading.children:
            holds_question[heading.index] |= asked[child.index] or holds_question[child.index]
            holds_numbered[heading.index] |= numbered[child.index] or holds_numbered[child.index]
    return _Facts(explicit, asked, numbered, holds_question, holds_numbered, tagged)


def classify(
    headings: list[Heading], outline: Outline, title: Heading | None, house: bool
) -> list[Kind]:
    """Each heading's kind: card, section or not-a-question (inside-answer is decided later)."""
    facts = _facts(headings)
    kinds = [_own_kind(h, facts, outline, title) for h in headings]
    flat = house and _flat_run(headings, facts)
    leaves = [h for h in headings if facts.numbered[h.index] and not h.children]
    book = 3 * sum(asks(question_text(h.text)[0]) for h in leaves) >= max(len(leaves), 1)
    for group in sibling_groups(headings):
        _numbered_group(group, facts, kinds, outline, flat=flat, book=book)
    _standalone(headings, facts, kinds)
    for heading in headings:
        if kinds[heading.index] == Kind.CARD and not facts.explicit[heading.index]:
            parent = heading.parent
            while parent is not None and kinds[parent.index] != Kind.CARD:
                parent = parent.parent
            if parent is not None:  # "### 如果 ACK 丢了会怎样" under "## 为什么…？"
                kinds[heading.index] = Kind.NOT_A_QUESTION
    return kinds


def _standalone(headings: list[Heading], facts: _Facts, kinds: list[Kind]) -> None:
    """A numbered heading whose sub-headings ask nothing is one card, they its answer.

    "5.1 卷积神经网络的组成层" over "输入层", "卷积层": a card whose whole question is "卷积层"
    cannot be answered. The numbered heading above them is the question they answer where one
    of them was taken for a card, or where the numbered headings beside it are cards.
    """
    for group in sibling_groups(headings):
        numbered_cards = any(facts.numbered[h.index] and kinds[h.index] == Kind.CARD for h in group)
        for heading in group:
            i = heading.index
            if not heading.children or not facts.numbered[i] or facts.holds_question[i]:
                continue
            if generic_question(question_text(heading.text)[0]):
                continue
            if numbered_cards or any(kinds[c.index] == Kind.CARD for c in heading.children):
                kinds[i] = Kind.CARD


def is_contents_heading(heading: Heading, outline: Outline) -> bool:
    """Whether all `heading` holds before its first sub-heading is a list of anchor links."""
    stop = heading.children[0].line if heading.children else heading.stop
    return is_contents(outline, outline.blocks_between(heading.end, stop))


def _numbering_runs_on(heading: Heading, outline: Outline) -> bool:
    """ "1.进程和线程的区别" as `<h1>`, "2.什么是写时复制？" as `<h3>` under it: numbered questions
    written at mixed levels (HTML exports) are one run, each answered by its own text."""
    if not heading.children or generic_question(question_text(heading.text)[0]):
        return False
    first = heading.children[0]
    number = numbering(heading.text)
    return (
        number is not None
        and numbering(first.text) == number + 1
        and not DOTTED.match(unwrap(first.text))
        and has_text(outline, heading.end, first.line)
    )


def _own_kind(heading: Heading, facts: _Facts, outline: Outline, title: Heading | None) -> Kind:
    i = heading.index
    if is_contents_heading(heading, outline):
        return Kind.CONTENTS
    if facts.asked[i]:
        own = has_text(outline, heading.end, _first_child_question(heading, facts.asked))
        return Kind.CARD if own or not facts.holds_question[i] else Kind.SECTION
    if facts.numbered[i] and _numbering_runs_on(heading, outline):
        return Kind.CARD
    holds_numbered = facts.holds_numbered[i] and not asks(question_text(heading.text)[0])
    if facts.holds_question[i] or holds_numbered or heading is title:
        return Kind.SECTION
    return Kind.NOT_A_QUESTION


def _flat_run(headings: list[Heading], facts: _Facts) -> bool:
    """ "## 1. cache line 的大小", "## 2. roofline 模型": numbered headings in one flat run, the
    house format's numbered style, are questions however they are worded."""
    numbered = [h for h in headings if facts.numbered[h.index]]
    return bool(numbered) and all(
        HOUSE_NUMBER.match(unwrap(h.text))
        and not re.match(r"^\d+[.．]\d", unwrap(h.text))
        and 2 <= h.level <= 3
        and not facts.holds_numbered[h.index]
        and not facts.holds_question[h.index]
        for h in numbered
    )


def _numbered_group(
    group: list[Heading],
    facts: _Facts,
    kinds: list[Kind],
    outline: Outline,
    *,
    flat: bool,
    book: bool,
) -> None:
    """Numbered headings are questions where they ask ("1.1 为什么…", "2) Implement…"), or
    stand among others that mostly do; "（1）神经元" in lecture notes names a topic. A book of
    questions numbered 8.2.7 names some entries without asking ("8.3.6 YOLOv3"): where a third
    of its numbered headings ask, such an entry is a question."""
    leaves = [
        h
        for h in group
        if facts.numbered[h.index] and kinds[h.index] == Kind.NOT_A_QUESTION and not facts.tagged
    ]
    sections = any(facts.numbered[h.index] and kinds[h.index] == Kind.SECTION for h in group)
    asking = [h for h in leaves if asks(question_text(h.text)[0])]
    group_asks = flat or (len(leaves) >= 2 and 3 * len(asking) >= len(leaves))
    for heading in leaves:
        words = question_text(heading.text)[0]
        if generic_question(words) or not has_text(outline, heading.end, heading.stop):
            continue
        dotted = book and DOTTED.match(unwrap(heading.text))
        if asks(words) or dotted or (group_asks and not sections):
            kinds[heading.index] = Kind.CARD


def sibling_groups(headings: list[Heading]) -> Iterable[list[Heading]]:
    groups: dict[tuple[int, int], list[Heading]] = {}
    for heading in headings:
        parent = heading.parent.index if heading.parent else -1
        groups.setdefault((parent, heading.level), []).append(heading)
    return groups.values()


def _first_child_question(heading: Heading, asked: list[bool]) -> int:
    """Where a question heading's own answer stops: its first sub-heading that asks, if any."""
    pending = list(heading.children)
    while pending:
        child = pending.pop(0)
        if asked[child.index]:
            return child.line
        pending[:0] = child.children
    return heading.stop


def has_text(outline: Outline, start: int, end: int) -> bool:
    return any(line.strip() for line in outline.lines[start:end])
