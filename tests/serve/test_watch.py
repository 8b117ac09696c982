"""`qbank serve --watch`: editing content re-imports it while the server runs."""

import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from sqlmodel import select

from app.config import Settings
from app.infra.jobs import latest_job
from app.infra.models import Card
from app.serve import ensure_imported, watch_content

pytestmark = pytest.mark.storage

DECK = """
---
title: Watched
---

## Section

### Q：First question? {#first}

**Answer.** One.
"""


def _wait_for(predicate, timeout: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_watch_reimports_changed_content(
    settings_database, settings: Settings, write_content: Callable[[Mapping[str, str | None]], Path]
) -> None:
    root = write_content({"decks/watched.md": DECK})
    settings = settings.model_copy(update={"content_dir": root})
    database = settings_database
    assert ensure_imported(database, settings)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_content, args=(database, settings, stop), daemon=True)
    watcher.start()
    try:
        time.sleep(0.5)  # let the watcher start before the edit it must see
        edited = DECK + "\n### Q：Second question? {#second}\n\n**Answer.** Two.\n"
        write_content({"decks/watched.md": edited})

        def second_card() -> Card | None:
            with database.session() as session:
                return session.get(Card, "second")

        assert _wait_for(lambda: second_card() is not None)

        # A broken formula is imported as its source, marked, and the rest stays.
        write_content({"decks/watched.md": edited.replace("**Answer.** Two.", "$\\frac{$")})

        def marked() -> bool:
            with database.session() as session:
                card = session.get(Card, "second")
                return card is not None and "math-error" in card.answer_html

        assert _wait_for(marked)
        with database.session() as session:
            assert len(session.exec(select(Card)).all()) == 2
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert not watcher.is_alive()


def test_a_watched_edit_reads_the_changed_file_only(
    settings_database, settings: Settings, write_content: Callable[[Mapping[str, str | None]], Path]
) -> None:
    notes = {f"notes/n{n:02d}.md": f"# N{n}\n\n## Why {n}?\n\nBecause.\n" for n in range(30)}
    root = write_content(notes)
    past = time.time() - 60  # a file written this instant is read by every import (racy stamp)
    for path in root.rglob("*.md"):
        os.utime(path, (past, past))
    settings = settings.model_copy(update={"content_dir": root})
    database = settings_database
    assert ensure_imported(database, settings)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_content, args=(database, settings, stop), daemon=True)
    watcher.start()
    try:
        time.sleep(0.5)  # let the watcher start before the edit it must see
        write_content({"notes/n07.md": "# N7\n\n## Why 7?\n\nBecause it was edited.\n"})

        def watched() -> dict[str, object] | None:
            with database.session() as session:
                job = latest_job(session, kind="import", learner_id=None)
                result = job.result if job else None
                return result if result and result.get("source") == "watch" else None

        assert _wait_for(lambda: watched() is not None)
        result = watched()
        assert result is not None
        assert (result["files_read"], result["files_skipped"]) == (1, 29)
        assert (result["updated"], result["added"], result["retired"]) == (1, 0, 0)
    finally:
        stop.set()
        watcher.join(timeout=10)
