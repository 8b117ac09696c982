"""How a line of someone's notes asks: question wording, numbering and markers.

Also what the recognisers (app.content.notes.recognise, headings, regions) return: the cards found
and the headings not taken, with why.
"""

import html
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum

Lines = list[tuple[int, str]]

# `Q:`, `Question 3:`, and a numbered `Q2.` (a period only after a number: "Q. …" is no marker);
# a numbered follow-up `追问2：` (a bare `追问：` labels an answer's follow-ups).
# `Q:`, `Q1.`, `Q1.1.`, `Question 3:`, `Q. ` (a dot needs a space after it: `Q.E.D.`)
Q_PREFIX = re.compile(
    r"^(?:(?:Q|问|问题|Question)[ \t]*(?:\d{0,3}[ \t]*[:：]|\d{1,3}(?:[.．]\d{1,3})*[.．])"
    r"|(?:Q|Question)[.．](?=[ \t])"
    r"|追问[ \t]*\d{1,3}[ \t]*[:：.．])[ \t]*(.*)$",
    re.I,
)
# `问题一：` numbers a question as often as a problem an answer goes through
# ("问题一：过期时间难定"): it is no part of the question, but does not say that what follows asks.
_PROBLEM_NUMBER = re.compile(r"^问题[ \t]*[一二三四五六七八九十]{1,3}[ \t]*[:：][ \t]*(?=\S)")
# A number and a space opens numbered text, but not a size or a count (`1 x 1 卷积`, `30 秒`,
# `4 种解决方案`).
_NUMBER = re.compile(
    r"^(?:(\d{1,3})(?:[.．]\d{1,3})*(?:[.、．)）:：][ \t]*"
    r"|[ \t]+(?![xX×*][ \t]*\d|[个种秒倍]|分钟|小时))"
    r"|[(（](\d{1,3})[)）][ \t]*"
    r"|([一二三四五六七八九十]{1,3})[、.．][ \t]*)(?=\S)(.*)$"
)
# House numbering: `1.`, `1、`, `1)`; a dotted `1.1` or bare `1 ` is not the house format's.
HOUSE_NUMBER = re.compile(r"^(\d{1,4})[ \t]*[.、．)）][ \t]*(.*)$")
TAG = re.compile(r"(?:^|[ \t])#(?:card|flashcard|flashcards)\b", re.I)
_ENDS_AS_QUESTION = re.compile(r"[?？][)）\]】”\"'*_`\s]*$")
# Code asks nothing by its own question marks: `` `count(start, step?)` ``, `` `a?.b` ``.
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")


def _ends_as_question(text: str) -> bool:
    return bool(_ENDS_AS_QUESTION.search(_CODE_SPAN.sub("x", text)))


