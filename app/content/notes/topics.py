"""Topic notes: a study outline whose headings name topics, each topic a prompt card.

Some notes are written to be read by their table of contents: `- [降低过拟合风险的方法](#…)`
entries naming nearly every heading, and under each heading its explanation, few headings
asking. There a heading such as "降低过拟合风险的方法" is what the learner is asked to explain,
its text the answer. Elsewhere a heading that does not ask is a section or a part of an answer
(app.content.notes.kinds), so this reading is kept to notes that show all of these signs.
"""

import re
import unicodedata
import urllib.parse

from markdown_it.token import Token

from app.content.notes.outline import Block, Heading, Outline
from app.content.notes.recognisers import recognise_region
from app.content.notes.recognisers.contents import is_contents
from app.content.notes.wording import (
    COMMENT,
    TAG,
    Kind,
    Syntax,
    asks,
    generic_question,
    question_text,
)

# What a sub-heading names when it only labels a part of the topic above it: "动机", "意义",
# "基本原理" under "Batch Normalization"; asked alone, none of them can be answered.
_PART_WORDS = frozenset(
    {
        "动机",
        "意义",
        "原理",
        "基本原理",
        "思想",
        "基本思想",
        "核心思想",
        "作用",
        "用途",
        "特点",
        "定义",
        "公式",
        "基本公式",
        "推导",
        "实现",
        "代码",
        "代码实现",
        "示例",
        "例子",
        "举例",
        "步骤",
        "流程",
        "优势",
        "劣势",
        "局限",
        "局限性",
        "注意",
        "注意事项",
        "应用",
        "应用场景",
    }
)
# "Keras 实现", "Theano 中的实现": the topic above done in a named tool, not a topic.
_TOOL_PART = re.compile(r"^[A-Za-z][\w.+#/ -]*?[ \t]*(?:中的|的)?(?:实现|用法|示例|代码)$")
# Blocks that show rather than explain: a formula as an image, a code listing, a quote.
_SHOWING = frozenset({"fence", "code_block", "math_block", "html_block", "blockquote"})
_LISTS = ("bullet_list", "ordered_list")


def topic_cards(outline: Outline, kinds: list[Kind], title: Heading | None) -> set[int]:
    """Make each topic of a topic note a card; return the headings made cards.

    A note is read so when a table of contents of anchor links names two thirds of its
    headings and fewer than half of them ask: the author navigates it by topic. Its topics
    must also hold no questions of another syntax: headings over `<details>` folds or over
    `**What is…?**` lines are the sections of a list of questions, not topics.
    """
    anchors = _anchors(outline)
    judged = [h for h in outline.headings if h is not title and kinds[h.index] != Kind.CONTENTS]
    # Three headings or fewer are too few to tell an outline from a short list of questions.
    if not anchors or len(judged) < 4 or any(TAG.search(h.text) for h in judged):
        return set()
    named = [h for h in judged if _key(h.text) in anchors]
    asking = [h for h in judged if _asks(h.text)]
    if 3 * len(named) < 2 * len(judged) or 2 * len(asking) >= len(judged):
        return set()
    trial = list(kinds)
    promoted: set[int] = set()
    holding = 0
    for heading in named:
        if not _topic(heading, outline, trial, promoted):
            continue
        if _holds_cards(outline, heading):
            holding += 1
            continue
        promoted.add(heading.index)
        trial[heading.index] = Kind.CARD
    # Headings whose text holds questions written another way are sections of a list of
    # questions: where a quarter of them do, the note is no topic note after all.
    if 4 * holding > len(promoted) + holding:
        return set()
    kinds[:] = trial
    return promoted


def _topic(heading: Heading, outline: Outline, kinds: list[Kind], promoted: set[int]) -> bool:
    """Whether `heading` names a topic of its own: not a card, nor a part of one's answer."""
    if kinds[heading.index] not in (Kind.NOT_A_QUESTION, Kind.SECTION):
        return False
    words = question_text(heading.text)[0]
    if generic_question(words) or _part_words(words) or _asks(heading.text):
        return False
    owner = _card_above(heading, kinds)
    # Under a question, a heading before the next card is part of its answer ("各优化算法的
    # 可视化" under "如何选择这些优化算法？"); under a topic it may be a topic of its own.
    if (
        owner is not None
        and owner.index not in promoted
        and _before_next_card(owner, heading, kinds)
    ):
        return False
    start, first = heading.end, heading.children[0].line if heading.children else heading.stop
    if owner is not None and _only_shows(outline, start, first):
        return False  # "完整的 LSTM 前向传播公式" over a formula: a label in the answer above
    if _explains(outline, start, first):
        return True
    # "卷积的内部实现" over "Theano 中的实现", "Caffe 中的实现": one topic, told in its parts.
    return bool(heading.children) and all(
        _part_words(question_text(child.text)[0]) for child in heading.children
    )


