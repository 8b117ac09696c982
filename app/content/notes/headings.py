"""Headings as their author wrote them: which ask a question, which are sections, and where
each question's answer stops; the text between question headings goes to app.content.regions."""

import bisect
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers import recognise_region
from app.content.notes.recognisers.contents import is_contents
from app.content.notes.recognisers.lines import (
    bold_question,
    outline_lines,
    without_answer_fold,
)
from app.content.notes.wording import (
    BOLD_LINE,
    DOTTED,
    HOUSE_NUMBER,
    QUOTE,
    TAG,
    Found,
    Kind,
    Lines,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
    asks,
    generic_question,
    numbering,
    question_text,
    unwrap,
)


def recognise_headings(outline: Outline, house: bool) -> Recognised:
    found = Recognised(plain=not outline.headings)
    title = _title_heading(outline)
    if title is not None:
        found.title = title.text
        found.not_taken.append(NotTaken(title.line, title.text, Reason.TITLE))
    kinds = _classify(outline.headings, outline, title, house)
    labelled, held = _labelled_pairs(outline)
    found.cards += labelled
    for index in held:
        kinds[index] = Kind.LABELLED
    claimed: set[int] = {line for card in labelled for line, _ in card.body}
    claimed |= {outline.headings[index].line for index in held}
    level = _level_sections(outline, title, kinds)
    claimed |= _heading_cards(outline, title, kinds, level, found)
    _region_cards(outline, title, kinds, level, claimed, found)
    found.cards.sort(key=lambda card: card.line)
    found.not_taken.sort(key=lambda item: item.line)
    return found


def _heading_cards(
    outline: Outline,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    found: Recognised,
) -> set[int]:
    """The cards whose question is a heading; returns the lines they hold."""
    cards: list[tuple[Heading, int]] = []  # a card heading and where its answer stops
    for heading in outline.headings:
        if heading is title:
            continue
        kind = kinds[heading.index]
        if kind == Kind.LABELLED or _inside_card(heading, kinds):
            found.not_taken.append(NotTaken(heading.line, heading.text, Reason.INSIDE_ANSWER))
        elif kind == Kind.CARD:
            cards.append((heading, _answer_stop(heading, kinds)))
        else:
            found.not_taken.append(NotTaken(heading.line, heading.text, Reason(kind.value)))
    claimed: set[int] = set()
    for heading, stop in cards:
        question, _ = question_text(heading.text)
        body = [
            (i, t if i in outline.code else without_answer_fold(t))
            for i, t in outline_lines(outline, heading.end, stop)
        ]
        claimed.update(range(heading.line, stop))
        if not question:
            card = Found("", heading.line, heading.explicit_id, body, "", Syntax.HEADING)
            found.cards.append(card)
            continue
        section = _section_of(heading, title, kinds, level)
        syntax = Syntax.NUMBERED_HEADING if numbering(heading.text) else Syntax.QUESTION_HEADING
        card = Found(question, heading.line, heading.explicit_id, body, section, syntax)
        found.cards += _split_at_bold_questions(card, outline.lines)
    return claimed


def _region_cards(
    outline: Outline,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    claimed: set[int],
    found: Recognised,
) -> None:
    """The text no heading card holds, region by region (each region ends at a heading)."""
    headings = outline.headings
    starts = [0] + [h.end for h in headings]
    ends = [h.line for h in headings] + [len(outline.lines)]
    owners: list[Heading | None] = [None, *headings]
    first_card = min((card.line for card in found.cards), default=len(outline.lines))
    for start, end, owner in zip(starts, ends, owners, strict=True):
        if start >= end or start in claimed:
            continue
        section = _section_of(owner, title, kinds, level, own=True) if owner else ""
        region = recognise_region(outline, start, end, section)
        found.cards += region.cards
        found.not_taken += region.not_taken
        if not found.title and region.title:
            found.title = region.title
        if owner is None or owner is title:
            first_card = min([first_card, *(card.line for card in region.cards)])
            found.intro += [(i, t) for i, t in region.intro if i < first_card]


_QUESTION_LABELS = {"question", "вопрос", "vopros", "问题", "题目", "问", "q", "题"}
_ANSWER_LABELS = {"answer", "ответ", "otvet", "答案", "回答", "解答", "参考答案", "答", "a"}


def _heading_label(text: str) -> tuple[str, str]:
    """A heading's label and its tag: `Answer (EN):` is ("answer", "en")."""
    # By string methods, not a regular expression: `(.*?)\s*(…)?\s*` backtracks in cubic time
    # over a run of spaces.
    name, tag = unwrap(text), ""
    if "\n" in name:
        name = text
    else:
        name = name.removesuffix(":").removesuffix("：").rstrip()
        opening = max(name.rfind("("), name.rfind("（"))
        inner = name[opening + 1 : -1]
        if name.endswith((")", "）")) and opening >= 0 and not {")", "）"} & set(inner):
            name, tag = name[:opening], inner
    return unicodedata.normalize("NFKC", name).casefold().strip(), tag.casefold().strip()


