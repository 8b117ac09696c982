"""Which headings ask: each heading's kind (card, section, not a question) from what it says
and what it holds, numbered headings judged among their siblings."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.content.notes.admonitions import answered_by_fold
from app.content.notes.labelled import answer_label
from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers.contents import is_contents
from app.content.notes.wording import (
    DOTTED,
    HOUSE_NUMBER,
    TAG,
    Kind,
    asks,
    generic_question,
    leans_on_parent,
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
    says: list[bool]  # asks by its mark or its words, numbered or not
    holds_asking: list[bool]  # a sub-heading says it asks
    tagged: bool  # the note tags its cards (#card): no guessing there


def _facts(headings: list[Heading], title: Heading | None) -> _Facts:
    # A heading asks by its mark (`?`, `Q:`, #card) or by its words ("简述…", "Explain…"),
    # as a whole note of `# 解释Gini系数` headings does; numbered ones are judged apart.
    explicit = [question_text(h.text)[1] for h in headings]
    tagged = any(TAG.search(h.text) for h in headings)
    numbered = _numbered(headings)
    asked = [
        explicit[h.index]
        or (not tagged and not numbered[h.index] and asks(h.text) and not generic_question(h.text))
        for h in headings
    ]
    words = [question_text(h.text)[0] for h in headings]
    says = [
        explicit[h.index]
        or (not tagged and asks(words[h.index]) and not generic_question(words[h.index]))
        for h in headings
    ]
    for index in _parts(headings, title, explicit, says):
        explicit[index] = asked[index] = says[index] = False
    holds_question = [False] * len(headings)
    holds_numbered = [False] * len(headings)
    holds_asking = [False] * len(headings)
    for heading in reversed(headings):
        for child in heading.children:
            holds_question[heading.index] |= asked[child.index] or holds_question[child.index]
            holds_numbered[heading.index] |= numbered[child.index] or holds_numbered[child.index]
            holds_asking[heading.index] |= says[child.index] or holds_asking[child.index]
    return _Facts(
        explicit, asked, numbered, holds_question, holds_numbered, says, holds_asking, tagged
    )


def _parts(
    headings: list[Heading], title: Heading | None, explicit: list[bool], says: list[bool]
) -> list[int]:
    """The headings that are parts of the question above them, not questions of their own:
    "### Why do we use it?" under "## 1. What is a widget?" asks about it only by a pronoun;
    "### 核心区别" under "## 问题 2：A 和 B 有什么区别？" asks only by a word, under a heading
    that says outright it is the question."""
    return [
        h.index
        for h in headings
        if h.parent is not None
        and says[h.parent.index]
        and (
            leans_on_parent(h.text)
            or (explicit[h.parent.index] and h.parent is not title and not explicit[h.index])
        )
    ]


# A number and a space only (`2 的次方表`, `3 Sum`): numbering where a sibling is numbered too.
_BARE_NUMBER = re.compile(r"\d{1,3}[ \t]+\S")


def _numbered(headings: list[Heading]) -> list[bool]:
    """Whether each heading is numbered: "2 的次方表" among unnumbered headings is a title that
    starts with a number, not the second of a list."""
    numbered = [numbering(h.text) is not None for h in headings]
    for group in sibling_groups(headings):
        if sum(numbered[h.index] for h in group) > 1:
            continue
        for heading in group:
            if _BARE_NUMBER.match(unwrap(heading.text)):
                numbered[heading.index] = False
    return numbered


def classify(
    headings: list[Heading], outline: Outline, title: Heading | None, house: bool
) -> list[Kind]:
    """Each heading's kind: card, section or not-a-question (inside-answer is decided later)."""
    facts = _facts(headings, title)
    kinds = [_own_kind(h, facts, outline, title) for h in headings]
    flat = house and _flat_run(headings, facts)
    leaves = [h for h in headings if facts.numbered[h.index] and not h.children]
    book = 3 * sum(asks(question_text(h.text)[0]) for h in leaves) >= max(len(leaves), 1)
    for group in sibling_groups(headings):
        _numbered_group(group, facts, kinds, outline, flat=flat, book=book)
    promoted = _standalone(headings, facts, kinds, outline)
    for group in sibling_groups(headings):
        if promoted.intersection(h.index for h in group):
            _topic_group(group, facts, kinds, outline)
    for heading in headings:
        if kinds[heading.index] == Kind.CARD and not facts.explicit[heading.index]:
            parent = heading.parent
            while parent is not None and kinds[parent.index] != Kind.CARD:
                parent = parent.parent
            # "### 如果 ACK 丢了会怎样" under "## 为什么…？"; but "13.FPN的相关知识" as `<h2>`
            # under "12.…SPP结构?" as `<h1>` goes on the numbering, not the answer.
            if parent is not None and not _continues(parent, heading):
                kinds[heading.index] = Kind.NOT_A_QUESTION
    _html_answer_parts(headings, kinds)
    return kinds


