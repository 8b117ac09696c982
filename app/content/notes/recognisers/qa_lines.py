"""`Q:`/`A:`, `Q：`/`A：`, `问：`/`答：` line pairs (bold or not, with an optional `{#id}`), and a
question line answered by the quote under it (`> 答：…`)."""

import re
from typing import ClassVar

from app.content.notes.recognisers.base import Region, Unit, UnitKind
from app.content.notes.recognisers.lines import split_id, unbold
from app.content.notes.wording import Q_PREFIX, QUOTE, Found, Syntax, question_text

_MARKER = r"(?:\*\*)?(?:答|答案|回答|A|Answer)(?:\*\*)?[ \t]*[:：](?:\*\*)?[ \t]*"
_QUOTED_ANSWER = re.compile(r"^[ \t]{0,3}>[ \t]*" + _MARKER, re.I)


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
            return _quoted(unit, region)
        question, explicit = split_id(match.group(1))
        card = region.add(region.card(question, unit.start, self.name, explicit), current=True)
        if after:
            card.body.append((unit.start, after))
        return card


def _quoted(unit: Unit, region: Region) -> Found | None:
    """`什么是…？` alone in its paragraph, then `> 答：…`: the marker in the quote says it."""
    after = region.following()
    if not unit.paragraph or unit.block.end - unit.block.start != 1 or after is None:
        return None
    if after.kind != "blockquote" or not _QUOTED_ANSWER.match(region.lines[after.start]):
        return None
    question, asks = question_text(region.read(unit.start))
    if not asks:
        return None
    card = region.add(region.card(question, unit.start, Syntax.QA_LINES))
    # The quote is the answer's wrapping, and its marker says what it is: neither is shown.
    card.body = [
        (i, QUOTE.sub("", region.lines[i], count=1)) for i in range(after.start, after.end)
    ]
    card.body[0] = (after.start, re.sub("^" + _MARKER, "", card.body[0][1], flags=re.I))
    region.skip_until = after.end
    return card
