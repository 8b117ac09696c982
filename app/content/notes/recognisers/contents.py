"""A table of contents: a list of links to the note's own headings (`- [1.…](#1.…)`).

Neither a card nor a section, nor a note's introduction: it repeats the headings below it.
"""

import re
from typing import ClassVar

from app.content.notes.outline import Block, Outline
from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.wording import Syntax

# One entry: a list marker and a link to an anchor; `[^\]\n]` keeps it linear in the line.
_ENTRY = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[^\]\n]*\]\(#[^)\n]*\)[ \t]*")


def is_contents(outline: Outline, blocks: list[Block]) -> bool:
    """Whether `blocks` are lists of anchor links and nothing else (two links at least)."""
    if not blocks or any(b.kind not in ("bullet_list", "ordered_list") for b in blocks):
        return False
    entries = [outline.lines[i] for b in blocks for i in range(b.start, b.end)]
    entries = [text for text in entries if text.strip()]
    return len(entries) >= 2 and all(_ENTRY.fullmatch(text) for text in entries)


class Contents:
    name: ClassVar[Syntax] = Syntax.CONTENTS
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> _Taken | None:
        return TAKEN if is_contents(region.outline, [unit.block]) else None
