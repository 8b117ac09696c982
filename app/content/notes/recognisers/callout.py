"""Obsidian's question callouts: `> [!question]`, `> [!faq]-`, `> [!QUESTION]+`."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import callout
from app.content.notes.wording import CALLOUT, Found, Syntax


class Callout:
    name: ClassVar[Syntax] = Syntax.CALLOUT
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if unit.block.kind != "blockquote":
            return None
        match = CALLOUT.match(region.read(unit.start))
        if not match:
            return None
        question, body = callout(region.lines, unit.block, match.group(2))
        if not question:
            return None
        card = region.add(region.card(question, unit.start, self.name))
        card.body = body
        return card