def _labelled_pairs(outline: Outline) -> tuple[list[Found], set[int]]:
    """Headings named Question and Answer (`# Question (EN)` … `## Answer (EN)`): one card.

    The question is the text under its heading; the answer everything under the matching
    answer heading (by its tag such as "(EN)", else in order). Returns the cards and the
    headings they hold.
    """
    headings = outline.headings
    labels = [_heading_label(h.text) for h in headings]
    questions = [h for h in headings if labels[h.index][0] in _QUESTION_LABELS]
    answers = [h for h in headings if labels[h.index][0] in _ANSWER_LABELS]
    cards: list[Found] = []
    held: set[int] = set()
    lines = [h.line for h in headings]
    pending = _Answers(answers, labels)
    for number, question in enumerate(questions):
        answer = pending.take(question, number, labels[question.index][1])
        if answer is None:
            continue
        body = outline_lines(outline, answer.end, answer.stop)
        own = range(question.end, question.stop)
        text = " ".join(QUOTE.sub("", outline.lines[i]).strip() for i in own).strip(" -")
        if not text or not any(t.strip() for _, t in body):
            pending.give_back(answer)
            continue
        held |= {question.index, answer.index}
        first = bisect.bisect_right(lines, answer.line)
        held |= {h.index for h in headings[first : bisect.bisect_left(lines, answer.stop)]}
        cards.append(Found(text, question.line, None, body, "", Syntax.LABELLED_HEADINGS))
    return cards, held


class _Answers:
    """The answer headings not yet matched, in order, and by tag: each found in constant time."""

    def __init__(self, answers: list[Heading], labels: list[tuple[str, str]]) -> None:
        self.order = answers
        self.by_tag: dict[str, list[Heading]] = {}
        for answer in reversed(answers):
            self.by_tag.setdefault(labels[answer.index][1], []).append(answer)
        self.used: set[int] = set()
        self.used_lines: list[int] = []  # sorted
        self.lines = [answer.line for answer in answers]
        self.next = 0  # first of `order` neither used nor before the last question

    def take(self, question: Heading, number: int, tag: str) -> Heading | None:
        """The next answer after `question` with its tag, else (untagged) the next in order."""
        tagged = self.by_tag.get(tag, [])
        while tagged and (tagged[-1].index in self.used or tagged[-1].line < question.line):
            tagged.pop()
        answer = tagged[-1] if tagged else None
        if answer is None and not tag and number < self._left_after(question.line):
            while self.next < len(self.order) and (
                self.order[self.next].index in self.used
                or self.order[self.next].line < question.line
            ):
                self.next += 1
            answer = self.order[self.next] if self.next < len(self.order) else None
        if answer is not None:
            self.used.add(answer.index)
            bisect.insort(self.used_lines, answer.line)
        return answer

    def _left_after(self, line: int) -> int:
        after = len(self.lines) - bisect.bisect_right(self.lines, line)
        return after - (len(self.used_lines) - bisect.bisect_right(self.used_lines, line))

    def give_back(self, answer: Heading) -> None:
        self.used.discard(answer.index)
        self.used_lines.remove(answer.line)


def _split_at_bold_questions(card: Found, lines: list[str]) -> list[Found]:
    """A heading card whose answer holds bold questions ("**1.2 …？**"): one card each.

    Notes write some questions as headings and the next as bold paragraphs. A bold question
    opening a paragraph is the next question when it is numbered, or when the answer holds
    several; a heading left with no answer of its own before them is only their section.
    """
    leads: list[tuple[int, str, str, bool]] = []
    for index, text in card.body:
        previous_blank = index == 0 or not lines[index - 1].strip()
        lead = BOLD_LINE.match(text.strip()) if previous_blank and text[:1].strip() else None
        bold = bold_question(text) if lead else None
        if bold and lead:
            leads.append((index, bold[0], bold[1], numbering(lead.group(1)) is not None))
    starts = {i: (q, rest) for i, q, rest, numbered in leads if numbered or len(leads) >= 2}
    if not starts:
        return [card]
    out = [card]
    body: Lines = []
    for index, text in card.body:
        if index in starts:
            out[-1].body = body
            question, rest = starts[index]
            out.append(Found(question, index, None, [], card.section, Syntax.BOLD_QUESTION))
            body = [(index, rest)] if rest else []
            continue
        body.append((index, text))
    out[-1].body = body
    if not any(text.strip() for _, text in card.body):
        out.remove(card)
    return out


