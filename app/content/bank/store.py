"""Write compiled content into the bank's tables: decks, cards, follow-ups, links, topics."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, bindparam, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel, col, delete, select

from app.content.bank.topicindex import TopicRef, resolve, topic_index
from app.content.compile.build import CompiledCard, CompiledDeck, CompiledTopic
from app.content.notes.parsed import ParsedCard, ParsedDeck
from app.infra.models import Card, CardLink, Deck, Followup, Topic, table_of, utcnow

Sluggable = TypeVar("Sluggable", Deck, Topic)


@dataclass
class CardCounts:
    added: int = 0
    updated: int = 0
    resumed: int = 0
    # Whether a card was added or moved (deck, place or file): the content order changes.
    reordered: bool = False


def number_cards(session: Session, *, reorder: bool = True) -> None:
    """Give every card its place in the bank's content order, and every deck its card count.

    The order is deck path, then position, sorted here rather than by the database, whose
    collation could order paths differently; an import that added no card and moved none
    (`reorder=False`) leaves it as it is. Only what changed is written.
    """
    if reorder:
        rows = session.exec(
            select(Card.id, Card.ordinal, Deck.path, Card.position).join(
                Deck, col(Deck.id) == Card.deck_id
            )
        ).all()
        ordered = sorted(rows, key=lambda row: (row[2], row[3], row[0]))
        moved: list[dict[str, object]] = [
            {"key": card_id, "value": n}
            for n, (card_id, ordinal, _, _) in enumerate(ordered)
            if ordinal != n
        ]
        update_by_key(session, Card, "id", "ordinal", moved)
    # Counted and compared by the database, grouped once rather than per deck (a planner
    # without statistics counts each deck through the wrong index): a vault is tens of
    # thousands of decks, of which an import changes a few.
    card, deck = table_of(Card), table_of(Deck)
    counts = (
        sa_select(card.c.deck_id, func.count().label("n"))
        .where(card.c.retired.is_(False))
        .group_by(card.c.deck_id)
        .subquery()
    )
    connection = session.connection()
    connection.execute(
        deck.update()
        .where(deck.c.id == counts.c.deck_id, deck.c.card_count != counts.c.n)
        .values(card_count=counts.c.n)
    )
    connection.execute(
        deck.update()
        .where(deck.c.card_count != 0, deck.c.id.not_in(sa_select(counts.c.deck_id)))
        .values(card_count=0)
    )


def write_deck(session: Session, compiled: CompiledDeck, counts: CardCounts) -> set[str]:
    """Write one compiled deck and its cards; return the ids of its cards."""
    return write_decks(session, [compiled], counts)


def write_decks(session: Session, decks: list[CompiledDeck], counts: CardCounts) -> set[str]:
    """Write compiled decks and their cards; return the ids of their cards.

    A few statements per batch rather than per deck: a vault of one-question notes is
    thousands of decks, and a look-up and a flush for each cost more than their rendering.
    """
    deck_ids = _write_deck_rows(session, decks, counts)
    ids = [c.card.id for compiled in decks for c in compiled.cards]
    existing: dict[str, Card] = {}
    for chunk in chunks(ids):
        existing |= {c.id: c for c in session.exec(select(Card).where(col(Card.id).in_(chunk)))}
    new_cards: list[dict[str, Any]] = []
    relinked: list[ParsedCard] = []  # cards whose continue-reading links are (re)written
    relinked_items: list[CompiledCard] = []
    for compiled in decks:
        deck_id = deck_ids[compiled.deck.slug]
        assert deck_id is not None
        for item in compiled.cards:
            if _write_card(session, item, deck_id, compiled.deck, existing, new_cards, counts):
                relinked.append(item.card)
                relinked_items.append(item)
    # Bulk statements: one executemany per table instead of a flush per card, through Core:
    # the ORM's bulk insert costs more per row than writing the row.
    if new_cards:
        session.connection().execute(table_of(Card).insert(), new_cards)
    _write_links(session, relinked, existing)
    _write_followups(session, relinked_items, existing)
    return set(ids)


def _write_deck_rows(
    session: Session, decks: list[CompiledDeck], counts: CardCounts
) -> dict[str, int | None]:
    """Insert or update the decks' own rows; their ids by slug."""
    stored = stored_by_slug(session, Deck, [compiled.deck.slug for compiled in decks])
    new_rows: list[dict[str, Any]] = []
    for compiled in decks:
        parsed = compiled.deck
        values = {
            "title": parsed.title,
            "description": parsed.description,
            "intro_html": compiled.intro_html,
            "language": parsed.language,
            "tags": parsed.tags,
            "path": parsed.path,
            "retired": False,
        }
        deck = stored.get(parsed.slug)
        if deck is None:
            new_rows.append({"slug": parsed.slug, **values})
            continue
        counts.reordered |= deck.path != parsed.path
        for name, value in values.items():
            if getattr(deck, name) != value:
                setattr(deck, name, value)
        session.add(deck)
    session.flush()
    deck_ids = {slug: deck.id for slug, deck in stored.items()}
    if new_rows:
        # Rows, not objects: a new Deck object costs more to make than its row to write. And
        # no RETURNING: an INSERT … RETURNING of many rows is one long statement that psycopg
        # converts anew each time (6 s of a 20,000-note import on PostgreSQL), where an
        # executemany sends the rows in one pipeline; the new ids are read back by slug.
        table = table_of(Deck)
        connection = session.connection()
        connection.execute(table.insert(), new_rows)
        for chunk in chunks([row["slug"] for row in new_rows]):
            query = sa_select(table.c.slug, table.c.id).where(table.c.slug.in_(chunk))
            deck_ids |= {str(row[0]): int(row[1]) for row in connection.execute(query)}
    return deck_ids


