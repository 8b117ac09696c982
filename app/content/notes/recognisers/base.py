"""What every recogniser sees: the unit it is offered and the region it is read in."""

from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal, Protocol

from app.content.notes.outline import Block, Item, Outline
from app.content.notes.wording import Found, NotTaken, Reason, Recognised, Syntax

UnitKind = Literal["block", "item", "line"]


class _Taken:
    """A unit claimed without a card: a title or a section line."""


TAKEN: Final = _Taken()


@dataclass
class Unit:
    """What a recogniser is offered: a top-level block, one of a list's items, or one line."""

    kind: UnitKind
    start: int
    end: int
    block: Block
    item: Item | None = None
    paragraph: bool = False  # a line of a paragraph (else of a list item)


@dataclass
class Region:
    """The text between two headings, read unit by unit, and the cards found in it so far."""

    outline: Outline
    start: int
    end: int
    section: str
    blocks: list[Block]
    openers: set[int]  # lines that open a card by their number (numbered_openers)
    out: Recognised = field(default_factory=Recognised)
    current: Found | None = None  # the card later text is the answer of
    skip_until: int = 0
    position: int = 0  # of the block being read, in `blocks`
    items_ask: bool | None = None  # whether a list item in it asks, once a recogniser looked

    @property
    def lines(self) -> list[str]:
        return self.outline.lines

    def read(self, index: int) -> str:
        """Line `index` of a paragraph or raw HTML as the parse read it ("" elsewhere)."""
        return self.outline.texts.get(index, "")

    def following(self) -> Block | None:
        after = self.position + 1
        return self.blocks[after] if after < len(self.blocks) else None

    def add(self, card: Found, *, current: bool = False) -> Found:
        """A card found; with `current`, the text after it is its answer until the next card."""
        self.out.cards.append(card)
        self.current = card if current else None
        return card

    def card(self, question: str, line: int, syntax: Syntax, explicit: str | None = None) -> Found:
        return Found(question, line, explicit, [], self.section, syntax)

    def not_taken(self, line: int, text: str, reason: Reason) -> None:
        self.out.not_taken.append(NotTaken(line, text, reason))

    def take(self, index: int, text: str | None = None) -> None:
        """A line that is no question: the current card's answer, or the introduction."""
        entry = (index, self.lines[index] if text is None else text)
        (self.current.body if self.current is not None else self.out.intro).append(entry)

    def take_range(self, start: int, end: int) -> None:
        for index in range(start, end):
            self.take(index)


class Recogniser(Protocol):
    """One way of writing a card: claims the units written that way."""

    name: ClassVar[Syntax]
    units: ClassVar[frozenset[UnitKind]]

    def claim(self, unit: Unit, region: Region) -> Found | _Taken | None: ...
