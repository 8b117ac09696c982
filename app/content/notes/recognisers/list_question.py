"""A list item that asks, with its answer nested under it."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import dedent
from app.content.notes.wording import Found, Syntax, question_text


class ListQuestion:
    name: ClassVar[Syntax] = Syntax.LIST_QUESTION
    units: ClassVar[frozenset[UnitKind]] = frozenset({"item"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if region.current is not None or unit.item is None:
            return None
        # The parse took the item's marker off: its text is the question as written.
        question, says = question_text(region.read(unit.start))
        rest = dedent(region.outline, unit.start + 1, unit.end, unit.item.indent)
        if not says or not any(text.strip() for _, text in rest):
            return None
        card = region.add(region.card(question, unit.start, self.name))
        card.body = rest
        return card
