"""Content held to the limits of the columns it is written to, checked before anything is.

The limits are the columns' own (`info` in app.infra.models): a key a note supplies (its path,
an explicit id, a slug) must stay indexable on PostgreSQL, and a title short enough to show. A
path too long leaves its note out; an id, a slug or a title too long is shortened, the same way
on every import (so a card keeps its id and its learners' history), with a warning each.
"""

import hashlib
from dataclasses import dataclass

from sqlmodel import SQLModel

from app.content.errors import ContentError
from app.content.notes.followups import derived_followup_id
from app.content.notes.parsed import ParsedDeck, ParsedTopic
from app.content.notes.source import SourceText
from app.infra.models import Card, Deck, Followup, SourceFile, Topic, table_of

# Left free below a key's limit for what repairs append to it: a file's mark when two notes
# clash (`-1a2b3c`), a follow-up's place after its card's id (`.f12`).
_ROOM = 32
# How much of an over-long value a warning quotes.
_QUOTED = 40


@dataclass(frozen=True)
class Limit:
    size: int
    in_bytes: bool  # UTF-8 bytes (a key), else characters (a title)

    def measure(self, value: str) -> int:
        return len(value.encode()) if self.in_bytes else len(value)


def limit_of(model: type[SQLModel], name: str) -> Limit:
    """The limit of column `name` of `model`, as the model declares it."""
    info = table_of(model).c[name].info
    if "max_bytes" in info:
        return Limit(int(info["max_bytes"]), True)
    return Limit(int(info["max_chars"]), False)


PATH = limit_of(SourceFile, "path")
CARD_ID = limit_of(Card, "id")
FOLLOWUP_ID = limit_of(Followup, "id")
DECK_SLUG = limit_of(Deck, "slug")
TOPIC_SLUG = limit_of(Topic, "slug")
DECK_TITLE = limit_of(Deck, "title")
TOPIC_TITLE = limit_of(Topic, "title")


def paths_within_limit(sources: list[SourceText]) -> tuple[list[SourceText], list[ContentError]]:
    """The notes whose path fits its column, and a problem for each one left out."""
    kept: list[SourceText] = []
    problems: list[ContentError] = []
    for source in sources:
        size = PATH.measure(source.path)
        if size <= PATH.size - _ROOM:
            kept.append(source)
        else:
            problems.append(
                ContentError.of("path_too_long", source.path, 1, size=size, limit=PATH.size)
            )
    return kept, problems


def hold_to_limits(decks: list[ParsedDeck], topics: list[ParsedTopic]) -> list[ContentError]:
    """Shorten every id, slug and title of `decks` and `topics` past its column's limit."""
    problems: list[ContentError] = []
    for deck in decks:
        deck.slug = _key(deck.slug, DECK_SLUG, deck.path, 1, problems)
        deck.title = _title(deck.title, DECK_TITLE, deck.path, problems)
        for card in deck.cards:
            card_id = _key(card.id, CARD_ID, deck.path, card.line, problems)
            if card_id != card.id:
                card.id = card_id
                for item in card.questions:
                    if not item.explicit_id:
                        item.id = derived_followup_id(card.id, item.position)
            for item in card.questions:
                # A derived id is its card's (held below the limit) and its place: it fits.
                room = _ROOM if item.explicit_id else 0
                item.id = _key(item.id, FOLLOWUP_ID, deck.path, item.line, problems, room)
    for topic in topics:
        topic.slug = _key(topic.slug, TOPIC_SLUG, topic.path, 1, problems)
        topic.title = _title(topic.title, TOPIC_TITLE, topic.path, problems)
    return problems


def _key(
    value: str,
    limit: Limit,
    path: str,
    line: int,
    problems: list[ContentError],
    room: int = _ROOM,
) -> str:
    size = limit.measure(value)
    if size <= limit.size - room:
        return value
    # The start of the value and a hash of all of it: the same value is shortened the same way
    # by every import, and two values that start alike stay apart.
    digest = hashlib.sha1(value.encode()).hexdigest()[:12]
    head = value.encode()[: limit.size - _ROOM - len(digest) - 1].decode(errors="ignore")
    short = f"{head}-{digest}"
    problems.append(
        ContentError.of(
            "key_too_long", path, line, start=_quoted(value), size=size, limit=limit.size - _ROOM
        )
    )
    return short


def _title(value: str, limit: Limit, path: str, problems: list[ContentError]) -> str:
    size = limit.measure(value)
    if size <= limit.size:
        return value
    problems.append(
        ContentError.of(
            "title_too_long", path, 1, start=_quoted(value), size=size, limit=limit.size
        )
    )
    return value[: limit.size - 1] + "…"


def _quoted(value: str) -> str:
    return value[:_QUOTED] + "…" if len(value) > _QUOTED else value
