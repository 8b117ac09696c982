"""A short first line standing alone, in a note without headings: the note's title."""

from typing import ClassVar

from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.recognisers.lines import short_line
from app.content.notes.wording import Reason, Syntax


class TitleLine:
    name: ClassVar[Syntax] = Syntax.TITLE
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> _Taken | None:
        outline = region.outline
        if region.position or region.start or outline.headings or region.following() is None:
            return None
        if not short_line(outline, unit.block):
            return None
        region.out.title = region.read(unit.start).strip()
        region.not_taken(unit.start, region.out.title, Reason.TITLE)
        return TAKEN
