"""Keep the search entries in line with the bank: remake those whose card or topic changed."""

import hashlib
from typing import Any

from sqlalchemy import delete, insert, update
from sqlmodel import Session, col, select

from app.content.searchtext import FIELDS, SearchFields, card_fields, topic_fields
from app.infra.models import Card, CardLink, Followup, SearchEntry, Topic

# Part of every entry's source hash: changing how search text is made remakes every entry.
SEARCH_TEXT_VERSION = "2"


def refresh_search_index(session: Session, made: dict[str, SearchFields] | None = None) -> int:
    """Remake the entries of new or changed cards and topics, drop those gone; return the count.

    Cheap when nothing changed (one read of ids and hashes), so every import calls it, which
    also fills the entries of a bank imported before search entries existed. `made` holds
    the fields of cards the import has just compiled, by id; other cards' are read back.
    """
    entries = {
        (kind, key): (entry_id, source_hash, deck_id, ordinal)
        for entry_id, kind, key, source_hash, deck_id, ordinal in session.exec(
            select(
                SearchEntry.id,
                SearchEntry.kind,
                SearchEntry.key,
                SearchEntry.source_hash,
                SearchEntry.deck_id,
                SearchEntry.ordinal,
            )
        )
    }
    cards = session.exec(
        select(Card.id, Card.content_hash, Card.deck_id, Card.ordinal).where(
            col(Card.retired).is_(False)
        )
    ).all()
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
    made = made or {}
    rows = [
        _card_row(card, made.get(card.id) or _fields(card, reading, followups))
        for card, reading, followups in _cards_with_reading(session, remake, made)
    ]

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


def _cards_with_reading(
    session: Session, ids: list[str], made: dict[str, SearchFields]
) -> list[tuple[Card, str, str]]:
    """Each card with its continue-reading titles and its follow-up questions' HTML.

    Cards in `made` come without them: their fields are known already.
    """
    out: list[tuple[Card, str, str]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        if all(card_id in made for card_id in chunk):
            out += [
                (card, "", "") for card in session.exec(select(Card).where(col(Card.id).in_(chunk)))
            ]
            continue
        reading: dict[str, list[str]] = {}
        for card_id, title in session.exec(
            select(CardLink.card_id, CardLink.title)
            .where(col(CardLink.card_id).in_(chunk))
            .order_by(col(CardLink.card_id), col(CardLink.position))
        ):
            reading.setdefault(card_id, []).append(title)
        followups: dict[str, list[str]] = {}
        for card_id, question_html, answer_html in session.exec(
            select(Followup.card_id, Followup.question_html, Followup.answer_html)
            .where(col(Followup.card_id).in_(chunk))
            .order_by(col(Followup.card_id), col(Followup.position))
        ):
            followups.setdefault(card_id, []).append(f"<p>{question_html}</p>{answer_html}")
        for card in session.exec(select(Card).where(col(Card.id).in_(chunk))):
            titles = " · ".join(reading.get(card.id, []))
            out.append((card, titles, "".join(followups.get(card.id, []))))
    return out


def _row(fields: SearchFields, **values: Any) -> dict[str, Any]:
    folded = fields.folded()
    return {
        **values,
        **{name: getattr(fields, name) for name in FIELDS},
        **{f"{name}_folded": folded[name] for name in FIELDS},
    }


def _fields(card: Card, reading: str, followups_html: str) -> SearchFields:
    return card_fields(
        question=card.question_html,
        answer_html=card.answer_html,
        # The follow-up questions rank with the follow-ups' prose.
        followups_html=followups_html + card.followups_html,
        pitfalls_html=card.pitfalls_html,
        reading=reading,
    )


def _card_row(card: Card, fields: SearchFields) -> dict[str, Any]:
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
    parts = [SEARCH_TEXT_VERSION, topic.title, *topic.aliases, topic.summary, topic.body_html]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _topic_row(topic: Topic, source_hash: str, ordinal: int) -> dict[str, Any]:
    fields = topic_fields(
        title=topic.title, aliases=topic.aliases, summary=topic.summary, body_html=topic.body_html
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
