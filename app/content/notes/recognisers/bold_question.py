"""A paragraph that opens with a bold question (`**1.2 …？**`) or a numbered bold task."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import bold_question, bold_task
from app.content.notes.wording import Found, Syntax, asks


class BoldQuestion:
    name: ClassVar[Syntax] = Syntax.BOLD_QUESTION
    units: ClassVar[frozenset[UnitKind]] = frozenset({"line"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if not unit.paragraph or unit.start != unit.block.start:
            return None
        if region.current is not None and region.current.recogniser == Syntax.QA_LINES:
            # `**Q2：…JSON？…类别？**`, then `**如何限定类别？**`: where the writer marks each
            # question, an unmarked bold question names a part of the answer.
            return None
        text = region.read(unit.start)
        bold = bold_question(text)
        if bold is None:
            # "**那么…思路是怎么的呢？**" over "**1. 窗口的选择**": numbered steps that start a
            # bold question's answer, not tasks that leave it with none.
            bold = None if _awaits_answer(region) else bold_task(text)
        if bold is None:
            return None
        card = region.add(region.card(bold[0], unit.start, self.name), current=True)
        if bold[1]:
            card.body.append((unit.start, bold[1]))
        return card


def _awaits_answer(region: Region) -> bool:
    """Whether the card being written is a bold question with nothing under it yet, or whose
    answer opens with a numbered bold step."""
    card = region.current
    if card is None or card.recogniser != Syntax.BOLD_QUESTION or not asks(card.question):
        return False
    first = next((text for _, text in card.body if text.strip()), None)
    return first is None or bold_task(first) is not None