_ASKS = re.compile(
    r"^(?:what|why|how|when|where|which|who|whose|is|are|can|could|does|do|did|should|would|"
    r"will|explain|describe|compare|implement|design|write|define|list|name|give|tell|"
    r"discuss|walk|demonstrate|specify|fix|determine|calculate|prove|solve|predict|"
    r"suggest|summari[sz]e|outline|create|make|true or false|(?:the )?differences? between)\b"
    r"|[?？]\s*\S"
    r"|什么|为什么|为何|如何|怎么|怎样|哪些|哪个|哪种|多少|是否|能否|有没有|是啥|吗[?？]?$|呢[?？]?$"
    r"|^(?:请|简单)?(?:介绍|解释|说说|说一下|谈谈|讲讲|讲一下|简述|描述|手写|对比|比较|列举|"
    r"写出|写一下|推导|证明|画出|列出|手推|分析|详述|阐述|论述)"
    # "实现一个 LRU" asks; "实现方式", "实现原理" name a part of what is explained.
    r"|^(?:请)?实现(?!方式|方法|原理|细节|机制|过程|思路|步骤)"
    # "请说明…", "请给出…的例子", "请使下面的语句生效": a request to the reader (请求: a request)
    r"|^请(?!求)"
    r"|(?:区别|异同|优缺点)[?？]?$",
    re.I,
)
# "学习如何设计大型系统", "了解什么是一致性哈希": what the reader will learn, not a question.
_LEARNS = re.compile(r"^(?:学习|学会|了解|掌握|看看)(?:一下)?(?:如何|怎么|怎样|什么|为什么)")
# A link's target after its text (`](…)`), or an address written out, with what it may hold.
_ADDRESS = re.compile(r"(?<=\])\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)|<?\bhttps?://[^\s<>]*>?")
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
    "相关阅读",
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
    # Forewords, and the halves of a comparison that are no question alone ("联系", "区别").
    "写在前面",
    "写在最前面",
    "序",
    "序言",
    "后记",
    "结语",
    "致谢",
    "foreword",
    "联系",
    "区别",
    "异同",
    "优点",
    "缺点",
    "优缺点",
    "对比",
}
_BOLD_MARKER = re.compile(
    r"^(?:\*\*|__)(Q|问|问题|Question)[ \t]*[:：]?(?:\*\*|__)[ \t]*[:：]?", re.I
)
_TASK_BOX = re.compile(r"^[ \t]*\[[ xX]\][ \t]+")
DOTTED = re.compile(r"^\d{1,3}[.．]\d{1,3}")
BOLD_LINE = re.compile(r"^(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*[:：]?[ \t]*(.*)$")
SEPARATOR = re.compile(r"^[ \t]*\?{1,2}[ \t]*$")
INLINE_CARD = re.compile(r"^(?P<q>.*?\S)[ \t]*:{2,3}[ \t]*(?P<a>\S.*)$")
IDENTIFIER_SCOPE = re.compile(r"[A-Za-z0-9_>)\]]::[A-Za-z_~*&<]")
# A callout's first line as the parse reads it inside its quote: `[!question]- Title`.
CALLOUT = re.compile(r"^\[!(question|faq|help|quiz|card|flashcard)\][+-]?[ \t]*(.*)$", re.I)
NESTED_CALLOUT = re.compile(r"^[ \t]*>[ \t]?\[![A-Za-z-]+\][+-]?[ \t]*(.*)$")
QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")
# `[^<>]` and a summary that stops at the next summary tag: each run is read once, however many
# `<details` or `<summary` a line holds without their `>` or their closing tag.
DETAILS_OPEN = re.compile(r"<details\b[^<>]*>", re.I)
DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
# An HTML comment, or one left open to the end of the text: what it holds is never shown.
COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
SUMMARY = re.compile(r"<summary\b[^<>]*>((?:(?!</?summary\b).)*?)</summary\s*>", re.I | re.S)
TAGS = re.compile(r"<[^<>\n]+>")
GENERIC_SUMMARY = re.compile(
    r"^(?:点击)?(?:查看|显示|展开)?(?:参考)?(?:答案|解答|解析|回答|详情|详解)?$"
    r"|^(?:show |view |see |click (?:to|for) )?(?:the )?(?:answer|solution|details|explanation)s?$",
    re.I,
)
_LABEL_WORDS = re.compile(
    r"(?:click(?:here)?(?:to|for)?)?(?:show|view|see|reveal|expand|toggle|open)?(?:the)?"
    r"(?:answers?|solutions?|details|explanations?|hints?|reference)?"
    r"|(?:点击)?(?:查看|显示|展开|收起)?(?:参考)?(?:答案|解答|解析|回答|详情|详解|提示)?(?:解析)?"
)


def is_fold_label(text: str) -> bool:
    """Whether a `<summary>` only labels its fold ("💡 **Show Answer**", "点击展开", "答案："),
    or shows nothing at all (`<summary>&nbsp;</summary>`): the fold is the answer."""
    kept = "".join(
        char
        for char in unicodedata.normalize("NFKC", html.unescape(text)).casefold()
        if unicodedata.category(char)[0] in "LN"  # letters and digits: no marks, emoji, spaces
    )
    return len(kept) <= 40 and _LABEL_WORDS.fullmatch(kept) is not None


