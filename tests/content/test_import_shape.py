"""The work an import does grows with what changed, not with the size of the notes folder.

Counted in statements sent to the database, on both backends, never in seconds.
"""

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import Session, col, select

from app.content.bank.sync import ImportReport, import_content
from app.infra.db import Database
from app.infra.models import Card, Deck
from tests.support.content_files import WriteContent

pytestmark = pytest.mark.storage


def note(n: int, answer: str = "Because it is.") -> str:
    return f"# Note {n}\n\n## Why does thing {n} matter?\n\n{answer}\n"


def notes(first: int, count: int) -> dict[str, str | None]:
    return {f"folder-{n % 3}/note-{n:03d}.md": note(n) for n in range(first, first + count)}


def settled(root: Path) -> Path:
    """Date every note a minute back: a file written this instant is read by every import,
    since its stamp could still change unseen."""
    past = time.time() - 60
    for path in root.rglob("*.md"):
        os.utime(path, (past, past))
    return root


@contextmanager
def statements(database: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_connection: Any, _cursor: Any, text: str, *_: Any) -> None:
        seen.append(text)

    event.listen(database.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(database.engine, "before_cursor_execute", record)


def counted(root: Path, database: Database) -> tuple[ImportReport, list[str]]:
    with statements(database) as seen:
        report = import_content(root, database)
    return report, list(seen)


def test_a_no_op_import_sends_the_same_few_statements_however_many_notes(
    database: Database, write_content: WriteContent
) -> None:
    root = settled(write_content(notes(0, 4)))
    import_content(root, database)
    small, small_statements = counted(root, database)
    assert small.files_read == 0 and small.unchanged == 4

    settled(write_content(notes(4, 36)))
    import_content(root, database)
    large, large_statements = counted(root, database)
    assert large.files_read == 0 and large.unchanged == 40
    assert len(large_statements) == len(small_statements) <= 12
    # Nothing to mend: no write, and no write lock for a rating to wait on.
    writes = ("INSERT", "UPDATE", "DELETE", "BEGIN IMMEDIATE")
    assert [s for s in large_statements if s.lstrip().upper().startswith(writes)] == []


def test_an_edit_reads_one_file_and_sends_as_many_statements_in_a_larger_folder(
    database: Database, write_content: WriteContent
) -> None:
    def edit(root: Path, n: int) -> tuple[ImportReport, list[str]]:
        write_content({f"folder-{n % 3}/note-{n:03d}.md": note(n, "Because it was edited.")})
        return counted(root, database)

    root = settled(write_content(notes(0, 4)))
    import_content(root, database)
    small, small_statements = edit(root, 1)
    assert (small.files_read, small.updated, small.added) == (1, 1, 0)

    settled(write_content(notes(4, 36)))
    import_content(root, database)
    large, large_statements = edit(root, 2)
    assert (large.files_read, large.updated, large.added) == (1, 1, 0)
    assert len(large_statements) == len(small_statements)
    with Session(database.engine) as session:
        card = session.exec(select(Card).where(Card.source_path == "folder-2/note-002.md")).one()
        assert "edited" in card.answer_html


def test_deck_counts_follow_added_and_removed_notes(
    database: Database, write_content: WriteContent
) -> None:
    root = write_content(notes(0, 3))
    import_content(root, database)
    write_content(
        {
            "folder-0/note-000.md": note(0) + "\n## And why does it break?\n\nLoad.\n",
            "folder-1/note-001.md": None,
        }
    )
    import_content(root, database)
    with Session(database.engine) as session:
        counts = dict(session.exec(select(Deck.path, Deck.card_count)).all())
        retired = session.exec(select(Deck.path).where(col(Deck.retired).is_(True))).all()
    assert counts == {
        "folder-0/note-000.md": 2,
        "folder-1/note-001.md": 0,
        "folder-2/note-002.md": 1,
    }
    assert retired == ["folder-1/note-001.md"]
