"""A list item that asks, with its answer nested under it."""

import re
from typing import ClassVar

from app.content.notes.outline import Block, Item, Outline
from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import dedent
from app.content.notes.wording import TAG, Found, Reason, Syntax, asks, question_text

# `- **CNN卷积**` above nested bullets: the writer set the item apart as the thing to recall.
# A bold term ending in a colon (`**GLUE**：`) is a label its bullets describe, not a question.
_WHOLLY_BOLD = re.compile(r"(\*\*|__)(?=\S)([^*_]+?)(?<=[^\s:：])\1")


class ListQuestion:
    name: ClassVar[Syntax] = Syntax.LIST_QUESTION
    units: ClassVar[frozenset[UnitKind]] = frozenset({"item"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if region.current is not None or unit.item is None:
            return None
        # The parse took the item's marker off: its text is the question as written.
        text = region.read(unit.start)
        question, says = question_text(text)
        rest = dedent(region.outline, unit.start + 1, unit.end, unit.item.indent)
        if not any(body.strip() for _, body in rest):
            if _WHOLLY_BOLD.fullmatch(text.strip()) and (says or asks(question)):
                # A bold question with nothing under it: said, as a heading with no answer is.
                region.not_taken(unit.start, question, Reason.NO_ANSWER)
            return None
        if not (_set_apart(text, region) or _list_of_questions(region.outline, unit.block)):
            return None
        card = region.add(region.card(question, unit.start, self.name))
        card.body = rest
        return card


def _set_apart(text: str, region: Region) -> bool:
    """Worded as a question ("何为…", "如何…", "Why…"), or the item's whole line in bold where
    some item between the same headings asks: bold terms alone, each over its bullets
    (`- **数据增强**` under "降低过拟合风险的方法"), are the points of one answer, not questions."""
    if _asking(text):
        return True
    return bool(_WHOLLY_BOLD.fullmatch(text.strip())) and _items_ask(region)


def _asking(text: str) -> bool:
    question, says = question_text(text.strip())
    return says or asks(question)


def _items_ask(region: Region) -> bool:
    """Whether a list item between the region's headings asks (read once per region)."""
    if region.items_ask is None:
        region.items_ask = any(
            _asking(region.read(item.start)) for block in region.blocks for item in block.items
        )
    return region.items_ask


def _list_of_questions(outline: Outline, block: Block) -> bool:
    """A list of topics to recall: (nearly) every item nests an answer and a fifth or more of
    them ask, so the others are prompts of the same list (`1. KL 散度` among `1. 如何…？`)
    rather than an outline's bullets."""
    texts = [outline.texts.get(item.start, "") for item in block.items]
    if any(TAG.search(text) for text in texts):
        return False  # the writer tags each card (`#card`): an untagged item is only a note
    answered = [item for item in block.items if _nests(outline, item)]
    if len(answered) < 3 or len(answered) * 5 < len(block.items) * 4:
        return False
    asking = sum(1 for item in answered if _asking(outline.texts.get(item.start, "")))
    return asking * 5 >= len(answered)


def _nests(outline: Outline, item: Item) -> bool:
    rest = dedent(outline, item.start + 1, item.end, item.indent)
    return any(body.strip() for _, body in rest)
