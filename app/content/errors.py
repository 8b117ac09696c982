"""Problems found in content, always tied to a file and line, worded in either language."""

from dataclasses import dataclass
from typing import Self

from app.content.messages import PROBLEMS

# Where the wordings of PROBLEMS stand in each (Chinese, English) pair.
CHINESE, ENGLISH = 0, 1

Value = str | int


@dataclass(frozen=True)
class Said:
    """What a problem says: its code in PROBLEMS and the values it is worded with."""

    code: str
    values: tuple[tuple[str, Value], ...] = ()

    @classmethod
    def of(cls, code: str, /, **values: Value) -> Self:
        return cls(code, tuple(values.items()))

    def worded(self, index: int = ENGLISH) -> str:
        """The wording at `index` of its (Chinese, English) pair."""
        return word(self.code, dict(self.values), index)

    @property
    def message(self) -> str:
        return self.worded(ENGLISH)


def word(code: str, values: dict[str, Value], index: int) -> str:
    """A problem's wording in the language at `index`; its code if it has none."""
    pair = PROBLEMS.get(f"content.{code}")
    if not pair:
        return code
    try:
        # One mapping, not keywords: a value may be named anything, `self` or `key` included.
        return pair[index].format_map(values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return pair[index]  # worded with other values than this version's: unworded


@dataclass(frozen=True)
class ContentError(Exception):
    path: str
    line: int
    said: Said

    @classmethod
    def of(cls, code: str, path: str, line: int, /, **values: Value) -> Self:
        return cls(path, line, Said.of(code, **values))

    @property
    def message(self) -> str:
        return self.said.message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ContentWarning(ContentError):
    """A problem worth fixing that does not stop an import (e.g. Markdown left literal)."""


class ContentErrors(Exception):
    """Raised when content cannot be imported; carries every error found."""

    def __init__(self, errors: list[ContentError]) -> None:
        super().__init__(f"{len(errors)} error(s) in content")
        self.errors = errors


# Lines named in a folded warning; the count says how many there are in all.
_LINES_NAMED = 10


def in_order(warnings: list[ContentError]) -> list[ContentError]:
    """Warnings by file and line, each repeated one (same file, words and values) said once and
    followed by how many times and where it comes again: the same web badge on 250 questions is
    one thing to fix, and must not bury the warnings that differ."""
    seen: dict[tuple[str, Said], list[ContentError]] = {}
    for warning in sorted(warnings, key=lambda e: (e.path, e.line)):
        seen.setdefault((warning.path, warning.said), []).append(warning)
    kept: list[ContentError] = []
    for (path, _), same in seen.items():
        kept.append(same[0])
        if len(same) == 2:
            kept.append(
                ContentWarning.of("warning_repeated_once", path, same[0].line, line=same[1].line)
            )
        elif len(same) > 2:
            named = ", ".join(str(w.line) for w in same[1 : 1 + _LINES_NAMED])
            more = "…" if len(same) - 1 > _LINES_NAMED else ""
            kept.append(
                ContentWarning.of(
                    "warning_repeated", path, same[0].line, count=len(same) - 1, lines=named + more
                )
            )
    return sorted(kept, key=lambda e: (e.path, e.line))  # stable: a count stays after its warning