def _html_answer_parts(headings: list[Heading], kinds: list[Kind]) -> None:
    """Markdown headings after a question written as `<h1>`–`<h3>` are parts of its answer.

    `<h3>1.什么是缓存？</h3>`, a line, `### 1. 访问更快`, `### 2. 减轻负载`: an HTML export
    asks in its `<hN>` lines and writes the answer's sections as Markdown headings at the
    question's level or deeper, some of them asking ("### 什么是惰性删除？" under `<h1>`). Such
    a heading is a question of its own only where it goes on with the questions' numbering
    (41. between 40. and 42.), or, where they are not numbered, asks at their level; a
    Markdown heading above their level is a section and ends the answer.
    """
    questions = [h for h in headings if h.html and h.level <= 3 and kinds[h.index] == Kind.CARD]
    following: dict[int, Heading | None] = {
        question.index: questions[at + 1] if at + 1 < len(questions) else None
        for at, question in enumerate(questions)
    }
    owner: Heading | None = None
    for heading in headings:
        if heading.index in following:
            owner = heading
        elif owner is None:
            continue
        elif _ends_answer(owner, heading, following[owner.index], kinds):
            owner = None
        elif kinds[heading.index] != Kind.CARD or not heading.html:
            kinds[heading.index] = Kind.PART


def _ends_answer(
    question: Heading, heading: Heading, following: Heading | None, kinds: list[Kind]
) -> bool:
    """Whether a heading after an HTML question ends its answer: a heading above its level,
    an HTML heading at its level, or a Markdown heading that is the note's next question."""
    if heading.level < question.level or (heading.html and heading.level == question.level):
        return True
    if heading.html or kinds[heading.index] != Kind.CARD:
        return False
    number, own = numbering(question.text), numbering(heading.text)
    if number is None:
        return heading.level == question.level
    after = numbering(following.text) if following is not None else None
    return own is not None and number < own and (after is None or own < after)


def _standalone(
    headings: list[Heading], facts: _Facts, kinds: list[Kind], outline: Outline
) -> set[int]:
    """A numbered heading whose sub-headings ask nothing is one card, they its answer.

    "5.1 卷积神经网络的组成层" over "输入层", "卷积层": a card whose whole question is "卷积层"
    cannot be answered. The numbered heading above them is the question they answer where one
    of them was taken for a card, where the numbered headings beside it are cards, or where it
    opens with text of its own ("## 2.中文分词难点", a paragraph, then "### 2.1 分词标准"): a
    part title goes straight to its first sub-heading. But where the numbered headings beside
    it are sections of questions ("### 1. 理论篇", "### 2. 实践篇"), it is one more section, and
    its numbered sub-headings ("#### 3.1 单机单卡场景") entries of the book like theirs.
    Returns the headings made cards.
    """
    promoted: set[int] = set()
    for group in sibling_groups(headings):
        numbered_cards = any(facts.numbered[h.index] and kinds[h.index] == Kind.CARD for h in group)
        sections = any(facts.numbered[h.index] and kinds[h.index] == Kind.SECTION for h in group)
        for heading in group:
            i = heading.index
            if not heading.children or not facts.numbered[i] or facts.holds_asking[i]:
                continue
            if generic_question(question_text(heading.text)[0]) or kinds[i] == Kind.CARD:
                continue
            if (
                numbered_cards
                or (not sections and any(kinds[c.index] == Kind.CARD for c in heading.children))
                or has_text(outline, heading.end, heading.children[0].line)
            ):
                kinds[i] = Kind.CARD
                promoted.add(i)
    return promoted


def _topic_group(group: list[Heading], facts: _Facts, kinds: list[Kind], outline: Outline) -> None:
    """Numbered siblings of a heading that is one card over its topics are cards too.

    "## 1.概述", "## 2.中文分词难点" (a card over 2.1–2.3), "## 4.分词质量和性能": a note of
    numbered topics, none asking, each with its text; "## 3.常见算法" over "### 3.1 BPE" too.
    """
    for heading in group:
        i = heading.index
        if not facts.numbered[i] or kinds[i] == Kind.CARD or facts.holds_asking[i]:
            continue
        if kinds[i] not in (Kind.NOT_A_QUESTION, Kind.SECTION):
            continue
        words = question_text(heading.text)[0]
        if not generic_question(words) and has_text(outline, heading.end, heading.stop):
            kinds[i] = Kind.CARD


