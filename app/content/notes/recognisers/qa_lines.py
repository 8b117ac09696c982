"""`Q:`/`A:`, `Q：`/`A：`, `问：`/`答：` line pairs (bold or not, with an optional `{#id}`)."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import split_id, unbold
from app.content.notes.wording import Q_PREFIX, Found, Syntax


class QaLines:
    name: ClassVar[Syntax] = Syntax.QA_LINES
    units: ClassVar[frozenset[UnitKind]] = frozenset({"line"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        # A list item's line counts too (`- 问：…` then `  答：…`): the marker says it asks.
        if not unit.paragraph and unit.item is None:
            return None
        lead, after = unbold(region.read(unit.start))
        match = Q_PREFIX.match(lead)
        if not match:
            return None
        question, explicit = split_id(match.group(1))
        card = region.add(region.card(question, unit.start, self.name, explicit), current=True)
        if after:
            card.body.append((unit.start, after))
        return card
