"""Keep the search entries in line with the bank: remake those whose card or topic changed."""

import hashlib
from typing import Any

import sqlalchemy as sa
from sqlalchemy import delete, insert, update
from sqlmodel import Session, col, select

from app.content.compile.searchtext import FIELDS, SearchFields, topic_fields
from app.infra.models import Card, CardLink, SearchEntry, Topic

# Part of every entry's source hash: changing how search text is made remakes every entry.
SEARCH_TEXT_VERSION = "2"


def refresh_search_index(session: Session) -> int:
    """Remake the entries of new or changed cards and topics, drop those gone; return the count.

    Cheap when nothing changed (one read of ids and hashes), so every import calls it, which
    also fills the entries of a bank imported before search entries existed. The text is the
    plain text the import compiled and stored with each card and topic.
    """
    # A bank whose card entries are all in line (every import that changed no card) is told
    # by two counts in the database, not by reading every card and entry here.
    cards_in_line = _cards_in_line(session)
    query = sa.select(
        col(SearchEntry.id),
        col(SearchEntry.kind),
        col(SearchEntry.key),
        col(SearchEntry.source_hash),
        col(SearchEntry.deck_id),
        col(SearchEntry.ordinal),
    )
    if cards_in_line:
        query = query.where(col(SearchEntry.kind) != "card")
    entries = {
        (row.kind, row.key): (row.id, row.source_hash, row.deck_id, row.ordinal)
        for row in session.execute(query)
    }
    cards = (
        []
        if cards_in_line
        else session.exec(
            select(Card.id, Card.content_hash, Card.deck_id, Card.ordinal).where(
                col(Card.retired).is_(False)
            )
        ).all()
    )
    remake: list[str] = []
    moved: list[dict[str, Any]] = []
    stale: list[int] = []  # entries to delete: gone, or about to be made again
    for card_id, content_hash, deck_id, ordinal in cards:
        known = entries.pop(("card", card_id), None)
        if known is None or known[1] != f"{SEARCH_TEXT_VERSION}:{content_hash}":
            remake.append(card_id)
            stale += [known[0]] if known else []
        elif (known[2], known[3]) != (deck_id, ordinal):
            moved.append({"id": known[0], "deck_id": deck_id, "ordinal": ordinal})
    rows = [_card_row(card, reading) for card, reading in _cards_with_reading(session, remake)]

    topics = sorted(session.exec(select(Topic)).all(), key=lambda t: t.title)
    for ordinal, topic in enumerate(topics):
        source_hash = _topic_hash(topic)
        known = entries.pop(("topic", topic.slug), None)
        if known is None or known[1] != source_hash:
            rows.append(_topic_row(topic, source_hash, ordinal))
            stale += [known[0]] if known else []
        elif known[3] != ordinal:
            moved.append({"id": known[0], "deck_id": None, "ordinal": ordinal})

    stale += [entry_id for entry_id, *_ in entries.values()]
    for start in range(0, len(stale), 500):
        chunk = stale[start : start + 500]
        session.exec(delete(SearchEntry).where(col(SearchEntry.id).in_(chunk)))
    if rows:
        session.exec(insert(SearchEntry), params=rows)
    if moved:
        session.exec(update(SearchEntry), params=moved)
    return len(rows)


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


def _cards_in_line(session: Session) -> bool:
    """Whether every active card has its entry, up to date and in place, and no other does."""
    entry = SearchEntry
    stale_or_missing = (
        sa.select(sa.func.count())
        .select_from(Card)
        .outerjoin(entry, sa.and_(col(entry.kind) == "card", col(entry.key) == col(Card.id)))
        .where(
            col(Card.retired).is_(False),
            sa.or_(
                col(entry.id).is_(None),
                col(entry.source_hash)
                != sa.literal(f"{SEARCH_TEXT_VERSION}:") + col(Card.content_hash),
                col(entry.deck_id).is_distinct_from(col(Card.deck_id)),
                col(entry.ordinal).is_distinct_from(col(Card.ordinal)),
            ),
        )
    )
    if session.execute(stale_or_missing).scalar_one():
        return False
    active = sa.select(col(Card.id)).where(col(Card.retired).is_(False))
    orphans = (
        sa.select(sa.func.count())
        .select_from(entry)
        .where(col(entry.kind) == "card", col(entry.key).not_in(active))
    )
    return not session.execute(orphans).scalar_one()


# What a card's entry is made of: its search text, not its HTML and other forms.
_ENTRY_COLUMNS = (
    col(Card.id),
    col(Card.question_text),
    col(Card.answer_text),
    col(Card.extra_text),
    col(Card.deck_id),
    col(Card.ordinal),
    col(Card.content_hash),
)


def _cards_with_reading(session: Session, ids: list[str]) -> list[tuple[Any, str]]:
    """Each card's entry columns with its continue-reading titles."""
    out: list[tuple[Any, str]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        reading: dict[str, list[str]] = {}
        for card_id, title in session.exec(
            select(CardLink.card_id, CardLink.title)
            .where(col(CardLink.card_id).in_(chunk))
            .order_by(col(CardLink.card_id), col(CardLink.position))
        ):
            reading.setdefault(card_id, []).append(title)
        for card in session.execute(sa.select(*_ENTRY_COLUMNS).where(col(Card.id).in_(chunk))):
            out.append((card, " · ".join(reading.get(card.id, []))))
    return out


def _row(fields: SearchFields, **values: Any) -> dict[str, Any]:
    folded = fields.folded()
    return {
        **values,
        **{name: getattr(fields, name) for name in FIELDS},
        **{f"{name}_folded": folded[name] for name in FIELDS},
    }


def _card_row(card: Any, reading: str) -> dict[str, Any]:
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