# A fold that hides something else than an answer: "Click to expand the reading list".
FOLD = re.compile(r"^\s*(?:click|expand|show|hide|view|see|点击|展开|查看|显示|隐藏)", re.I)
SENTENCE_END = re.compile(r"[。.!！?？:：;；,，、)）]$")


class Syntax(StrEnum):
    """Each way of writing a card that a recogniser understands (stored with every card)."""

    HOUSE = "house"
    QUESTION_HEADING = "question-heading"
    NUMBERED_HEADING = "numbered-heading"
    TOPIC_HEADING = "topic-heading"  # a topic note's heading (app.content.notes.topics)
    LABELLED_HEADINGS = "labelled-headings"
    FILE_NAME = "file-name"
    HEADING = "heading"
    TITLE = "title"
    CONTENTS = "contents"
    SECTION_LINE = "section-line"
    DETAILS = "details"
    CALLOUT = "callout"
    QUESTION_TABLE = "question-table"
    LIST_QUESTION = "list-question"
    INLINE_SEPARATOR = "inline-separator"
    QA_LINES = "qa-lines"
    NUMBERED_LINE = "numbered-line"
    BOLD_QUESTION = "bold-question"
    CLOZE = "cloze"  # not a recogniser: app.content.notes.cloze, after them


class Reason(StrEnum):
    """Why a heading or line is not a card."""

    SECTION = "section"
    INSIDE_ANSWER = "inside-answer"
    NOT_A_QUESTION = "not-a-question"
    TITLE = "title"
    CONTENTS = "contents"
    NO_ANSWER = "no-answer"


class Kind(StrEnum):
    """What a heading is, once the headings around it are known."""

    CARD = "card"
    SECTION = "section"
    NOT_A_QUESTION = "not-a-question"
    LABELLED = "labelled"
    CONTENTS = "contents"
    PART = "part"  # a section of the answer of the HTML question heading above it


@dataclass
class Found:
    """A card as found: its question and the lines of everything that answers it."""

    question: str
    line: int  # 0-based body line of the question
    explicit_id: str | None
    body: Lines
    section: str
    recogniser: Syntax
    # What the question asks about, between it and the fold that answers it (a code block under
    # "What does this print?"): shown with the question. None until such a fold is read.
    stem: Lines | None = None


@dataclass
class NotTaken:
    line: int
    text: str
    reason: Reason


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


# A pictograph marking a line (`✅`, `❓`, `👉`), with its variation selector, joiners and spaces.
_HEAD = {"So", "Mn", "Cf", "Zs"}


# Modifier symbols Markdown writes with: a closing code mark ("整流线性单元 `ReLU`") and `^`.
_KEPT_TAIL = frozenset("`^")


def _trim_tail(text: str) -> str:
    """`text` without trailing emoji, marks and spaces ("What is X? 👶" asks as "What is X?")."""
    end = len(text)
    while end and text[end - 1] not in _KEPT_TAIL and unicodedata.category(text[end - 1]) in _TAIL:
        end -= 1
    return text[:end]


# Emphasis around a whole line, its markers as Markdown reads them: a run of stars (or
# underscores) followed by no space opens, one preceded by none closes; `** x**` is text. A
# colon or question mark after it is the line's (`**为什么要正则化**？`).
_WRAPPED = re.compile(
    r"(?P<run>\*{1,3}|_{1,3})(?![\s*_])(?P<inner>.+?)(?<![\s*_])(?P=run)(?P<colon>[:：?？]?)"
)


def unwrap(text: str) -> str:
    """A heading's text without emphasis around all of it (`**1.1 为什么…？**`) and without
    the pictographs a writer marks it with (`✅`, `👉`)."""
    text = _trim_head(_trim_tail(text.strip()))
    match = _WRAPPED.fullmatch(text)
    return _trim_head((match.group("inner") + match.group("colon")).strip()) if match else text


