"""Headings named Question and Answer (`# Question (EN)` … `## Answer (EN)`): one card each pair."""

import bisect
import unicodedata

from app.content.notes.outline import Block, Heading, Outline
from app.content.notes.recognisers.lines import outline_lines
from app.content.notes.wording import Found, Syntax, asks, question_text, unwrap

_QUESTION_LABELS = {
    "question",
    "вопрос",
    "vopros",
    "问题",
    "题目",
    "问",
    "q",
    "题",
    "面试题",
    "面试问题",
    "题目描述",
    "问题描述",
}
_ANSWER_LABELS = {
    "answer",
    "answer guide",
    "model answer",
    "sample answer",
    "suggested answer",
    "ответ",
    "otvet",
    "答案",
    "回答",
    "解答",
    "解",
    "参考答案",
    "参考回答",
    "答",
    "a",
    "面试题剖析",
    "剖析",
    "解析",
    "答案解析",
    "参考解析",
    "题解",
    "解题思路",
}


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


def labelled_pairs(outline: Outline, title: Heading | None) -> tuple[list[Found], set[int]]:
    """Headings named Question and Answer (`# Question (EN)` … `## Answer (EN)`): one card.

    The question is the text under its heading; the answer everything under the matching
    answer heading (by its tag such as "(EN)", else in order). A note with no question heading
    and one answer heading under its title asks its title. Returns the cards and the headings
    they hold.
    """
    headings = outline.headings
    labels = [_heading_label(h.text) for h in headings]
    questions = [h for h in headings if labels[h.index][0] in _QUESTION_LABELS]
    answers = [h for h in headings if labels[h.index][0] in _ANSWER_LABELS]
    lines = [h.line for h in headings]
    if not questions and len(answers) == 1:
        return _asked_above(outline, title, answers[0], labels, lines)
    cards: list[Found] = []
    held: set[int] = set()
    pending = _Answers(answers, labels)
    for number, question in enumerate(questions):
        answer = pending.take(question, number, labels[question.index][1])
        if answer is None:
            card = _answered_below(outline, question, labels, lines)
            if card is not None:
                cards.append(card[0])
                held |= card[1]
            continue
        stop = _answer_stop(answer, headings, labels, lines)
        body = outline_lines(outline, answer.end, stop)
        # Only the text under the question's own heading: `# Вопрос (RU)` holds the `##`
        # answers after it, which are not part of the question.
        after = question.index + 1
        own = range(question.end, lines[after] if after < len(lines) else question.stop)
        # The question as the parse read its paragraphs (a quote's `>` already gone).
        text = " ".join(outline.texts[i].strip() for i in own if i in outline.texts).strip(" -")
        if not text or not any(t.strip() for _, t in body):
            pending.give_back(answer)
            continue
        held |= {question.index, answer.index}
        first = bisect.bisect_right(lines, answer.line)
        held |= {h.index for h in headings[first : bisect.bisect_left(lines, stop)]}
        cards.append(Found(text, question.line, None, body, "", Syntax.LABELLED_HEADINGS))
    return cards, held


# Longer than a question put in an interview: a foreword that happens to ask on its way.
_LONGEST_QUESTION = 200


def _answered_below(
    outline: Outline, question: Heading, labels: list[tuple[str, str]], lines: list[int]
) -> tuple[Found, set[int]] | None:
    """`## 问题` over one paragraph that asks, with no answer heading to pair it: the sections
    after it at its level (`## 问题背景`, `## F1 score`, `## 参考资料`) answer it, up to the next
    question heading."""
    after, stop = question.index + 1, _scope_stop(outline, question)
    if after >= len(lines) or lines[after] >= stop:
        return None
    own = outline.blocks_between(question.end, lines[after])
    if len(own) != 1 or own[0].kind not in ("paragraph", "blockquote"):
        return None
    text = " ".join(
        outline.texts[i].strip() for i in range(own[0].start, own[0].end) if i in outline.texts
    )
    text = question_text(text.strip(" -"))[0]
    # A foreword under the label ("这里简单总结一下…") is no question: the note is a page.
    if len(text) > _LONGEST_QUESTION or not asks(text):
        return None
    at = after
    while at < len(lines) and lines[at] < stop:
        if outline.headings[at].level <= question.level and labels[at][0] in _QUESTION_LABELS:
            stop = lines[at]
            break
        at += 1
    body = outline_lines(outline, lines[after], stop)
    if not any(line.strip() for _, line in body):
        return None
    held = {question.index} | {
        h.index for h in outline.headings[after : bisect.bisect_left(lines, stop)]
    }
    return Found(text, question.line, None, body, "", Syntax.LABELLED_HEADINGS), held


