"""A part that only lists questions is an index of them, not an answer.

Notes that sell or link their answers elsewhere list each part's questions under its
title (`#### 5.1 [数据增强 面试篇](…)`, `- 一、介绍篇`, `  - 1.1 什么是…？`,
`> [点击查看答案](…)`): read as a card, the title asks nothing and the "answer" is the
questions again. A list of questions under a heading that asks ("What can you ask the
interviewer?") is an answer, and a question item with anything under it is answered
there; neither is an index.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from app.content.notes.paragraphs import Span
from app.content.notes.wording import question_text

# What an index is made of besides its list items: the titles of its parts, rules, and quotes
# or paragraphs that only link to where the answers are.
_CONTAINERS = frozenset({"bullet_list", "ordered_list", "blockquote"})
_KEPT = frozenset({"heading_open", "heading_close", "hr"})

# Of the items, this share at least must be questions: the rest are the titles of parts
# (`一、介绍篇`) and topics the writer lists without a question mark.
_QUESTIONS_SHARE = 1 / 3
# At most this share of the questions may have an answer under them: a stray step or note
# under one of an index's hundred questions leaves it an index; a list of questions each
# answered under it is a set of cards.
_ANSWERED_SHARE = 1 / 10


@dataclass
class _Item:
    asks: bool | None = None  # None until its text is read
    parent: bool = False  # it has items of its own
    answered: bool = False  # an item under it, with none of its own, does not ask


class _Walk:
    """Counts an index's items as the tokens go by; `prose` once anything else shows up."""

    def __init__(self) -> None:
        self.items = 0
        self.questions = 0
        self.answered = 0
        self.prose = False
        self._open: list[_Item] = []  # the list items around the token, innermost last
        self._heading = False

    def take(self, token: Token) -> None:
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if token.type == "list_item_open":
            if self._open:
                self._open[-1].parent = True
            self._open.append(_Item())
            self.items += 1
        elif token.type == "list_item_close":
            self._close(self._open.pop())
        elif token.type in _KEPT:
            self._heading = token.type == "heading_open"
        elif token.type == "inline":
            self._inline(token)
        elif kind not in _CONTAINERS and kind != "paragraph":
            self.prose = True  # code, math, a table, HTML: something to read

    def _close(self, item: _Item) -> None:
        self.questions += bool(item.asks)
        self.answered += item.answered
        # A plain line under a question answers it (`步骤一 …`); a part's title under it
        # (`4.3.1 前缀微调篇` over more questions) does not.
        if self._open and self._open[-1].asks and not item.asks and not item.parent:
            self._open[-1].answered = True

    def _inline(self, token: Token) -> None:
        if self._heading:
            return
        if self._open and self._open[-1].asks is None:
            self._open[-1].asks = question_text(token.content)[1]
        elif not _only_links(token):
            self.prose = True  # a second paragraph in an item, or prose outside the lists


def _only_links(inline: Token) -> bool:
    depth = 0
    for child in inline.children or []:
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
        elif child.type == "image" or (not depth and child.content.strip(" *_")):
            return False
    return True


def lists_only_questions(tokens: Sequence[Token], spans: Sequence[Span]) -> bool:
    """Whether the blocks at `spans` only list questions (with their parts' titles and links)."""
    walk = _Walk()
    for span in spans:
        for token in tokens[span.start : span.end]:
            walk.take(token)
            if walk.prose:
                return False
    return (
        walk.questions >= 2
        and walk.questions >= walk.items * _QUESTIONS_SHARE
        and walk.answered <= walk.questions * _ANSWERED_SHARE
    )
