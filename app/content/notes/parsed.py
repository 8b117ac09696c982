"""What parsing a note gives: its cards, deck or topic, as plain dataclasses."""

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from app.content.names import normalise_title, note_name
from app.content.notes.cuts import InlineSpan
from app.content.notes.followups import ParsedFollowup
from app.content.notes.links import Link
from app.content.notes.paragraphs import Span
from app.content.notes.spans import NoteTokens
from app.content.notes.wording import NotTaken, Syntax


@dataclass
class Block:
    """Markdown text plus the file line its first line sits on."""

    text: str = ""
    line: int = 0
    # Its tokens in the note's parse (notes.spans), None when it must be parsed on its own.
    spans: tuple[Span, ...] | None = field(default=None, compare=False, repr=False)


@dataclass
class ParsedCard:
    id: str
    explicit_id: bool
    question: str
    section: str
    position: int
    line: int
    answer: Block
    followups: Block
    pitfalls: Block
    links: list[Link] = field(default_factory=list)
    # The follow-up questions of the follow-ups block; `followups` keeps only its other prose.
    questions: list[ParsedFollowup] = field(default_factory=list)
    recogniser: Syntax = Syntax.HOUSE  # which way of writing a card this one was found by
    kind: str = "basic"  # basic | cloze | reversed
    # A cloze card's deletion number in its block (`answer`, in the normal form of notes.cloze).
    cloze: int = 0
    # The question's tokens in the note's parse when it is a heading's (notes.spans).
    question_span: InlineSpan | None = field(default=None, compare=False, repr=False)
    # What the question asks about, shown with it (a code block above the answer's fold).
    stem: Block = field(default_factory=Block)

    def fingerprint(self) -> str:
        """Hash everything that, when changed, makes the stored card out of date."""
        # Absent for a basic card, whose hash therefore stays what it was.
        kind = [] if self.kind == "basic" else [f"\x1d{self.kind}\x1f{self.cloze}"]
        parts = [
            *kind,
            self.question,
            self.section,
            self.answer.text,
            self.followups.text,
            self.pitfalls.text,
            *(f"{link.title}\x1f{link.target}" for link in self.links),
            # Absent for a card without questions, whose hash therefore stays what it was.
            *(f"\x1d{q.id}\x1f{q.question}\x1f{q.answer}" for q in self.questions),
            # Absent for a card without a stem, whose hash therefore stays what it was.
            *([f"\x1dstem\x1f{self.stem.text}"] if self.stem.text else []),
        ]
        return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()


@dataclass
class ParsedDeck:
    path: str
    slug: str
    title: str
    description: str
    tags: list[str]
    language: str
    style: str
    intro: Block
    cards: list[ParsedCard]
    folder: str = ""
    breaks: bool = False  # render single line breaks as breaks (notes written as plain text)
    not_taken: list[NotTaken] = field(default_factory=list)
    note: NoteTokens | None = field(default=None, compare=False, repr=False)

    def names(self) -> "Names":
        """The deck's slug, title and ids: what the checks against the bank may change."""
        cards = tuple((card.id, tuple(item.id for item in card.questions)) for card in self.cards)
        return self.slug, self.title, cards

    def rename(self, names: "Names") -> None:
        """Take the `names` another copy of this deck was given (see `names`)."""
        self.slug, self.title, cards = names
        for card, (card_id, followup_ids) in zip(self.cards, cards, strict=True):
            card.id = card_id
            for item, item_id in zip(card.questions, followup_ids, strict=True):
                item.id = item_id


@dataclass
class ParsedTopic:
    path: str
    slug: str
    title: str
    aliases: list[str]
    summary: str
    body: Block
    folder: str = ""
    breaks: bool = False
    note: NoteTokens | None = field(default=None, compare=False, repr=False)

    def names(self) -> "Names":
        """The topic's slug and title: what the checks against the bank may change."""
        return self.slug, self.title, ()

    def rename(self, names: "Names") -> None:
        """Take the `names` another copy of this topic was given (see `names`)."""
        self.slug, self.title, _ = names


# A note's slug, title and, for a deck, each card's id with its follow-ups' ids.
Names = tuple[str, str, tuple[tuple[str, tuple[str, ...]], ...]]


def derived_card_id(question: str) -> str:
    key = normalise_title(question).rstrip("?？ ")
    return "q-" + hashlib.sha1(key.encode()).hexdigest()[:12]


def slug_from_path(path: str) -> str:
    """A URL-safe slug from a note's file name (a hash of its path when the name has none)."""
    stem = note_name(path)
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_stem).strip("-._")
    if slug == stem or (slug and len(slug) >= len(stem) // 2):
        return slug
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else f"n-{digest}"
