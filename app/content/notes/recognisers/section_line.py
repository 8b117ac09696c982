"""A short line standing alone before a question, in notes without headings: a section."""

from typing import ClassVar

from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.recognisers.lines import short_line, unbold
from app.content.notes.wording import Q_PREFIX, Reason, Syntax


class SectionLine:
    name: ClassVar[Syntax] = Syntax.SECTION_LINE
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> _Taken | None:
        following = region.following()
        outline = region.outline
        if unit.block.kind != "paragraph" or outline.headings or following is None:
            return None
        if following.kind != "paragraph" or not short_line(outline, unit.block):
            return None
        first = region.read(following.start)
        if not (Q_PREFIX.match(unbold(first)[0]) or following.start in region.openers):
            return None
        region.section = region.read(unit.start).strip()
        region.not_taken(unit.start, region.section, Reason.SECTION)
        region.current = None
        return TAKEN
