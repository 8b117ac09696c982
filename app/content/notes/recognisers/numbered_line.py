"""Numbered lines in a run 1, 2, 3… with an answer after each: `1.…`, `2、…`, list items too."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import dedent, opener_question
from app.content.notes.wording import Found, Syntax, question_text


class NumberedLine:
    name: ClassVar[Syntax] = Syntax.NUMBERED_LINE
    units: ClassVar[frozenset[UnitKind]] = frozenset({"item", "line"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if unit.start not in region.openers:
            return None
        text = region.read(unit.start)
        if unit.kind == "line":
            return region.add(
                region.card(opener_question(text), unit.start, self.name), current=True
            )
        question = question_text(text)[0]  # the item's marker is the parse's
        card = region.add(region.card(question, unit.start, self.name), current=True)
        assert unit.item is not None
        card.body += dedent(region.outline, unit.start + 1, unit.end, unit.item.indent)
        return card