def _write_links(session: Session, relinked: list[ParsedCard], existing: dict[str, Card]) -> None:
    """Replace the continue-reading links of the `relinked` cards."""
    old_links = [card.id for card in relinked if card.id in existing]
    for chunk in chunks(old_links):
        session.exec(delete(CardLink).where(col(CardLink.card_id).in_(chunk)))
    links = [
        {
            "card_id": card.id,
            "position": position,
            "title": link.title,
            "target": link.target,
            "external": link.external,
            "topic_slug": None,
        }
        for card in relinked
        for position, link in enumerate(card.links)
    ]
    if links:
        session.connection().execute(table_of(CardLink).insert(), links)


def _write_card(
    session: Session,
    item: CompiledCard,
    deck_id: int,
    parsed: ParsedDeck,
    existing: dict[str, Card],
    new_rows: list[dict[str, Any]],
    counts: CardCounts,
) -> bool:
    """Queue a new card or update a stored one; True when its links are (re)written."""
    values = _card_values(item, deck_id, parsed)
    card = existing.get(item.card.id)
    if card is None:
        counts.added += 1
        counts.reordered = True
        new_rows.append({"id": item.card.id, **values})
        return True
    place = (card.deck_id, card.position, card.source_path)
    counts.reordered |= place != (deck_id, item.card.position, parsed.path)
    if card.retired:
        counts.resumed += 1
    elif _same(card, item, deck_id, parsed.path):
        return False
    else:
        counts.updated += 1
    relink = card.content_hash != item.fingerprint
    for name, value in values.items():
        setattr(card, name, value)
    session.add(card)
    return relink


def _write_followups(
    session: Session, items: list[CompiledCard], existing: dict[str, Card]
) -> None:
    """Replace the follow-up questions of `items`; an id that moved cards moves with it."""
    rows = [
        {
            "id": followup.id,
            "card_id": item.card.id,
            "position": followup.position,
            "question_html": followup.question_html,
            "answer_html": followup.answer_html,
            "question_anki": followup.question_anki,
            "answer_anki": followup.answer_anki,
            "source_line": followup.line,
        }
        for item in items
        for followup in item.followups
    ]
    # A new card has no follow-ups yet to replace.
    for chunk in chunks([item.card.id for item in items if item.card.id in existing]):
        session.exec(delete(Followup).where(col(Followup.card_id).in_(chunk)))
    for chunk in chunks([str(row["id"]) for row in rows]):
        session.exec(delete(Followup).where(col(Followup.id).in_(chunk)))
    if rows:
        session.connection().execute(table_of(Followup).insert(), rows)


def _same(card: Card, item: CompiledCard, deck_id: int, path: str) -> bool:
    return (
        card.content_hash == item.fingerprint
        and card.deck_id == deck_id
        and card.position == item.card.position
        and card.source_path == path
        and card.source_line == item.card.line
    )


