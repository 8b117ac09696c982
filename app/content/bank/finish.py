"""What an import writes after the cards: retirements, topics, links, source files, the order.

And the source files' stamps that the next import compares, read in one statement.
"""

from sqlalchemy import bindparam, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, delete, select

from app.content.bank.searchindex import refresh_search_index
from app.content.bank.store import (
    chunks,
    number_cards,
    resolve_links,
    rows_in,
    update_by_key,
    write_topics,
)
from app.content.compile.build import CompiledTopic
from app.content.errors import ContentError
from app.content.notes.parsed import ParsedDeck
from app.content.notes.source import SourceText
from app.infra.generation import bump_generation
from app.infra.models import Card, CardLink, Deck, Learner, SourceFile, Topic, table_of, utcnow

# path -> (stamp, sha256) of every file the bank holds, as the last import read it
LastRead = dict[str, tuple[str, str]]


def finish_import(
    session: Session,
    decks: list[ParsedDeck],
    topics: list[CompiledTopic],
    present: set[str],
    changed: list[SourceText],
    removed: list[str],
    *,
    last: LastRead,
    reorder: bool,
) -> int:
    """Everything after the cards: retire what vanished, topics, links and source files.

    `reorder` says whether a card was added or moved, so that the content order must be made
    again. Returns how many cards retired.
    """
    stale_paths = {s.path for s in changed} | set(removed)
    # Cards whose file changed or vanished and that are nowhere in the new content retire.
    card, deck = table_of(Card), table_of(Deck)
    active_cards = sa_select(card.c.id, card.c.source_path).where(card.c.retired.is_(False))
    stale_ids = [row[0] for row in rows_in(session, active_cards, card.c.source_path, stale_paths)]
    decks_there = sa_select(deck.c.id, deck.c.path)
    stale_decks = rows_in(session, decks_there, deck.c.path, stale_paths)
    vanished = [card_id for card_id in stale_ids if card_id not in present]
    for chunk in chunks(vanished):
        session.exec(
            update(Card).where(col(Card.id).in_(chunk)).values(retired=True, updated_at=utcnow())
        )
    new_deck_paths = {d.path for d in decks}
    gone: list[dict[str, object]] = [
        {"key": row[0], "value": True} for row in stale_decks if row[1] not in new_deck_paths
    ]
    update_by_key(session, Deck, "id", "retired", gone)

    topics_changed = _write_topics(session, topics, stale_paths)
    resolve_links(session, only_unresolved=not topics_changed)

    for chunk in chunks(removed):
        session.exec(delete(SourceFile).where(col(SourceFile.path).in_(chunk)))
    _write_sources(session, changed, {deck.path for deck in decks}, last)
    number_cards(session, reorder=reorder)
    # A card moves (deck, place) only with `reorder`, and an entry is orphaned only by a card
    # that retires.
    refresh_search_index(session, cards_moved=reorder, cards_retired=bool(vanished))
    bump_generation(session)
    # Cards may have moved or come back in content order: every learner's search for new
    # cards starts from the beginning again (app.study keeps the cursor from there).
    session.exec(update(Learner).values(new_cursor=0))
    return len(vanished)


def _write_topics(session: Session, topics: list[CompiledTopic], stale_paths: set[str]) -> bool:
    """Write the new topics and delete those whose file no longer holds them; True if any."""
    write_topics(session, topics)
    new_slugs = {t.topic.slug for t in topics}
    deleted = False
    for chunk in chunks(sorted(stale_paths)):
        for stored in session.exec(select(Topic).where(col(Topic.path).in_(chunk))).all():
            if stored.slug not in new_slugs:
                deleted = True
                session.delete(stored)
    session.flush()
    return bool(topics) or deleted


def last_read(session: Session) -> LastRead:
    """Every imported file's stamp and hash, in one statement: what a re-import compares."""
    columns = (col(SourceFile.path), col(SourceFile.stamp), col(SourceFile.sha256))
    rows = session.connection().execute(sa_select(*columns))
    return {path: (stamp, sha256) for path, stamp, sha256 in rows}


def _write_sources(
    session: Session, changed: list[SourceText], deck_paths: set[str], last: LastRead
) -> None:
    """Record the files this import read: one executemany each for new and known ones."""
    now = utcnow()
    rows = [
        {
            "path": source.path,
            "kind": "deck" if source.path in deck_paths else "topic",
            "sha256": source.sha256,
            "stamp": source.stamp,
            "imported_at": now,
        }
        for source in changed
    ]
    table = table_of(SourceFile)
    # Which rows exist was read at the start (`last`), in the import's one read of the table.
    new = [row for row in rows if row["path"] not in last]
    if new:
        session.connection().execute(table.insert(), new)
    known = [{**row, "key": row["path"]} for row in rows if row["path"] in last]
    if known:
        session.connection().execute(
            table.update()
            .where(table.c.path == bindparam("key"))
            .values(
                kind=bindparam("kind"),
                sha256=bindparam("sha256"),
                stamp=bindparam("stamp"),
                imported_at=bindparam("imported_at"),
            ),
            known,
        )


def new_stamps(sources: list[SourceText], last: LastRead) -> list[dict[str, object]]:
    """The new stamps of files touched but not changed, as rows for `restamp`."""
    return [
        {"key": s.path, "value": s.stamp}
        for s in sources
        if s.path in last and last[s.path][0] != s.stamp and last[s.path][1] == s.sha256
    ]


def restamp(session: Session, rows: list[dict[str, object]]) -> None:
    """Keep the new stamps of files touched but not changed, so the next import skips them."""
    update_by_key(session, SourceFile, "path", "stamp", rows)


def unresolved_links(session: Session) -> list[ContentError]:
    rows = session.exec(
        select(CardLink.target, Card.source_path, Card.source_line)
        .join(Card, col(Card.id) == CardLink.card_id)
        .where(
            col(CardLink.external).is_(False),
            col(CardLink.topic_slug).is_(None),
            col(Card.retired).is_(False),
        )
    ).all()
    return [
        ContentError.of("reading_no_topic", path, line, target=target)
        for target, path, line in rows
    ]


def count_bank(session: Session) -> tuple[int, int, int]:
    """Active cards, active decks and topics."""
    cards = session.exec(
        select(func.count()).select_from(Card).where(col(Card.retired).is_(False))
    ).one()
    decks = session.exec(
        select(func.count()).select_from(Deck).where(col(Deck.retired).is_(False))
    ).one()
    return cards, decks, session.exec(select(func.count()).select_from(Topic)).one()
