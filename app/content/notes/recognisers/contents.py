"""A table of contents: a list of links to the note's own headings (`- [1.…](#1.…)`).

Neither a card nor a section, nor a note's introduction: it repeats the headings below it.
"""

from typing import ClassVar

from markdown_it.token import Token

from app.content.notes.outline import Block, Outline
from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.wording import Syntax


def is_contents(outline: Outline, blocks: list[Block]) -> bool:
    """Whether `blocks` are lists of anchor links and nothing else (two links at least)."""
    if not blocks or any(b.kind not in ("bullet_list", "ordered_list") for b in blocks):
        return False
    entries = 0
    for index in (i for b in blocks for i in range(b.start, b.end)):
        inline = outline.inlines.get(index)
        if inline is not None:
            if not _anchor_link(inline):
                return False
            entries += 1
        elif index in outline.texts:  # an entry's second line, or a nested block's
            return False
    return entries >= 2


def _anchor_link(inline: Token) -> bool:
    """Whether a list item's text is one link to an anchor of the note (`[1.…](#1.…)`)."""
    parts = [c for c in inline.children or [] if c.type != "text" or c.content.strip()]
    return (
        len(parts) >= 2
        and parts[0].type == "link_open"
        and str(parts[0].attrGet("href") or "").startswith("#")
        and parts[-1].type == "link_close"
        and sum(part.type == "link_open" for part in parts) == 1
    )


class Contents:
    name: ClassVar[Syntax] = Syntax.CONTENTS
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> _Taken | None:
        return TAKEN if is_contents(region.outline, [unit.block]) else None
