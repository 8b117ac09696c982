"""Keep the search entries in line with the bank: remake those whose card or topic changed."""

import hashlib
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from app.content.compile.searchtext import FIELDS, SearchFields, topic_fields
from app.infra import searchdb
from app.infra.models import Card, CardLink, SearchEntry, Topic, table_of

# Part of every entry's source hash: changing how search text is made remakes every entry.
SEARCH_TEXT_VERSION = "2"


def refresh_search_index(
    session: Session, *, cards_moved: bool = True, cards_retired: bool = True
) -> int:
    """Remake the entries of new or changed cards and topics, drop those gone; return the count.

    Cheap when little changed: the database finds the cards whose entry is missing or out of
    date and mends the places of those that moved, so a vault's tens of thousands of cards and
    entries are not read here. Every import calls it, which also fills the entries of a bank
    imported before search entries existed. The text is the plain text the import compiled and
    stored with each card and topic. An import that moved no card (`cards_moved`: its deck or
    place in the content order) and retired none (`cards_retired`) skips mending those, two
    statements over every entry.
    """
    remake, stale = _cards_out_of_line(session)
    topic_rows: list[dict[str, Any]] = []
    query = sa.select(
        col(SearchEntry.id),
        col(SearchEntry.key),
        col(SearchEntry.source_hash),
        col(SearchEntry.ordinal),
    ).where(col(SearchEntry.kind) == "topic")
    entries = {row.key: (row.id, row.source_hash, row.ordinal) for row in session.execute(query)}
    moved: list[dict[str, Any]] = []
    topics = sorted(session.exec(select(Topic)).all(), key=lambda t: t.title)
    for ordinal, topic in enumerate(topics):
        source_hash = _topic_hash(topic)
        known = entries.pop(topic.slug, None)
        if known is None or known[1] != source_hash:
            topic_rows.append(_topic_row(topic, source_hash, ordinal))
            stale += [known[0]] if known else []
        elif known[2] != ordinal:
            moved.append({"id": known[0], "deck_id": None, "ordinal": ordinal})
    stale += [entry_id for entry_id, *_ in entries.values()]
    for start in range(0, len(stale), 500):
        chunk = stale[start : start + 500]
        session.exec(delete(SearchEntry).where(col(SearchEntry.id).in_(chunk)))
    _drop_and_move_card_entries(session, moved=cards_moved, retired=cards_retired)
    # Made and written 500 cards at a time: a first import's 20,000 entries, with their folded
    # text, are never all in memory at once.
    for start in range(0, len(remake), 500):
        cards = _cards_with_reading(session, remake[start : start + 500])
        _insert(session, [_card_row(card, reading) for card, reading in cards])
    _insert(session, topic_rows)
    if moved:
        session.exec(update(SearchEntry), params=moved)
    return len(remake) + len(topic_rows)


def refresh_card_entries(session: Session, ids: list[str]) -> None:
    """Remake the entries of these cards that are missing or made from other text.

    An import calls it for each batch of cards it writes while the rest are still rendering,
    so that the entries' trigram indexing, a large part of writing a card, is not all left to
    the last transaction, when there is nothing else to do.
    """
    for start in range(0, len(ids), 500):
        remake, stale = _cards_out_of_line(session, ids[start : start + 500])
        if stale:
            session.exec(delete(SearchEntry).where(col(SearchEntry.id).in_(stale)))
        cards = _cards_with_reading(session, remake)
        _insert(session, [_card_row(card, reading) for card, reading in cards])


def _insert(session: Session, rows: list[dict[str, Any]]) -> None:
    if rows:  # Core's executemany: the ORM's bulk insert costs more than the rows themselves
        connection = session.connection()
        after = searchdb.last_entry(connection)
        connection.execute(table_of(SearchEntry).insert(), rows)
        searchdb.index_added(connection, after)


def _cards_out_of_line(
    session: Session, among: list[str] | None = None
) -> tuple[list[str], list[int]]:
    """Active cards (of `among`, if given) whose entry is missing or made from other text,
    and those entries' ids."""
    entry = SearchEntry
    query = (
        select(Card.id, entry.id)
        .outerjoin(entry, sa.and_(col(entry.kind) == "card", col(entry.key) == col(Card.id)))
        .where(
            col(Card.retired).is_(False),
            sa.or_(
                col(entry.id).is_(None),
                col(entry.source_hash)
                != sa.literal(f"{SEARCH_TEXT_VERSION}:") + col(Card.content_hash),
            ),
        )
    )
    if among is not None:
        query = query.where(col(Card.id).in_(among))
    remake: list[str] = []
    stale: list[int] = []
    for card_id, entry_id in session.exec(query):
        remake.append(card_id)
        stale += [] if entry_id is None else [entry_id]
    return remake, stale