def _continues(parent: Heading, heading: Heading) -> bool:
    """Whether `heading` goes on with its parent's flat numbering (12. then 13.), not under it."""
    above, number = numbering(parent.text), numbering(heading.text)
    first = next((numbering(c.text) for c in parent.children if numbering(c.text)), None)
    return (
        above is not None
        and number is not None
        and first == above + 1
        and number > above
        and not DOTTED.match(unwrap(heading.text))
        and not DOTTED.match(unwrap(parent.text))
    )


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
    # `??? success "View Answer"` under "### Window functions versus GROUP BY": answered.
    first = heading.children[0].line if heading.children else heading.stop
    if answered_by_fold(outline, heading.end, first):
        return Kind.CARD
    # "### 检索所有列", the table it is about, then `答案：` and the query: an exercise.
    if answer_label(outline, heading.end, first) is not None:
        return Kind.CARD
    # "3.2 …会对语义有影响吗" over "1.4 …为什么…?": a question with its own answer first.
    if (
        facts.numbered[i]
        and facts.says[i]
        and facts.holds_asking[i]
        and has_text(outline, heading.end, _first_child_question(heading, facts.says))
    ):
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
    # "### 1. 显存需求的基本组成" beside "### 40.…？" starts its numbering again: an answer's parts.
    run = set() if facts.tagged else _in_run(group, facts)
    topical = flat or _topics_count(group, run, facts, kinds)
    for heading in group:
        if heading.index not in run or kinds[heading.index] != Kind.NOT_A_QUESTION:
            continue
        words = question_text(heading.text)[0]
        if generic_question(words) or not has_text(outline, heading.end, heading.stop):
            continue
        dotted = book and DOTTED.match(unwrap(heading.text))
        if asks(words) or dotted or topical:
            kinds[heading.index] = Kind.CARD


def _topics_count(group: list[Heading], run: set[int], facts: _Facts, kinds: list[Kind]) -> bool:
    """Whether the numbered topics of `group` are questions: a third of the run asks (half, where
    some of them are sections of questions)."""
    numbered = [h for h in group if h.index in run]
    asking = sum(facts.says[h.index] for h in numbered)
    if len(numbered) < 2 or 3 * asking < len(numbered):
        return False
    # A section of questions, not a heading over topics that may yet be one card.
    sections = any(kinds[h.index] == Kind.SECTION and facts.holds_asking[h.index] for h in numbered)
    return not sections or 2 * asking >= len(numbered)


def _in_run(group: list[Heading], facts: _Facts) -> set[int]:
    """The numbered siblings whose numbers go up: not those that start again lower down."""
    run: set[int] = set()
    highest: tuple[int, ...] = ()
    for heading in group:
        if not facts.numbered[heading.index]:
            continue
        # "3.1.2" as (3, 1, 2), so that 3.1.10 follows 3.1.9; "三、" by its value.
        dotted = _DOTTED_NUMBER.match(unwrap(heading.text))
        number = (
            tuple(int(part) for part in re.split(r"[.．]", dotted.group()))
            if dotted
            else (numbering(heading.text) or 0,)
        )
        if number > highest or not run:
            run.add(heading.index)
            highest = number
    return run


_DOTTED_NUMBER = re.compile(r"\d+(?:[.．]\d+)*")


def sibling_groups(headings: list[Heading]) -> Iterable[list[Heading]]:
    groups: dict[tuple[int, int], list[Heading]] = {}
    for heading in headings:
        parent = heading.parent.index if heading.parent else -1
        groups.setdefault((parent, heading.level), []).append(heading)
    return groups.values()


def _first_child_question(heading: Heading, asked: list[bool]) -> int:
    """Where a question heading's own answer stops: its first sub-heading that asks, if any."""
    pending = list(reversed(heading.children))  # a stack: children in order, depth first
    while pending:
        child = pending.pop()
        if asked[child.index]:
            return child.line
        pending.extend(reversed(child.children))
    return heading.stop


def has_text(outline: Outline, start: int, end: int) -> bool:
    return outline.holds_text(start, end)
