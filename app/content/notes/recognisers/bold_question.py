"""A paragraph that opens with a bold question (`**1.2 …？**`) or a numbered bold task."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import bold_question, bold_task
from app.content.notes.wording import Found, Syntax


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
        bold = bold_question(text) or bold_task(text)
        if bold is None:
            return None
        card = region.add(region.card(bold[0], unit.start, self.name), current=True)
        if bold[1]:
            card.body.append((unit.start, bold[1]))
        return card