def _trim_head(text: str) -> str:
    """`text` without leading pictographs and what joins them (`✅GET和POST的区别`)."""
    start = 0
    while start < len(text) and unicodedata.category(text[start]) in _HEAD:
        start += 1
    return text[start:] if start and unicodedata.category(text[0]) == "So" else text


def question_text(text: str) -> tuple[str, bool]:
    """The question in a heading or line, and whether it says outright that it is one."""
    # `- [x] **求正数平方根**`: a task list's box says whether the writer has done it.
    text = _BOLD_MARKER.sub(r"\1:", unwrap(_TASK_BOX.sub("", text, count=1)), count=1)
    tagged = bool(TAG.search(text))
    if tagged:
        text = TAG.sub("", text).strip()
    if match := Q_PREFIX.match(text):
        return match.group(1).strip(), True
    text = _PROBLEM_NUMBER.sub("", text, count=1)
    if number := _NUMBER.match(text):
        # `2. **How do you disable caching?**`, `三、问题一：…`
        text = _PROBLEM_NUMBER.sub("", unwrap(number.group(4)), count=1)
        if match := Q_PREFIX.match(text):
            return match.group(1).strip(), True
    return text, tagged or _ends_as_question(text)


def numbering(text: str) -> int | None:
    """The number a heading or line starts with (`3.` → 3, `1.2` → 1, `三、` → 3), or None."""
    match = _NUMBER.match(unwrap(text))
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
    works" as a section name is rarer than the question it looks like. A Chinese sentence that
    ends in `。` asks only by its first words ("如何…。"), not by a question word inside it.
    """
    # A link's address asks nothing: `[Playlists](https://…/playlists?list=…)`; nor does code.
    # A word stands in for the code, so that what follows it does not open the line.
    text = _CODE_SPAN.sub("x", _ADDRESS.sub("", text)).strip()
    if _ENDS_AS_QUESTION.search(text):
        return True
    if _LEARNS.match(text):
        return False
    # A sentence ending in `。` states: "研究如何降低泛化误差。" only tells what is studied.
    return bool(_ASKS.match(text) if text.endswith("。") else _ASKS.search(text))


# A short question that names its subject only by a pronoun ("What is it?", "Why do we use
# it?", "它有什么用？"): under a question, one of its parts, not a question of its own.
_PRONOUN = re.compile(r"\b(?:[Ii]ts?|[Tt]hey|[Tt]hem|[Tt]heir)\b|它")  # not "IT"
_SHORT_WORDS = 6
_SHORT_CHARS = 12


def leans_on_parent(text: str) -> bool:
    """Whether a question names what it asks about only by a pronoun, in a few words."""
    words = question_text(text)[0]
    if not _PRONOUN.search(words):
        return False
    cjk = sum(1 for char in words if unicodedata.east_asian_width(char) == "W")
    return len(words.split()) <= _SHORT_WORDS if cjk < 2 else cjk <= _SHORT_CHARS


def generic_question(text: str) -> bool:
    key = unicodedata.normalize("NFKC", text).casefold().strip(" :：.。")
    return key in _SECTION_WORDS


# `**[⬆ Back to Top](#table-of-contents)**` after each answer: a way around the page, not
# part of the answer.
_NAVIGATION = re.compile(r"^[ \t]*(?:\*\*|__)?\[([^\]\n]*)\]\(#([^)\s]*)\)(?:\*\*|__)?[ \t]*$")
_NAVIGATION_WORDS = re.compile(r"⬆|↑|top|contents|toc|目录|顶部|返回", re.I)


def is_navigation(line: str) -> bool:
    """Whether a line is only a link back to the top or to the note's table of contents."""
    match = _NAVIGATION.match(line)
    return match is not None and bool(_NAVIGATION_WORDS.search(match.group(1) + match.group(2)))