def _card_above(heading: Heading, kinds: list[Kind]) -> Heading | None:
    parent = heading.parent
    while parent is not None and kinds[parent.index] != Kind.CARD:
        parent = parent.parent
    return parent


def _before_next_card(owner: Heading, heading: Heading, kinds: list[Kind]) -> bool:
    """Whether no card heading stands between `owner` and `heading`, its descendant."""
    return not any(kinds[index] == Kind.CARD for index in range(owner.index + 1, heading.index))


def _holds_cards(outline: Outline, heading: Heading) -> bool:
    """Whether the heading's own text holds questions written another way than as a heading.

    A bold question after the topic's own explanation ("## ReLU 相比 sigmoid 的优势", a list,
    then "**为什么 ReLU 不是全程可微…？**") stays a card of its own inside the topic
    (app.content.notes.headings cuts the topic's answer there); one that opens the heading's
    text makes the heading a section of bold questions.
    """
    first = heading.children[0].line if heading.children else heading.stop
    cards = recognise_region(outline, heading.end, first, "").cards
    if any(card.recogniser != Syntax.BOLD_QUESTION for card in cards):
        return True
    return bool(cards) and not _explains(outline, heading.end, cards[0].line)


def _part_words(words: str) -> bool:
    key = unicodedata.normalize("NFKC", words).casefold().strip(" :：.。")
    return key in _PART_WORDS or _TOOL_PART.match(key) is not None


def _asks(text: str) -> bool:
    words, marked = question_text(text)
    return marked or (asks(words) and not generic_question(words))


def _explains(outline: Outline, start: int, end: int) -> bool:
    """Whether lines `start`…`end` say something: more than a quote, a link list or comments."""
    return any(
        block.kind != "blockquote" and not _comment(outline, block) and not _links(outline, block)
        for block in outline.blocks_between(start, end)
    )


def _only_shows(outline: Outline, start: int, end: int) -> bool:
    """Whether lines `start`…`end` hold only code, formulas, images or quotes."""
    blocks = outline.blocks_between(start, end)
    return bool(blocks) and all(
        block.kind in _SHOWING or (block.kind == "paragraph" and _pictures(block.inline))
        for block in blocks
    )


def _comment(outline: Outline, block: Block) -> bool:
    if block.kind != "html_block":
        return False
    return not COMMENT.sub("", "\n".join(outline.lines[block.start : block.end])).strip()


def _links(outline: Outline, block: Block) -> bool:
    """Whether a list is a reading list: each of its entries opens with a link."""
    if block.kind not in _LISTS or not block.items:
        return False
    for item in block.items:
        inline = outline.inlines.get(item.start)
        children = (
            [c for c in (inline.children or []) if c.type != "text" or c.content.strip()]
            if inline is not None
            else []
        )
        if not children or children[0].type != "link_open":
            return False
    return True


def _pictures(inline: Token | None) -> bool:
    """Whether a paragraph is only images (`[![](公式.png)](…)`), its links around them."""
    kept = [
        child
        for child in (inline.children or [] if inline is not None else [])
        if child.type not in ("image", "link_open", "link_close", "softbreak", "hardbreak")
        and (child.type != "text" or child.content.strip())
    ]
    return inline is not None and not kept


def _anchors(outline: Outline) -> set[str]:
    """The headings the note's tables of contents link to, as `_key`s of their anchors."""
    keys: set[str] = set()
    for block in outline.blocks:
        if block.kind not in _LISTS or not is_contents(outline, [block]):
            continue
        for index in range(block.start, block.end):
            inline = outline.inlines.get(index)
            for child in inline.children or [] if inline is not None else []:
                if child.type == "link_open":
                    keys.add(_key(str(child.attrGet("href") or "")[1:]))
    return keys


def _key(text: str) -> str:
    """Letters and digits only: an anchor (`#整流线性单元-relu`) and its heading alike."""
    text = unicodedata.normalize("NFKC", urllib.parse.unquote(text)).casefold()
    return "".join(char for char in text if unicodedata.category(char)[0] in "LN")
