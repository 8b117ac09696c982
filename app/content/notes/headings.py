"""Headings as their author wrote them: which ask a question, which are sections, and where
each question's answer stops; the text between question headings goes to app.content.regions."""

import re
import unicodedata
from collections.abc import Iterable

from app.content.notes.outline import Heading, Outline
from app.content.notes.regions import (
    bold_question,
    outline_lines,
    recognise_region,
    without_answer_fold,
)
from app.content.notes.wording import (
    BOLD_LINE,
    DOTTED,
    HOUSE_NUMBER,
    QUOTE,
    TAG,
    Found,
    Lines,
    NotTaken,
    Recognised,
    asks,
    generic_question,
    numbering,
    question_text,
    unwrap,
)


def recognise_headings(outline: Outline, house: bool) -> Recognised:
    found = Recognised(plain=not outline.headings)
    headings = outline.headings
    title = _title_heading(outline)
    if title is not None:
        found.title = title.text
        found.not_taken.append(NotTaken(title.line, title.text, "title"))
    kinds = _classify(headings, outline, title, house)
    labelled, held = _labelled_pairs(outline)
    found.cards += labelled
    for index in held:
        kinds[index] = "labelled"

    cards: list[tuple[Heading, int]] = []  # a card heading and where its answer stops
    for heading in headings:
        if heading is title:
            continue
        kind = kinds[heading.index]
        if kind == "labelled" or _inside_card(heading, kinds):
            found.not_taken.append(NotTaken(heading.line, heading.text, "inside-answer"))
        elif kind == "card":
            cards.append((heading, _answer_stop(heading, kinds)))
        else:
            found.not_taken.append(NotTaken(heading.line, heading.text, kind))

    claimed: set[int] = {line for card in labelled for line, _ in card.body}
    claimed |= {headings[index].line for index in held}
    for heading, stop in cards:
        question, _ = question_text(heading.text)
        body = [(i, without_answer_fold(t)) for i, t in outline_lines(outline, heading.end, stop)]
        claimed.update(range(heading.line, stop))
        if not question:
            found.cards.append(Found("", heading.line, heading.explicit_id, body, "", "heading"))
            continue
        section = _section_of(heading, title, kinds)
        recogniser = "numbered-heading" if numbering(heading.text) else "question-heading"
        card = Found(question, heading.line, heading.explicit_id, body, section, recogniser)
        found.cards += _split_at_bold_questions(card, outline.lines)

    # The text no heading card holds, region by region (each region ends at a heading).
    starts = [0] + [h.end for h in headings]
    ends = [h.line for h in headings] + [len(outline.lines)]
    owners: list[Heading | None] = [None, *headings]
    first_card = min((card.line for card in found.cards), default=len(outline.lines))
    for start, end, owner in zip(starts, ends, owners, strict=True):
        if start >= end or start in claimed:
            continue
        section = _section_of(owner, title, kinds, own=True) if owner else ""
        region = recognise_region(outline, start, end, section)
        found.cards += region.cards
        found.not_taken += region.not_taken
        if not found.title and region.title:
            found.title = region.title
        if owner is None or owner is title:
            first_card = min([first_card, *(card.line for card in region.cards)])
            found.intro += [(i, t) for i, t in region.intro if i < first_card]
    found.cards.sort(key=lambda card: card.line)
    found.not_taken.sort(key=lambda item: item.line)
    return found


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
        name = (name[:-1] if name.endswith((":", "：")) else name).rstrip()
        if name.endswith((")", "）")):
            # The tag opens at the first `(` after the last `)` before its own.
            after = max(name.rfind(")", 0, -1), name.rfind("）", 0, -1)) + 1
            openings = [i for i in (name.find("(", after), name.find("（", after)) if i >= 0]
            if openings and (opening := min(openings)) < len(name) - 1:
                name, tag = name[:opening], name[opening + 1 : -1]
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
    for number, question in enumerate(questions):
        tag = labels[question.index][1]
        later = [a for a in answers if a.line > question.line and a.index not in held]
        answer = next((a for a in later if labels[a.index][1] == tag), None)
        if answer is None and not tag and number < len(later):
            answer = later[0]
        if answer is None:
            continue
        stop = next(
            (h.line for h in headings if h.line > question.line and h.level <= question.level),
            len(outline.lines),
        )
        text = " ".join(
            QUOTE.sub("", outline.lines[i]).strip() for i in range(question.end, stop)
        ).strip(" -")
        body = outline_lines(outline, answer.end, answer.stop)
        if not text or not any(t.strip() for _, t in body):
            continue
        held |= {question.index, answer.index}
        held |= {h.index for h in headings if answer.line < h.line < answer.stop}
        cards.append(Found(text, question.line, None, body, "", "labelled-headings"))
    return cards, held


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
            out.append(Found(question, index, None, [], card.section, "bold-question"))
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
    return first


