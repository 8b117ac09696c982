"""A table whose header names a question column and an answer column: one card per row."""

import re
from typing import ClassVar

from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.wording import Found, Syntax

# Header cells that name the columns (`| 问题 | 答案 |`, `| Question | Answer |`); a table
# with other headers is the answer's content, not a list of cards.
_QUESTION = re.compile(r"^(?:问题|题目|面试题|question|q)$", re.I)
_ANSWER = re.compile(r"^(?:答案|回答|解答|参考答案|answer|a)$", re.I)
_PIPE = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip() for cell in _PIPE.split(row)]


def _column(header: list[str], pattern: re.Pattern[str]) -> int | None:
    return next((i for i, cell in enumerate(header) if pattern.match(cell.strip("*_ :："))), None)


class QuestionTable:
    name: ClassVar[Syntax] = Syntax.QUESTION_TABLE
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> Found | _Taken | None:
        if unit.block.kind != "table":
            return None
        header = _cells(region.lines[unit.start])
        asked, answered = _column(header, _QUESTION), _column(header, _ANSWER)
        if asked is None or answered is None:
            return None
        first: Found | None = None
        for index in range(unit.start + 2, unit.end):  # past the header and its `---` row
            cells = _cells(region.lines[index])
            if len(cells) <= max(asked, answered) or not cells[asked]:
                continue
            card = region.add(region.card(cells[asked], index, self.name))
            card.body.append((index, cells[answered]))
            first = first or card
        return first or TAKEN