def _card_values(item: CompiledCard, deck_id: int, deck: ParsedDeck) -> dict[str, Any]:
    """Every Card column but the id, as this import stores it."""
    parsed = item.card
    return {
        "deck_id": deck_id,
        "section": parsed.section,
        "position": parsed.position,
        "question": parsed.question,
        "question_html": item.question_html,
        "answer_html": item.answer_html,
        "followups_html": item.followups_html,
        "pitfalls_html": item.pitfalls_html,
        "question_text": item.question_text,
        "answer_text": item.answer_text,
        "extra_text": item.extra_text,
        "key_points": item.key_points,
        "anki_fields": item.anki_fields,
        "anki_media": item.anki_media,
        "formula_count": item.formula_count,
        "kind": parsed.kind,
        "front_html": item.front_html,
        "tags": list(dict.fromkeys([*deck.tags, *([parsed.section] if parsed.section else [])])),
        "source_path": deck.path,
        "source_line": parsed.line,
        "content_hash": item.fingerprint,
        "retired": False,
        "updated_at": utcnow(),
    }


def rows_in(
    session: Session, query: Select[*tuple[Any, ...]], column: ColumnElement[str], keys: set[str]
) -> list[tuple[Any, ...]]:
    """The rows of `query` whose `column` (its second) is one of `keys`.

    A few keys are looked up; many (a first import, a changed layout) are filtered here from
    one read rather than looked up 500 at a time: on PostgreSQL each IN of 500 is a long
    statement that psycopg converts anew, and paths have no index to look them up by.
    """
    connection = session.connection()
    if len(keys) <= _LOOKED_UP:
        return [tuple(row) for row in connection.execute(query.where(column.in_(sorted(keys))))]
    return [tuple(row) for row in connection.execute(query) if row[1] in keys]


# At most this many keys go into one IN (...) (see `chunks` for the backends' limits).
_LOOKED_UP = 500


def chunks(values: list[str], size: int = 500) -> Iterator[list[str]]:
    """Split an IN (...) list so no statement exceeds the backend's bound-parameter limit."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def stored_by_slug(
    session: Session, model: type[Sluggable], slugs: list[str]
) -> dict[str, Sluggable]:
    """The stored rows of `model` (decks or topics) with these slugs, by slug."""
    stored: dict[str, Sluggable] = {}
    for chunk in chunks(slugs):
        stored |= {
            row.slug: row for row in session.exec(select(model).where(col(model.slug).in_(chunk)))
        }
    return stored


def write_topics(session: Session, topics: list[CompiledTopic]) -> None:
    """Insert the new topics and update the stored ones that changed.

    Stored topics are looked up by slug a chunk at a time and new ones written in one
    executemany, as decks are: a vault's topics are many, and a look-up and an ORM insert for
    each cost more than the row.
    """
    stored = stored_by_slug(session, Topic, [compiled.topic.slug for compiled in topics])
    new_rows: list[dict[str, Any]] = []
    for compiled in topics:
        parsed = compiled.topic
        values = {
            "title": parsed.title,
            "aliases": parsed.aliases,
            "summary": parsed.summary,
            "body_html": compiled.body_html,
            "body_text": compiled.text.get("body", ""),
            "extra_text": compiled.text.get("extra", ""),
            "reading_text": compiled.text.get("reading", ""),
            "path": parsed.path,
        }
        topic = stored.get(parsed.slug)
        if topic is None:
            new_rows.append({"slug": parsed.slug, **values})
            continue
        for name, value in values.items():
            if getattr(topic, name) != value:
                setattr(topic, name, value)
        session.add(topic)
    if new_rows:
        session.connection().execute(table_of(Topic).insert(), new_rows)


def resolve_links(session: Session, *, only_unresolved: bool) -> None:
    """Point internal links at their topics; all of them when topics changed."""
    index, _ = topic_index(
        [TopicRef(t.slug, t.title, tuple(t.aliases), t.path) for t in session.exec(select(Topic))]
    )
    query = select(CardLink.id, CardLink.target, CardLink.topic_slug).where(
        col(CardLink.external).is_(False)
    )
    if only_unresolved:
        query = query.where(col(CardLink.topic_slug).is_(None))
    changes: list[dict[str, object]] = [
        {"key": link_id, "value": slug}
        for link_id, target, current in session.exec(query)
        if (slug := resolve(target, index)) != current
    ]
    # Core's executemany: the ORM's bulk update by primary key costs more than the rows.
    update_by_key(session, CardLink, "id", "topic_slug", changes)


def update_by_key(
    session: Session, model: type[SQLModel], key: str, column: str, rows: list[dict[str, object]]
) -> None:
    """Set `column` to each row's "value" where `key` equals its "key", in one executemany."""
    if not rows:
        return
    table = table_of(model)
    session.connection().execute(
        table.update().where(table.c[key] == bindparam("key")).values({column: bindparam("value")}),
        rows,
    )
