"""`question::answer` on one line, and a `?` line between a question and its answer."""

from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import inline_card, outline_lines, strip_marker
from app.content.notes.wording import SEPARATOR, Found, Syntax


class InlineSeparator:
    name: ClassVar[Syntax] = Syntax.INLINE_SEPARATOR
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block", "item", "line"})

    def claim(self, unit: Unit, region: Region) -> Found | None:
        if unit.kind == "block":
            return self._separated(unit, region)
        if region.current is not None or (unit.kind == "line" and not unit.paragraph):
            return None
        text = region.read(unit.start)
        inline = inline_card(strip_marker(text) if unit.kind == "item" else text)
        if inline is None:
            return None
        card = region.add(region.card(inline[0], unit.start, self.name))
        card.body = [(unit.start, inline[1])]
        return card

    def _separated(self, unit: Unit, region: Region) -> Found | None:
        """Question lines, a line of `?`, then the answer, in one paragraph."""
        if unit.block.kind != "paragraph":
            return None
        separator = next(
            (i for i in range(unit.start, unit.end) if SEPARATOR.match(region.read(i))), None
        )
        if separator is None or separator == unit.start:
            return None
        question = " ".join(region.read(i).strip() for i in range(unit.start, separator))
        card = region.add(region.card(question, unit.start, self.name))
        card.body = outline_lines(region.outline, separator + 1, unit.end)
        return card