def _classify(
    headings: list[Heading], outline: Outline, title: Heading | None, house: bool
) -> list[str]:
    """Each heading's kind: card, section or not-a-question (inside-answer is decided later)."""
    # A heading asks by its mark (`?`, `Q:`, #card) or by its words ("简述…", "Explain…"),
    # as a whole note of `# 解释Gini系数` headings does; numbered ones are judged below.
    explicit = [question_text(h.text)[1] for h in headings]
    # Notes that tag their cards (#card) say which headings are questions; no guessing there.
    tagged = any(TAG.search(h.text) for h in headings)
    asked = [
        explicit[h.index]
        or (
            not tagged
            and numbering(h.text) is None
            and asks(h.text)
            and not generic_question(h.text)
        )
        for h in headings
    ]
    numbered = [numbering(h.text) is not None for h in headings]
    # Whether anything below a heading is a question, or a numbered heading.
    holds_question = [False] * len(headings)
    holds_numbered = [False] * len(headings)
    for heading in reversed(headings):
        for child in heading.children:
            holds_question[heading.index] |= asked[child.index] or holds_question[child.index]
            holds_numbered[heading.index] |= numbered[child.index] or holds_numbered[child.index]
    kinds = ["not-a-question"] * len(headings)
    # "## 1. cache line 的大小", "## 2. roofline 模型": numbered headings in one flat run, the
    # house format's numbered style, are questions however they are worded.
    flat = (
        house
        and any(numbered)
        and all(
            HOUSE_NUMBER.match(unwrap(h.text))
            and not re.match(r"^\d+[.．]\d", unwrap(h.text))
            and 2 <= h.level <= 3
            and not holds_numbered[h.index]
            and not holds_question[h.index]
            for h in headings
            if numbered[h.index]
        )
    )
    for heading in headings:
        i = heading.index
        if asked[i]:
            has_text = _has_text(outline, heading.end, _first_child_question(heading, asked))
            kinds[i] = "card" if has_text or not holds_question[i] else "section"
        elif (
            holds_question[i]
            or (holds_numbered[i] and not asks(question_text(heading.text)[0]))
            or heading is title
        ):
            kinds[i] = "section"
    leaves = [h for h in headings if numbered[h.index] and not h.children]
    book = 3 * sum(asks(question_text(h.text)[0]) for h in leaves) >= max(len(leaves), 1)
    for group in _sibling_groups(headings):
        numbered_leaves = [
            h
            for h in group
            if numbered[h.index] and kinds[h.index] == "not-a-question" and not tagged
        ]
        sections = [h for h in group if numbered[h.index] and kinds[h.index] == "section"]
        # Numbered headings are questions where they ask ("1.1 为什么…", "2) Implement…"),
        # or stand among others that mostly do; "（1）神经元" in lecture notes names a topic.
        # A book of questions numbered 8.2.7 names some entries without asking ("8.3.6
        # YOLOv3"): where a third of its numbered headings ask, such an entry is a question.
        asking = [h for h in numbered_leaves if asks(question_text(h.text)[0])]
        group_asks = flat or (len(numbered_leaves) >= 2 and 3 * len(asking) >= len(numbered_leaves))
        for heading in numbered_leaves:
            if generic_question(question_text(heading.text)[0]) or not _has_text(
                outline, heading.end, heading.stop
            ):
                continue
            dotted = book and DOTTED.match(unwrap(heading.text))
            if (
                not asks(question_text(heading.text)[0])
                and (sections or not group_asks)
                and not dotted
            ):
                continue
            kinds[heading.index] = "card"
    for heading in headings:
        if kinds[heading.index] == "card" and not explicit[heading.index]:
            parent = heading.parent
            while parent is not None and kinds[parent.index] != "card":
                parent = parent.parent
            if parent is not None:  # "### 如果 ACK 丢了会怎样" under "## 为什么…？"
                kinds[heading.index] = "not-a-question"
    return kinds


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


def _answer_stop(heading: Heading, kinds: list[str]) -> int:
    stop = heading.stop
    pending = list(heading.children)
    while pending:
        child = pending.pop(0)
        if kinds[child.index] == "card":
            return min(stop, child.line)
        pending[:0] = child.children
    return stop


def _inside_card(heading: Heading, kinds: list[str]) -> bool:
    """Whether a heading sits inside an answer: under a card, before any sub-question."""
    parent = heading.parent
    while parent is not None:
        if kinds[parent.index] == "card":
            return heading.line < _answer_stop(parent, kinds)
        parent = parent.parent
    return False


def _section_of(
    heading: Heading | None, title: Heading | None, kinds: list[str], *, own: bool = False
) -> str:
    """The nearest section heading above (or, with `own`, at) `heading`, title excluded."""
    node = heading if own else (heading.parent if heading else None)
    while node is not None and kinds[node.index] == "card":
        node = node.parent
    return "" if node is None or node is title else node.text


def _has_text(outline: Outline, start: int, end: int) -> bool:
    return any(line.strip() for line in outline.lines[start:end])
