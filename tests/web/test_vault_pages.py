"""A vault of many notes: pages show a bounded part of it, in a bounded number of statements.

Every note with a question is a deck, so a vault is thousands of decks. The shape is pinned,
never the time: how many items a page renders, how many statements it runs, that a folder
pages, and that every folder link the app prints answers.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, insert

from app.infra.db import Database
from app.infra.models import Card, Deck
from app.study.folders import PAGE_SIZE

# Folders are prefixes and groups compared in SQL: both databases.
pytestmark = pytest.mark.storage

DEEP = 50


@pytest.fixture
def bank_dir(write_content) -> Path:
    return write_content({"start.md": "# Start\n\n## What is a vault?\n\nMany notes.\n"})


def add_decks(database: Database, paths: list[str], prefix: str = "v") -> None:
    """One deck of one card per note path (slugs `<prefix><n>`), as an import leaves them."""
    table = Deck.__table__  # type: ignore[attr-defined]
    decks = [
        {"slug": f"{prefix}{n}", "title": f"Note {n}", "path": path, "card_count": 1, "tags": []}
        for n, path in enumerate(paths)
    ]
    with database.session() as session, database.writing(session):
        inserted = session.connection().execute(
            table.insert().returning(table.c.id, table.c.path), decks
        )
        cards = [
            {
                "id": f"{prefix}-card-{deck_id}",
                "deck_id": deck_id,
                "question": "Question?",
                "question_html": "Question?",
                "answer_html": "<p>Answer.</p>",
                "ordinal": 10 + deck_id,
                "tags": [],
                "source_path": path,
            }
            for deck_id, path in inserted
        ]
        session.exec(insert(Card), params=cards)  # type: ignore[call-overload]


@contextmanager
def statements(app: FastAPI) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_connection: Any, _cursor: Any, text: str, *_: Any) -> None:
        seen.append(text)

    engine = app.state.database.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def get(client: TestClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.text


def deck_rows(page: str) -> list[str]:
    return re.findall(r'<a class="deck-name" href="/decks/([^"]+)">', page)


def folder_rows(page: str) -> list[str]:
    return re.findall(r'<li class="folder-row" data-folder="([^"]+)">', page)


def test_the_home_page_of_2000_decks_shows_the_folders_counted_in_one_statement(client, app):
    paths = [f"folder-{n % 40:02d}/note-{n:04d}.md" for n in range(2000)]
    add_decks(app.state.database, paths[:40])
    get(client, "/")
    with statements(app) as small:
        get(client, "/")
    add_decks(app.state.database, paths[40:], prefix="x")
    with statements(app) as large:
        page = get(client, "/")
    assert folder_rows(page) == [f"folder-{n:02d}" for n in range(40)]
    assert deck_rows(page) == ["start"]  # the one note at the top; the rest wait in folders
    assert page.count("<li ") <= PAGE_SIZE + 10
    assert "<span>Total <b>50</b></span><span>50 decks</span>" in page
    # The same statements for 2,000 decks as for 40, and one of them counts every folder.
    assert len(large) == len(small), (small, large)
    assert sum("AS child" in text for text in large) == 1


def test_a_folder_pages_its_decks(client, app):
    add_decks(app.state.database, [f"big/note-{n:04d}.md" for n in range(120)])
    first = get(client, "/folders/big")
    assert deck_rows(first) == [f"v{n}" for n in range(PAGE_SIZE)]
    assert 'rel="next" href="/folders/big?page=2"' in first and 'rel="prev"' not in first
    assert "Page 1 of 3" in first
    last = get(client, "/folders/big?page=3")
    assert deck_rows(last) == [f"v{n}" for n in range(100, 120)]
    assert 'rel="prev" href="/folders/big?page=2"' in last and 'rel="next"' not in last
    assert deck_rows(get(client, "/folders/big?page=99")) == deck_rows(last)
    # The home page pages its own decks and folders the same way.
    add_decks(app.state.database, [f"top-{n:03d}.md" for n in range(60)], prefix="w")
    home = get(client, "/")
    assert len(folder_rows(home)) + len(deck_rows(home)) == PAGE_SIZE
    assert 'rel="next" href="/?page=2"' in home
    second = get(client, "/?page=2")
    assert len(folder_rows(second)) + len(deck_rows(second)) == 62 - PAGE_SIZE


def test_every_folder_link_the_app_prints_answers_with_folders_50_deep(client, app):
    levels = [f"level-{n:02d}-a-folder-with-a-descriptive-name" for n in range(DEEP)]
    paths = ["/".join(levels[: depth + 1]) + f"/note-{depth}.md" for depth in range(DEEP)]
    add_decks(app.state.database, paths)
    assert len(paths[-1]) > 2000
    pages, links, seen = ["/"], set(), set()
    while pages:
        url = pages.pop()
        seen.add(url)
        page = get(client, url)
        for link in re.findall(r'href="(/(?:study|practice|interview/mock|folders/)[^"]*)"', page):
            link = link.replace("&amp;", "&")
            links.add(link)
            if link.startswith("/folders/") and link not in seen:
                pages.append(link)
    folders = {unquote(link.split("folder=")[1]) for link in links if "folder=" in link}
    assert len(folders) == DEEP  # every level, each linked from its parent's page
    for link in sorted(links):
        assert client.get(link).status_code == 200, link[:80]