def _title_heading(outline: Outline) -> Heading | None:
    """The level-1 heading that names the note: the first heading, alone at its level."""
    if not outline.headings:
        return None
    first = outline.headings[0]
    ones = [h for h in outline.headings if h.level == 1]
    if first.level != 1 or len(ones) != 1 or question_text(first.text)[1]:
        return None
    if _is_contents(first, outline):
        return None
    return first


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


def _classify(
    headings: list[Heading], outline: Outline, title: Heading | None, house: bool
) -> list[Kind]:
    """Each heading's kind: card, section or not-a-question (inside-answer is decided later)."""
    facts = _facts(headings)
    kinds = [_own_kind(h, facts, outline, title) for h in headings]
    flat = house and _flat_run(headings, facts)
    leaves = [h for h in headings if facts.numbered[h.index] and not h.children]
    book = 3 * sum(asks(question_text(h.text)[0]) for h in leaves) >= max(len(leaves), 1)
    for group in _sibling_groups(headings):
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
    for group in _sibling_groups(headings):
        numbered_cards = any(facts.numbered[h.index] and kinds[h.index] == Kind.CARD for h in group)
        for heading in group:
            i = heading.index
            if not heading.children or not facts.numbered[i] or facts.holds_question[i]:
                continue
            if generic_question(question_text(heading.text)[0]):
                continue
            if numbered_cards or any(kinds[c.index] == Kind.CARD for c in heading.children):
                kinds[i] = Kind.CARD


def _is_contents(heading: Heading, outline: Outline) -> bool:
    """Whether all `heading` holds before its first sub-heading is a list of anchor links."""
    stop = heading.children[0].line if heading.children else heading.stop
    return is_contents(outline, outline.blocks_between(heading.end, stop))


def _own_kind(heading: Heading, facts: _Facts, outline: Outline, title: Heading | None) -> Kind:
    i = heading.index
    if _is_contents(heading, outline):
        return Kind.CONTENTS
    if facts.asked[i]:
        has_text = _has_text(outline, heading.end, _first_child_question(heading, facts.asked))
        return Kind.CARD if has_text or not facts.holds_question[i] else Kind.SECTION
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
        if generic_question(words) or not _has_text(outline, heading.end, heading.stop):
            continue
        dotted = book and DOTTED.match(unwrap(heading.text))
        if asks(words) or dotted or (group_asks and not sections):
            kinds[heading.index] = Kind.CARD


def _sibling_groups(headings: list[Heading]) -> Iterable[list[Heading]]:
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


def _answer_stop(heading: Heading, kinds: list[Kind]) -> int:
    stop = heading.stop
    pending = list(heading.children)
    while pending:
        child = pending.pop(0)
        if kinds[child.index] == Kind.CARD:
            return min(stop, child.line)
        pending[:0] = child.children
    return stop


def _inside_card(heading: Heading, kinds: list[Kind]) -> bool:
    """Whether a heading sits inside an answer: under a card, before any sub-question."""
    parent = heading.parent
    while parent is not None:
        if kinds[parent.index] == Kind.CARD:
            return heading.line < _answer_stop(parent, kinds)
        parent = parent.parent
    return False


def _section_of(
    heading: Heading | None,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    *,
    own: bool = False,
) -> str:
    """The section of `heading`: a section heading at its level before it (`level`), else the
    nearest above (or, with `own`, at) it; never the title or a table of contents."""
    if heading is not None and not own and heading.index in level:
        return level[heading.index].text
    node = heading if own else (heading.parent if heading else None)
    while node is not None and kinds[node.index] in (Kind.CARD, Kind.CONTENTS):
        node = node.parent
    return "" if node is None or node is title else node.text


def _level_sections(
    outline: Outline, title: Heading | None, kinds: list[Kind]
) -> dict[int, Heading]:
    """Question headings and the heading of no text of their own at their level before them.

    `### Basic Probability` then `### Q: …`, `### Q: …`: the first names the section of the
    questions after it, although it does not hold them.
    """
    level: dict[int, Heading] = {}
    for group in _sibling_groups(outline.headings):
        section: Heading | None = None
        for heading in group:
            if kinds[heading.index] == Kind.CARD:
                if section is not None:
                    level[heading.index] = section
                continue
            section = None
            if heading is title or kinds[heading.index] not in (Kind.NOT_A_QUESTION, Kind.SECTION):
                continue
            if not _has_text(outline, heading.end, heading.stop):
                section = heading
    for heading in {section.index: section for section in level.values()}.values():
        kinds[heading.index] = Kind.SECTION
    return level


def _has_text(outline: Outline, start: int, end: int) -> bool:
    return any(line.strip() for line in outline.lines[start:end])