def _scope_stop(outline: Outline, question: Heading) -> int:
    return question.parent.stop if question.parent is not None else len(outline.lines)


def _asked_above(
    outline: Outline,
    title: Heading | None,
    answer: Heading,
    labels: list[tuple[str, str]],
    lines: list[int],
) -> tuple[list[Found], set[int]]:
    """The one answer heading's card, asked by the title or by the heading the note opens with
    (`### Generate the Fibonacci sequence` over `#### Answer`)."""
    if title is not None:
        return _title_answer(outline, title, answer, labels, lines)
    root = _root(outline)
    if root is None:
        return [], set()
    cards, held = _title_answer(outline, root, answer, labels, lines)
    return cards, (held | {root.index}) if cards else held


def _root(outline: Outline) -> Heading | None:
    """The heading the note opens with when every other heading is under it, whatever its
    level: a title written as `###`."""
    first = outline.headings[0] if outline.headings else None
    if first is None or outline.holds_text(0, first.line):
        return None
    return None if any(h.level <= first.level for h in outline.headings[1:]) else first


def _title_answer(
    outline: Outline,
    title: Heading,
    answer: Heading,
    labels: list[tuple[str, str]],
    lines: list[int],
) -> tuple[list[Found], set[int]]:
    """One note per question: `# Size a connection pool`, maybe a paragraph saying more (the
    card's stem), then `## Answer guide`. The title asks, as a task more often than not."""
    if answer.parent is not title:
        return [], set()
    stop = _answer_stop(answer, outline.headings, labels, lines)
    body = outline_lines(outline, answer.end, stop)
    question = question_text(title.text)[0]
    if not question or not any(text.strip() for _, text in body):
        return [], set()
    first = bisect.bisect_right(lines, answer.line)
    held = {answer.index} | {
        h.index for h in outline.headings[first : bisect.bisect_left(lines, stop)]
    }
    own = outline_lines(outline, title.end, title.children[0].line)
    stem = own if any(text.strip() for _, text in own) else None
    card = Found(question, title.line, title.explicit_id, body, "", Syntax.LABELLED_HEADINGS, stem)
    return [card], held


def _answer_stop(
    answer: Heading, headings: list[Heading], labels: list[tuple[str, str]], lines: list[int]
) -> int:
    """Where an answer ends: it goes on over the sections after it at its level (`## Core
    aspects`, `## Summary`, `## Follow-ups`) up to a question or answer heading, or a section
    tagged for another language (`## Ссылки (RU)` after `## Answer (EN)`)."""
    stop, tag = answer.stop, labels[answer.index][1]
    at = bisect.bisect_left(lines, stop)
    while at < len(headings) and headings[at].level == answer.level:
        name, own = labels[at]
        if name in _QUESTION_LABELS or name in _ANSWER_LABELS or (own and own != tag):
            break
        stop = headings[at].stop
        at = bisect.bisect_left(lines, stop, lo=at + 1)
    return stop


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


def answer_label(outline: Outline, start: int, stop: int) -> Block | None:
    """The first paragraph of lines `start`…`stop` that is only an answer's label (`答案：`,
    `**Answer:**`) with something after it: it parts what a heading asks (a task, the table it
    is about) from its answer, as exercises are written."""
    blocks = outline.blocks_between(start, stop)
    for block in blocks[:-1]:  # a label with nothing after it labels nothing
        if block.kind != "paragraph" or block.end - block.start != 1:
            continue
        label, tag = _heading_label(outline.texts.get(block.start, ""))
        if label in _ANSWER_LABELS and label != "a" and not tag:
            return block
    return None
