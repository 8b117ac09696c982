"""Find the questions and answers in a note as its author wrote them.

Each recogniser claims the parts of a note's outline it understands: question headings (at any
level, by `?`, `Q:` or numbering), then, in the text no heading card holds, `Q:` lines, numbered
lines, bold questions, `question::answer`, a `?` line between question and answer, `<details>`,
question callouts and list items that ask. A note's front matter `style:` chooses the house
format's fixed rules instead (`question`: `Q:` headings at levels 2–4; `numbered`: numbered
headings at levels 2–3).
"""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.content.outline import Block, Heading, Outline

Lines = list[tuple[int, str]]

_Q_PREFIX = re.compile(r"^(?:Q|问|问题|Question)[ \t]*\d{0,3}[ \t]*[:：][ \t]*(.*)$", re.I)
_NUMBER = re.compile(
    r"^(?:(\d{1,3})(?:[.．]\d{1,3})*(?:[.、．)）:：][ \t]*|[ \t]+)"
    r"|[(（](\d{1,3})[)）][ \t]*"
    r"|([一二三四五六七八九十]{1,3})[、.．][ \t]*)(?=\S)(.*)$"
)
# House numbering: `1.`, `1、`, `1)`; a dotted `1.1` or bare `1 ` is not the house format's.
_HOUSE_NUMBER = re.compile(r"^(\d{1,4})[ \t]*[.、．)）][ \t]*(.*)$")
_TAG = re.compile(r"(?:^|[ \t])#(?:card|flashcard|flashcards)\b", re.I)
_ENDS_AS_QUESTION = re.compile(r"[?？][)）\]】”\"'*_`\s]*$")
_ASKS = re.compile(
    r"^(?:what|why|how|when|where|which|who|whose|is|are|can|could|does|do|did|should|would|"
    r"will|explain|describe|compare|implement|design|write|define|list|name|give|tell|"
    r"discuss|walk|demonstrate|specify|fix|determine|calculate|prove|solve|predict|"
    r"suggest|summari[sz]e|outline|true or false)\b"
    r"|[?？]\s*\S"
    r"|什么|为什么|为何|如何|怎么|怎样|哪些|哪个|哪种|多少|是否|能否|有没有|是啥|吗[?？]?$|呢[?？]?$"
    r"|^(?:请|简单)?(?:介绍|解释|说说|说一下|谈谈|讲讲|讲一下|简述|描述|实现|手写|对比|比较|列举|"
    r"写出|写一下|推导|证明|画出|列出|手推|分析|详述|阐述|论述)"
    r"|(?:区别|异同|优缺点)[?？]?$",
    re.I,
)
_SECTION_WORDS = {
    "概述",
    "总结",
    "小结",
    "简介",
    "介绍",
    "前言",
    "引言",
    "目录",
    "参考",
    "参考资料",
    "参考文献",
    "附录",
    "资料",
    "链接",
    "相关链接",
    "延伸阅读",
    "扩展阅读",
    "更新日志",
    "说明",
    "背景",
    "其他",
    "其它",
    "备注",
    "todo",
    "overview",
    "summary",
    "introduction",
    "intro",
    "references",
    "reference",
    "resources",
    "links",
    "further reading",
    "conclusion",
    "background",
    "appendix",
    "contents",
    "table of contents",
    "toc",
    "notes",
    "changelog",
    "preface",
    "acknowledgements",
    "license",
    "misc",
    "other",
    "others",
}
_BOLD_MARKER = re.compile(
    r"^(?:\*\*|__)(Q|问|问题|Question)[ \t]*[:：]?(?:\*\*|__)[ \t]*[:：]?", re.I
)
_DOTTED = re.compile(r"^\d{1,3}[.．]\d{1,3}")
_BOLD_LINE = re.compile(r"^(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*[:：]?[ \t]*(.*)$")
_SEPARATOR = re.compile(r"^[ \t]*\?{1,2}[ \t]*$")
_INLINE_CARD = re.compile(r"^(?P<q>.*?\S)[ \t]*:{2,3}[ \t]*(?P<a>\S.*)$")
_IDENTIFIER_SCOPE = re.compile(r"[A-Za-z0-9_>)\]]::[A-Za-z_~*&<]")
_CALLOUT = re.compile(
    r"^[ \t]*>[ \t]?\[!(question|faq|help|quiz|card|flashcard)\][+-]?[ \t]*(.*)$", re.I
)
_NESTED_CALLOUT = re.compile(r"^[ \t]*>[ \t]?\[![A-Za-z-]+\][+-]?[ \t]*(.*)$")
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")
_DETAILS_OPEN = re.compile(r"<details\b[^>]*>", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
_SUMMARY = re.compile(r"<summary\b[^>]*>(.*?)</summary\s*>", re.I | re.S)
_TAGS = re.compile(r"<[^>\n]+>")
_GENERIC_SUMMARY = re.compile(
    r"^(?:点击)?(?:查看|显示|展开)?(?:参考)?(?:答案|解答|解析|回答|详情|详解)?$"
    r"|^(?:show |view |see |click (?:to|for) )?(?:the )?(?:answer|solution|details|explanation)s?$",
    re.I,
)
# A fold that hides something else than an answer: "Click to expand the reading list".
_FOLD = re.compile(r"^\s*(?:click|expand|show|view|see|点击|展开|查看|显示)", re.I)
_SENTENCE_END = re.compile(r"[。.!！?？:：;；,，、)）]$")


@dataclass
class Found:
    """A card as found: its question and the lines of everything that answers it."""

    question: str
    line: int  # 0-based body line of the question
    explicit_id: str | None
    body: Lines
    section: str
    recogniser: str


@dataclass
class NotTaken:
    line: int
    text: str
    reason: str  # section | inside-answer | not-a-question | title


@dataclass
class Recognised:
    cards: list[Found] = field(default_factory=list)
    not_taken: list[NotTaken] = field(default_factory=list)
    intro: Lines = field(default_factory=list)
    title: str = ""
    # No Markdown headings at all: line breaks are the author's, not wrapping.
    plain: bool = False


# Emoji and other pictographs, modifiers, spaces, marks and invisible characters; a `$` or `+`
# (currency and math symbols) is text.
_TAIL = {"So", "Sk", "Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me", "Mc"}


def _trim_tail(text: str) -> str:
    """`text` without trailing emoji, marks and spaces ("What is X? 👶" asks as "What is X?")."""
    end = len(text)
    while end and unicodedata.category(text[end - 1]) in _TAIL:
        end -= 1
    return text[:end]


def _unwrap(text: str) -> str:
    """A heading's text without emphasis around all of it (`**1.1 为什么…？**`)."""
    text = _trim_tail(text.strip())
    match = re.fullmatch(r"(\*{1,3}|_{1,3})(.+?)\1([:：]?)", text)
    return (match.group(2) + match.group(3)).strip() if match else text


def question_text(text: str) -> tuple[str, bool]:
    """The question in a heading or line, and whether it says outright that it is one."""
    text = _BOLD_MARKER.sub(r"\1:", _unwrap(text), count=1)
    tagged = bool(_TAG.search(text))
    if tagged:
        text = _TAG.sub("", text).strip()
    if match := _Q_PREFIX.match(text):
        return match.group(1).strip(), True
    if number := _NUMBER.match(text):
        text = number.group(4).strip()
        if match := _Q_PREFIX.match(text):
            return match.group(1).strip(), True
    return text, tagged or bool(_ENDS_AS_QUESTION.search(text))


def numbering(text: str) -> int | None:
    """The number a heading or line starts with (`3.` → 3, `1.2` → 1, `三、` → 3), or None."""
    match = _NUMBER.match(_unwrap(text))
    if not match:
        return None
    digits = match.group(1) or match.group(2)
    if digits:
        return int(digits)
    return _chinese_number(match.group(3))


def _chinese_number(text: str) -> int:
    values = dict(zip("一二三四五六七八九", range(1, 10), strict=True))
    if "十" not in text:
        return values.get(text, 0)
    tens, _, ones = text.partition("十")
    return values.get(tens, 1) * 10 + values.get(ones, 0)


def asks(text: str) -> bool:
    """Whether `text` reads as a question or a task ("Explain…", "为什么…", "…吗").

    An English word counts only at the start: a title such as "Why Rust" asks; "Rust: how it
    works" as a section name is rarer than the question it looks like.
    """
    text = text.strip()
    return bool(_ENDS_AS_QUESTION.search(text) or _ASKS.search(text))


def _generic(text: str) -> bool:
    key = unicodedata.normalize("NFKC", text).casefold().strip(" :：.。")
    return key in _SECTION_WORDS


def recognise(outline: Outline, *, style: str | None, house: bool = False) -> Recognised:
    """Find the cards of a note; `style` is the front matter's, None to decide from structure.

    `house`: the note is a deck of the house layout, where numbered headings in one flat run
    are questions however they are worded.
    """
    if style in ("question", "numbered"):
        return _house(outline, style)
    return _general(outline, house)


# --- the house format ---------------------------------------------------------------------


def _house(outline: Outline, style: str) -> Recognised:
    found = Recognised()
    lines = outline.lines
    marks: dict[int, tuple[Heading, str | None]] = {}
    for heading in outline.headings:
        card = _house_question(style, heading)
        marks[heading.line] = (heading, card)
    section = ""
    current: Found | None = None
    skip_until = -1
    for index, text in enumerate(lines):
        if index < skip_until:
            continue
        if index in marks:
            heading, question = marks[index]
            skip_until = heading.end
            if question is not None:
                current = Found(question, index, heading.explicit_id, [], section, "house")
                found.cards.append(current)
                continue
            if heading.level <= 2:
                section = heading.text
                current = None
                found.not_taken.append(NotTaken(index, heading.text, "section"))
                continue
            reason = "inside-answer" if current else "not-a-question"
            found.not_taken.append(NotTaken(index, heading.text, reason))
            held = [(i, lines[i]) for i in range(index, heading.end)]
            if current is not None:
                current.body += held
            elif not section:
                found.intro += held
            continue
        if current is None:
            if not section:
                found.intro.append((index, text))
            continue
        current.body.append((index, text))
    return found


def _house_question(style: str, heading: Heading) -> str | None:
    if style == "question" and 2 <= heading.level <= 4:
        match = _Q_PREFIX.match(heading.text)
        return match.group(1).strip() if match else None
    if style == "numbered" and heading.level in (2, 3):
        match = _HOUSE_NUMBER.match(heading.text)
        return match.group(2).strip() if match else None
    return None


# --- headings as their author wrote them ----------------------------------------------------


def _general(outline: Outline, house: bool) -> Recognised:
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
        body = [(i, _without_answer_fold(t)) for i, t in _lines(outline, heading.end, stop)]
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
        region = _region(outline, start, end, section)
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
_LABEL_TAG = re.compile(r"^(.*?)\s*(?:[(（]([^)）]*)[)）])?\s*[:：]?$")


def _heading_label(text: str) -> tuple[str, str]:
    match = _LABEL_TAG.match(_unwrap(text))
    name, tag = (match.group(1), match.group(2) or "") if match else (text, "")
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
            _QUOTE.sub("", outline.lines[i]).strip() for i in range(question.end, stop)
        ).strip(" -")
        body = _lines(outline, answer.end, answer.stop)
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
        lead = _BOLD_LINE.match(text.strip()) if previous_blank and text[:1].strip() else None
        bold = _bold_question(text) if lead else None
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
    tagged = any(_TAG.search(h.text) for h in headings)
    asked = [
        explicit[h.index]
        or (not tagged and numbering(h.text) is None and asks(h.text) and not _generic(h.text))
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
            _HOUSE_NUMBER.match(_unwrap(h.text))
            and not re.match(r"^\d+[.．]\d", _unwrap(h.text))
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
            if _generic(question_text(heading.text)[0]) or not _has_text(
                outline, heading.end, heading.stop
            ):
                continue
            dotted = book and _DOTTED.match(_unwrap(heading.text))
            if not asks(question_text(heading.text)[0]) and (sections or not group_asks):
                if not dotted:
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


def _lines(outline: Outline, start: int, end: int) -> Lines:
    return [(i, outline.lines[i]) for i in range(start, end)]


# --- the text between headings -------------------------------------------------------------


@dataclass
class _Builder:
    found: Found
    open: bool = True


def _region(outline: Outline, start: int, end: int, section: str) -> Recognised:
    """Cards written without headings in lines `start`…`end` of the note."""
    out = Recognised()
    lines = outline.lines
    blocks = outline.blocks_between(start, end)
    openers = _numbered_openers(outline, blocks)
    current: Found | None = None
    standalone_title = not outline.headings and blocks and _short_line(outline, blocks[0])

    def open_card(question: str, line: int, recogniser: str, explicit: str | None = None) -> Found:
        card = Found(question, line, explicit, [], section, recogniser)
        out.cards.append(card)
        return card

    def take(index: int, text: str | None = None) -> None:
        if current is not None:
            current.body.append((index, lines[index] if text is None else text))
        else:
            out.intro.append((index, lines[index] if text is None else text))

    skip_until = start
    for position, block in enumerate(blocks):
        if block.start < skip_until:
            continue
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        if position == 0 and standalone_title and following and start == 0:
            out.title = lines[block.start].strip()
            out.not_taken.append(NotTaken(block.start, out.title, "title"))
            continue
        if block.kind == "html_block" and _DETAILS_OPEN.search(lines[block.start]):
            stop = _details_end(lines, block.start, end)
            summary, answer = _details(lines, block.start, stop)
            if summary and not _GENERIC_SUMMARY.match(summary.strip()) and not _FOLD.match(summary):
                card = open_card(summary, block.start, "details")
                card.body += answer
                current = None
            elif current is not None:
                current.body += answer
            elif out.intro and (question := _last_paragraph(out.intro)):
                # "1. What is X?" then <details><summary>Answer</summary>…
                index, asked = question
                out.intro = [(i, t) for i, t in out.intro if i < index]
                text, _ = question_text(_strip_marker(asked))
                out.cards.append(Found(text, index, None, answer, section, "details"))
            skip_until = stop
            continue
        if block.kind == "blockquote" and (callout := _CALLOUT.match(lines[block.start])):
            question, body = _callout(lines, block, callout.group(2))
            if question:
                out.cards.append(Found(question, block.start, None, body, section, "callout"))
                current = None
                continue
        if block.kind in ("bullet_list", "ordered_list"):
            for item in block.items:
                first = _strip_marker(lines[item.start])
                if item.start in openers:
                    current = open_card(_opener_question(first), item.start, "numbered-line")
                    current.body += _dedent(outline, item.start + 1, item.end, item.indent)
                    continue
                question, says = question_text(first)
                rest = _dedent(outline, item.start + 1, item.end, item.indent)
                if current is None and says and any(t.strip() for _, t in rest):
                    out.cards.append(
                        Found(question, item.start, None, rest, section, "list-question")
                    )
                    continue
                if current is None and (inline := _inline_card(first)):
                    out.cards.append(
                        Found(
                            inline[0],
                            item.start,
                            None,
                            [(item.start, inline[1])],
                            section,
                            "inline-separator",
                        )
                    )
                    continue
                for index in range(item.start, item.end):
                    if index in openers:
                        current = open_card(_opener_question(lines[index]), index, "numbered-line")
                    else:
                        take(index)
            continue
        if block.kind == "paragraph":
            paragraph = range(block.start, block.end)
            if _is_section_line(outline, block, following, openers):
                section = lines[block.start].strip()
                out.not_taken.append(NotTaken(block.start, section, "section"))
                current = None
                continue
            separator = next((i for i in paragraph if _SEPARATOR.match(lines[i])), None)
            if separator is not None and separator > block.start:
                question = " ".join(lines[i].strip() for i in range(block.start, separator))
                body = _lines(outline, separator + 1, block.end)
                out.cards.append(
                    Found(question, block.start, None, body, section, "inline-separator")
                )
                current = None
                continue
            for index in paragraph:
                text = lines[index]
                if match := _Q_PREFIX.match(_unbold(text)[0]):
                    question, explicit = _split_id(match.group(1))
                    rest = _unbold(text)[1]
                    current = open_card(question, index, "qa-lines", explicit)
                    if rest:
                        current.body.append((index, rest))
                    continue
                if index in openers:
                    current = open_card(_opener_question(text), index, "numbered-line")
                    continue
                if index == block.start and (bold := _bold_question(text) or _bold_task(text)):
                    current = open_card(bold[0], index, "bold-question")
                    if bold[1]:
                        current.body.append((index, bold[1]))
                    continue
                if current is None and (inline := _inline_card(text)):
                    out.cards.append(
                        Found(
                            inline[0],
                            index,
                            None,
                            [(index, inline[1])],
                            section,
                            "inline-separator",
                        )
                    )
                    continue
                take(index)
            continue
        for index in range(block.start, block.end):
            take(index)
    # Blank lines between blocks belong with the text around them.
    for card in out.cards:
        card.body = _fill_gaps(card.body, lines)
    return out


def _numbered_openers(outline: Outline, blocks: list[Block]) -> set[int]:
    """Lines that open a card by their number: a run 1, 2, 3… with an answer between each."""
    lines = outline.lines
    candidates: list[tuple[int, int]] = []
    for block in blocks:
        # A numbered line right under a list item is that item's lazy continuation to
        # markdown-it, but to the author it is the next question.
        if block.kind not in ("paragraph", "bullet_list", "ordered_list"):
            continue
        # Items of one Markdown list are a list, unless each asks something.
        listed = {item.start for item in block.items} if len(block.items) > 1 else set()
        for index in range(block.start, block.end):
            if lines[index][:1].isspace() or not (n := _line_number(lines[index])):
                continue
            if index in listed and not asks(_strip_marker(lines[index])):
                continue
            candidates.append((index, n))
    if len(candidates) < 2:
        return set()
    taken = {index for index, _ in candidates}
    best: list[list[int]] = []
    for k, (index, n) in enumerate(candidates):
        chain = [index]
        for j in range(k - 1, -1, -1):
            previous, m = candidates[j]
            if m == n - 1 and _answer_between(lines, previous, index, taken):
                chain = [*best[j], index]
                break
        best.append(chain)
    longest = max(best, key=len)
    if len(longest) < 2:
        return set()
    texts = [lines[i] for i in longest]
    asking = sum(asks(_strip_marker(t)) for t in texts)
    if outline.headings:
        # Under headings, a numbered run is a list of points unless its lines ask.
        return set(longest) if 2 * asking >= len(texts) else set()
    compact = all(re.match(r"^\d{1,3}[.、．)）](?=\S)", t) for t in texts)
    if len(longest) >= 3 or compact or asking:
        return set(longest)
    return set()


def _line_number(text: str) -> int | None:
    match = re.match(r"^(\d{1,3})[.、．)）]", text)
    if match and not re.match(r"^\d{1,3}[.．]\d", text):
        return int(match.group(1))
    return None


def _answer_between(lines: list[str], first: int, second: int, taken: set[int]) -> bool:
    return any(lines[i].strip() and i not in taken for i in range(first + 1, second))


def _opener_question(text: str) -> str:
    return question_text(_strip_marker(text))[0]


def _strip_marker(text: str) -> str:
    text = text.strip()
    text = re.sub(r"^(?:[-*+]|\d{1,3}[.)、．）])[ \t]*(?:\[[ xX]\][ \t]+)?", "", text, count=1)
    return text.strip()


def _unbold(text: str) -> tuple[str, str]:
    """(`Q: …` inside a bold lead, the text after it) or (the line, "")."""
    match = _BOLD_LINE.match(text.strip())
    if match and _Q_PREFIX.match(match.group(1).strip()):
        return match.group(1).strip(), match.group(2).strip()
    if match and match.group(1).strip().rstrip("：:") in ("Q", "问", "问题", "Question"):
        return f"Q: {match.group(2)}", ""
    return text.strip(), ""


def _bold_question(text: str) -> tuple[str, str] | None:
    match = _BOLD_LINE.match(text.strip())
    if not match:
        # "**2.1 …？" with its closing ** forgotten still asks in bold.
        lead = text.strip()
        if lead.startswith(("**", "__")) and lead[:2] not in lead[2:]:
            question, says = question_text(lead[2:])
            return (question, "") if says else None
        return None
    inner = match.group(1).strip()
    if re.fullmatch(r"(?:Q|问题?)?\d{1,3}[.)）、．]?", inner) and match.group(2).strip():
        # "**1)** The number of active ads.": a numbered task, its text after the number.
        return match.group(2).strip(), ""
    question, says = question_text(inner)
    if says or (numbering(inner) is not None and asks(question)):
        return question, match.group(2).strip()
    return None


def _bold_task(text: str) -> tuple[str, str] | None:
    """A numbered bold lead and its line ("**1) FizzBuzz.** Print numbers…"): a task, whole."""
    match = _BOLD_LINE.match(text.strip())
    if not match or numbering(match.group(1)) is None:
        return None
    lead = question_text(match.group(1))[0]
    return " ".join(part for part in (lead, match.group(2).strip()) if part), ""


def _inline_card(text: str) -> tuple[str, str] | None:
    if "::" not in text or "`" in text or _IDENTIFIER_SCOPE.search(text):
        return None
    match = _INLINE_CARD.match(_strip_marker(text))
    if not match or "://" in match.group("q") or len(match.group("q")) < 2:
        return None
    return match.group("q").strip(), match.group("a").strip()


def _split_id(text: str) -> tuple[str, str | None]:
    match = re.search(r"[ \t]*\{#([^}\s]*)\}[ \t]*$", text)
    if match:
        return text[: match.start()].strip(), match.group(1)
    return text.strip(), None


def _is_section_line(
    outline: Outline, block: Block, following: Block | None, openers: set[int]
) -> bool:
    """A short line standing alone before a question, in notes without headings (a section)."""
    if outline.headings or following is None or following.kind != "paragraph":
        return False
    if not _short_line(outline, block):
        return False
    first = outline.lines[following.start]
    return bool(_Q_PREFIX.match(_unbold(first)[0])) or following.start in openers


def _short_line(outline: Outline, block: Block) -> bool:
    if block.kind != "paragraph" or block.end - block.start != 1:
        return False
    text = outline.lines[block.start].strip()
    return (
        0 < len(text) <= 40
        and not _SENTENCE_END.search(text)
        and not any(mark in text for mark in ("$", "[", "|", "://", "`"))
        and not _Q_PREFIX.match(text)
        and _line_number(text) is None
    )


def _details_end(lines: list[str], start: int, end: int) -> int:
    depth = 0
    for index in range(start, end):
        depth += len(_DETAILS_OPEN.findall(lines[index])) - len(
            _DETAILS_CLOSE.findall(lines[index])
        )
        if depth <= 0:
            return index + 1
    return end


def _details(lines: list[str], start: int, stop: int) -> tuple[str, Lines]:
    """The summary of a <details> block and its content lines, the wrapper tags removed."""
    text = "\n".join(lines[start:stop])
    summary_match = _SUMMARY.search(text)
    summary = _TAGS.sub("", summary_match.group(1)).strip() if summary_match else ""
    body: Lines = []
    summary_done = summary_match is None
    for index in range(start, stop):
        line = lines[index]
        if not summary_done:
            if re.search(r"</summary\s*>", line, re.I):
                summary_done = True
                line = re.split(r"</summary\s*>", line, maxsplit=1, flags=re.I)[1]
            else:
                continue
        line = _DETAILS_OPEN.sub("", line)
        line = _DETAILS_CLOSE.sub("", line)
        body.append((index, line))
    return summary, body


def _without_answer_fold(line: str) -> str:
    """A line without a `<details><summary>Answer</summary>` fold: on a card it is shown anyway."""
    if "<details" not in line and "</details" not in line and "<summary" not in line:
        return line
    summary = _SUMMARY.search(line)
    if summary and not _GENERIC_SUMMARY.match(_TAGS.sub("", summary.group(1)).strip()):
        return line
    return _SUMMARY.sub("", _DETAILS_CLOSE.sub("", _DETAILS_OPEN.sub("", line)))


def _last_paragraph(intro: Lines) -> tuple[int, str] | None:
    """The last non-blank intro line, when it asks a question (a question above <details>)."""
    for index, text in reversed(intro):
        if text.strip():
            return (index, text) if question_text(_strip_marker(text))[1] else None
    return None


def _callout(lines: list[str], block: Block, title: str) -> tuple[str, Lines]:
    body = [(i, _QUOTE.sub("", lines[i], count=1)) for i in range(block.start + 1, block.end)]
    question = title.strip()
    if not question:
        first = next(((i, t) for i, t in body if t.strip()), None)
        if first is None:
            return "", []
        question = first[1].strip()
        body = [(i, t) for i, t in body if i > first[0]]
    if body and (nested := _NESTED_CALLOUT.match(body[0][1])):
        # > [!question] Q / > > [!success] Answer: the inner callout is the answer.
        lead = nested.group(1).strip()
        rest = [(i, _QUOTE.sub("", t, count=1)) for i, t in body[1:]]
        body = ([(body[0][0], lead)] if lead and not _GENERIC_SUMMARY.match(lead) else []) + rest
    return question, body


def _dedent(outline: Outline, start: int, end: int, indent: int) -> Lines:
    out: Lines = []
    for index in range(start, end):
        text = outline.lines[index]
        width = len(text) - len(text.lstrip(" "))
        out.append((index, text[min(width, indent) :]))
    return out


def _fill_gaps(body: Lines, lines: list[str]) -> Lines:
    """Body lines in order, with the blank lines between two of them restored."""
    if not body:
        return body
    out: Lines = [body[0]]
    for index, text in body[1:]:
        previous = out[-1][0]
        out += [(i, "") for i in range(previous + 1, index) if not lines[i].strip()]
        out.append((index, text))
    return out
