"""The per-deck counts of studied cards, kept by triggers, always equal a count of the states."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.backup.export import export_learner
from app.backup.restore import restore_learner
from app.content.bank.sync import import_content
from app.infra.db import Database, database_of
from app.infra.seencount import RECOUNT
from app.study import Filters, counts, get_learner, record_review, undo_last
from app.study import queue as study
from tests.support.content_files import WriteContent
from tests.support.migrations import triggers

pytestmark = pytest.mark.storage

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def deck(slug: str, *ids: str) -> str:
    lines = ["---", f"title: {slug}", f"slug: {slug}", "language: en", "style: numbered", "---"]
    for n, card_id in enumerate(ids, 1):
        lines += ["", f"## {n}. Question {card_id} {{#{card_id}}}", "", f"**Answer.** {card_id}."]
    return "\n".join(lines) + "\n"


def kept(engine: Engine) -> dict[tuple[str, str], int]:
    """The counts as kept, by learner name and deck slug, leaving out zeros."""
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT learner.name, deck.slug, seencount.seen FROM seencount"
            " JOIN learner ON learner.id = seencount.learner_id"
            " JOIN deck ON deck.id = seencount.deck_id"
        ).all()
    return {(name, slug): seen for name, slug, seen in rows if seen}


def recounted(engine: Engine) -> dict[tuple[str, str], int]:
    """The counts made again from the states, in a transaction that is rolled back."""
    with engine.connect() as connection, connection.begin() as transaction:
        for statement in RECOUNT:
            connection.exec_driver_sql(statement)
        rows = connection.exec_driver_sql(
            "SELECT learner.name, deck.slug, seencount.seen FROM seencount"
            " JOIN learner ON learner.id = seencount.learner_id"
            " JOIN deck ON deck.id = seencount.deck_id"
        ).all()
        transaction.rollback()
    return {(name, slug): seen for name, slug, seen in rows if seen}


def rate(session: Session, name: str, *card_ids: str, days_ago: int = 1) -> None:
    database = database_of(session)
    learner = get_learner(session, name)
    for card_id in card_ids:
        when = NOW - timedelta(days=days_ago)
        record_review(
            session, learner=learner, card_id=card_id, rating=3, now=when, database=database
        )


def new_left(session: Session, name: str, filters: Filters) -> int:
    learner = get_learner(session, name)
    learner.new_per_day = 1000
    return counts(session, learner=learner, now=NOW, filters=filters).new


@pytest.fixture(autouse=True)
def _count_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count new cards from the kept counts (not by walking from the cursor) in every test."""
    monkeypatch.setattr(study, "WALK_NEW_CARDS", 0)


def test_ratings_undos_and_imports_keep_the_counts(
    database: Database, engine: Engine, write_content: WriteContent
) -> None:
    write = lambda files: import_content(write_content(files), database)  # noqa: E731
    write({"decks/a.md": deck("a", "a1", "a2", "a3"), "decks/b.md": deck("b", "b1", "b2")})
    with database.session() as session:
        rate(session, "ana", "a1", "a2", "b1")
        rate(session, "bo", "a1", "a3")
        undo_last(
            session,
            learner=get_learner(session, "bo"),
            now=NOW - timedelta(hours=23),
            database=database,
        )
        assert kept(engine) == {("ana", "a"): 2, ("ana", "b"): 1, ("bo", "a"): 1}
        assert new_left(session, "ana", Filters()) == 2
        assert new_left(session, "ana", Filters(deck="a")) == 1
        assert new_left(session, "bo", Filters(deck="a")) == 2

    # a2 moves to deck b, a3 is gone (retired), then comes back.
    write({"decks/a.md": deck("a", "a1"), "decks/b.md": deck("b", "b1", "b2", "a2")})
    assert kept(engine) == {("ana", "a"): 1, ("ana", "b"): 2, ("bo", "a"): 1}
    write({"decks/a.md": deck("a", "a1", "a3")})
    assert kept(engine) == {("ana", "a"): 1, ("ana", "b"): 2, ("bo", "a"): 1}
    # A whole deck retired and brought back.
    write({"decks/b.md": None})
    assert kept(engine) == {("ana", "a"): 1, ("bo", "a"): 1}
    with database.session() as session:
        assert new_left(session, "ana", Filters()) == 1  # a3
        assert new_left(session, "ana", Filters(deck="b")) == 0
    write({"decks/b.md": deck("b", "b1", "b2", "a2")})
    assert kept(engine) == recounted(engine) == {("ana", "a"): 1, ("ana", "b"): 2, ("bo", "a"): 1}
    with database.session() as session:
        assert new_left(session, "ana", Filters()) == 2  # a3, b2
        assert new_left(session, "ana", Filters(folder="decks")) == 2


def test_a_restored_backup_is_counted(
    database: Database, engine: Engine, write_content: WriteContent
) -> None:
    import_content(write_content({"decks/a.md": deck("a", "a1", "a2", "a3")}), database)
    with database.session() as session:
        rate(session, "ana", "a1", "a2")
        document: dict[str, Any] = export_learner(
            session=session, learner=get_learner(session, "ana")
        )
        document["states"].append({**document["states"][0], "card_id": "gone"})
        restore_learner(
            session=session, learner=get_learner(session, "cy"), data=document, database=database
        )
        # The card the bank lacks came back as a retired placeholder: not counted.
        assert kept(engine) == recounted(engine) == {("ana", "a"): 2, ("cy", "a"): 2}
        assert new_left(session, "cy", Filters()) == 1


def test_the_counts_are_made_with_the_schema(engine: Engine) -> None:
    assert {"seencount_state_insert", "seencount_state_delete", "seencount_card_update"} <= set(
        triggers(engine)
    )