def _drop_and_move_card_entries(session: Session, *, moved: bool, retired: bool) -> None:
    """Drop the entries of cards retired or gone; give the others their card's deck and place."""
    card, entry = table_of(Card), table_of(SearchEntry)
    connection = session.connection()
    active = sa.select(card.c.id).where(card.c.retired.is_(False))
    if retired:
        connection.execute(entry.delete().where(entry.c.kind == "card", entry.c.key.not_in(active)))
    if not moved:
        return
    connection.execute(
        entry.update()
        .where(
            entry.c.kind == "card",
            entry.c.key == card.c.id,
            sa.or_(
                entry.c.deck_id.is_distinct_from(card.c.deck_id),
                entry.c.ordinal.is_distinct_from(card.c.ordinal),
            ),
        )
        .values(deck_id=card.c.deck_id, ordinal=card.c.ordinal)
    )


def search_index_stale(session: Session) -> bool:
    """Whether entries are missing or made by another version: counted, not compared row by row.

    Imports that change nothing ask this instead of refreshing: a vault's tens of thousands of
    entries are read in full by a refresh.
    """
    entries = session.exec(select(sa.func.count()).select_from(SearchEntry)).one()
    cards = session.exec(
        select(sa.func.count()).select_from(Card).where(col(Card.retired).is_(False))
    ).one()
    topics = session.exec(select(sa.func.count()).select_from(Topic)).one()
    old = session.exec(
        select(sa.func.count())
        .select_from(SearchEntry)
        .where(
            SearchEntry.kind == "card",
            sa.func.substr(SearchEntry.source_hash, 1, len(SEARCH_TEXT_VERSION) + 1)
            != f"{SEARCH_TEXT_VERSION}:",
        )
    ).one()
    return entries != cards + topics or old > 0


class _CardText(NamedTuple):
    id: str
    deck_id: int
    ordinal: int
    content_hash: str
    question_text: str
    answer_text: str
    extra_text: str


def _cards_with_reading(session: Session, ids: list[str]) -> list[tuple[_CardText, str]]:
    """Each card's text and place with its continue-reading titles (columns, not Card objects)."""
    out: list[tuple[_CardText, str]] = []
    columns = (
        col(Card.id),
        col(Card.deck_id),
        col(Card.ordinal),
        col(Card.content_hash),
        col(Card.question_text),
        col(Card.answer_text),
        col(Card.extra_text),
    )
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        reading: dict[str, list[str]] = {}
        for card_id, title in session.exec(
            select(CardLink.card_id, CardLink.title)
            .where(col(CardLink.card_id).in_(chunk))
            .order_by(col(CardLink.card_id), col(CardLink.position))
        ):
            reading.setdefault(card_id, []).append(title)
        for card in session.execute(sa.select(*columns).where(col(Card.id).in_(chunk))):
            text = _CardText._make(card)
            out.append((text, " · ".join(reading.get(text.id, []))))
    return out


def _row(fields: SearchFields, **values: Any) -> dict[str, Any]:
    folded = fields.folded()
    return {
        **values,
        **{name: getattr(fields, name) for name in FIELDS},
        **{f"{name}_folded": folded[name] for name in FIELDS},
    }


def _card_row(card: _CardText, reading: str) -> dict[str, Any]:
    fields = SearchFields(card.question_text, card.answer_text, card.extra_text, reading)
    return _row(
        fields,
        kind="card",
        key=card.id,
        deck_id=card.deck_id,
        ordinal=card.ordinal,
        source_hash=f"{SEARCH_TEXT_VERSION}:{card.content_hash}",
        label=fields.title,
    )


def _topic_hash(topic: Topic) -> str:
    parts = [SEARCH_TEXT_VERSION, topic.title, *topic.aliases, topic.summary, topic.body_text]
    parts += [topic.extra_text, topic.reading_text]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _topic_row(topic: Topic, source_hash: str, ordinal: int) -> dict[str, Any]:
    fields = topic_fields(
        title=topic.title,
        aliases=topic.aliases,
        summary=topic.summary,
        body=topic.body_text,
        extra=topic.extra_text,
        reading=topic.reading_text,
    )
    return _row(
        fields,
        kind="topic",
        key=topic.slug,
        deck_id=None,
        ordinal=ordinal,
        source_hash=source_hash,
        label=topic.title,
    )
