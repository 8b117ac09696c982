"""Clashes between notes (the same question, deck or page name twice), each told apart by file.

Someone's notes often ask the same question in two files. Each clash is reported where the
later one is; in a lenient import the later one is then told apart by its file, so both are
kept and what is already in the bank keeps its id (and every learner's history with it).
"""

import hashlib

from app.content.errors import ContentError
from app.content.notes.followups import derived_followup_id
from app.content.notes.parsed import ParsedCard, ParsedDeck, ParsedTopic, derived_card_id

# id -> (path, line) of what holds it already
Taken = dict[str, tuple[str, int]]


def _by_file(value: str, path: str) -> str:
    return f"{value}-{hashlib.sha1(path.encode()).hexdigest()[:6]}"


def repair_card_ids(decks: list[ParsedDeck], taken: Taken, followups: Taken) -> list[ContentError]:
    """Give every card and follow-up of `decks` an id no other holds; report each clash."""
    problems: list[ContentError] = []
    for deck in decks:
        for card in deck.cards:
            if card.id in taken:
                path, line = taken[card.id]
                problems.append(
                    ContentError.of(
                        "duplicate_card_id",
                        deck.path,
                        card.line,
                        id=card.id,
                        other=f"{path}:{line}",
                    )
                )
                _rename(card, deck.path)
            taken[card.id] = (deck.path, card.line)
            for item in card.questions:
                if item.id in followups:
                    path, line = followups[item.id]
                    problems.append(
                        ContentError.of(
                            "duplicate_followup_id",
                            deck.path,
                            item.line,
                            id=item.id,
                            other=f"{path}:{line}",
                        )
                    )
                    item.id = _by_file(item.id, deck.path)
                followups[item.id] = (deck.path, item.line)
    return problems


def _rename(card: ParsedCard, path: str) -> None:
    if card.explicit_id:
        card.id = _by_file(card.id, path)
    else:
        card.id = derived_card_id(f"{path}\x1f{card.question}")
    for item in card.questions:
        if not item.explicit_id:
            item.id = derived_followup_id(card.id, item.position)


def repair_deck_slugs(decks: list[ParsedDeck], taken: dict[str, str]) -> list[ContentError]:
    """Give every deck a slug no other deck holds (`taken`: slug -> path)."""
    return _repair_slugs(decks, taken, "deck_slug_taken")


def repair_topic_slugs(topics: list[ParsedTopic], taken: dict[str, str]) -> list[ContentError]:
    """Give every reading page a slug no other holds (`taken`: slug -> path)."""
    return _repair_slugs(topics, taken, "topic_slug_taken")


def _repair_slugs(
    notes: list[ParsedDeck] | list[ParsedTopic], taken: dict[str, str], code: str
) -> list[ContentError]:
    problems: list[ContentError] = []
    for note in notes:
        if note.slug in taken and taken[note.slug] != note.path:
            other = taken[note.slug]
            problems.append(ContentError.of(code, note.path, 1, slug=note.slug, other=other))
            note.slug = _by_file(note.slug, note.path)
        taken[note.slug] = note.path
    return problems
