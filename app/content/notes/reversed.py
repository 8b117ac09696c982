"""Reversed cards: a `term ::: definition` line is asked both ways, and so is every `::` card of a
note whose front matter says `reverse: true`.

Works on the cards the recognisers found (plain data) and the note's lines: the `::` recogniser
already takes `term ::: definition` as term → definition; this adds definition → term.
"""

import re
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from app.content.errors import ContentError

SEPARATOR_RECOGNISER = "inline-separator"
_TRIPLE = re.compile(r"\S[ \t]*:::[ \t]*\S")
# The reverse card's id: the forward card's and this suffix, stable while the forward one is.
SUFFIX = ".r"


def reverse_all(meta: dict[str, Any], path: str, errors: list[ContentError]) -> bool:
    """The front matter's `reverse:`; only true or false are understood."""
    value = meta.get("reverse", False)
    if value is None:
        return False
    if not isinstance(value, bool):
        errors.append(ContentError.of("reverse_not_boolean", path, 1, value=str(value)))
        return False
    return value


class Reversible(Protocol):
    kind: str

    @property
    def recogniser(self) -> str: ...
    @property
    def line(self) -> int: ...


Card = TypeVar("Card", bound=Reversible)


def with_reversed(
    cards: list[Card],
    lines: list[str],
    first: int,
    *,
    every: bool,
    reverse: Callable[[Card], Card],
) -> list[Card]:
    """`cards` with each reversible one marked `reversed` and followed by `reverse(card)`."""
    out: list[Card] = []
    for card in cards:
        out.append(card)
        if card.recogniser != SEPARATOR_RECOGNISER or card.kind != "basic":
            continue
        index = card.line - first
        written = lines[index] if 0 <= index < len(lines) else ""
        if not (every or _TRIPLE.search(written)):
            continue
        card.kind = "reversed"
        out.append(reverse(card))
    return out
