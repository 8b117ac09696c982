"""Clashes between the notes an import read and what the bank keeps from the other notes."""

from collections.abc import Iterator

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from app.content.bank.limits import hold_to_limits
from app.content.bank.repair import repair_card_ids, repair_deck_slugs, repair_topic_slugs
from app.content.bank.store import chunks, rows_in
from app.content.bank.topicindex import TopicRef, topic_index
from app.content.errors import ContentError
from app.content.notes.parsed import ParsedDeck, ParsedTopic
from app.infra.models import Card, Deck, Followup, Topic, table_of


def bank_clashes(
    session: Session, decks: list[ParsedDeck], topics: list[ParsedTopic], stale_paths: set[str]
) -> list[ContentError]:
    """Clashes between the new files and what stays in the database unchanged, told apart.

    Only the ids and slugs the new files use are looked up, not every kept card: an edit of one
    note in a vault of 20,000 reads a handful of rows. (A card renamed to tell it apart takes a
    name made from its own file's path, which no card kept from another file holds.)
    """
    # Rows of stale files are dropped here, not by a NOT IN of every path the import read.
    card_ids = [card.id for deck in decks for card in deck.cards]
    followup_ids = [item.id for deck in decks for card in deck.cards for item in card.questions]
    card = table_of(Card)
    active = sa_select(card.c.source_path, card.c.id, card.c.source_line).where(
        card.c.retired.is_(False)
    )
    kept_cards = {
        row[1]: (row[0], row[2])
        for row in rows_in(session, active, card.c.id, set(card_ids))
        if row[0] not in stale_paths
    }
    kept_followups: dict[str, tuple[str, int]] = {}
    for chunk in chunks(followup_ids):
        kept_followups |= {
            item_id: (path, line)
            for item_id, path, line in session.exec(
                select(Followup.id, Card.source_path, Followup.source_line)
                .join(Card, col(Card.id) == Followup.card_id)
                .where(col(Followup.id).in_(chunk), col(Card.retired).is_(False))
            )
            if path not in stale_paths
        }
    errors = hold_to_limits(decks, topics)
    errors += repair_deck_slugs(decks, dict(_kept_decks(session, decks, stale_paths)))
    errors += repair_topic_slugs(topics, dict(_kept_topics(session, topics, stale_paths)))
    errors += repair_card_ids(decks, kept_cards, kept_followups)
    _, topic_errors = topic_index(_all_topic_refs(session, topics, stale_paths))
    return errors + [e for e in topic_errors if e.said.code != "topic_slug_taken"]


def _kept_decks(
    session: Session, decks: list[ParsedDeck], stale_paths: set[str]
) -> Iterator[tuple[str, str]]:
    for chunk in chunks([deck.slug for deck in decks]):
        rows = session.exec(
            select(Deck.slug, Deck.path).where(
                col(Deck.slug).in_(chunk), col(Deck.retired).is_(False)
            )
        )
        yield from ((slug, path) for slug, path in rows if path not in stale_paths)


def _kept_topics(
    session: Session, topics: list[ParsedTopic], stale_paths: set[str]
) -> Iterator[tuple[str, str]]:
    for chunk in chunks([topic.slug for topic in topics]):
        rows = session.exec(select(Topic.slug, Topic.path).where(col(Topic.slug).in_(chunk)))
        yield from ((slug, path) for slug, path in rows if path not in stale_paths)


def _all_topic_refs(
    session: Session, topics: list[ParsedTopic], stale_paths: set[str]
) -> list[TopicRef]:
    """Every topic's names, the kept ones' from the bank: a new name may clash with any."""
    kept = session.exec(select(Topic.slug, Topic.title, Topic.aliases, Topic.path)).all()
    refs = [
        TopicRef(slug, title, tuple(aliases), path)
        for slug, title, aliases, path in kept
        if path not in stale_paths
    ]
    return refs + [TopicRef(t.slug, t.title, tuple(t.aliases), t.path) for t in topics]
