"""What the notes fixtures' cards look like once imported: their section and their answer's HTML.

An expected.json card may pin `section` (the heading its card is filed under),
`answer_html_contains` and `answer_html_excludes` (fragments of the stored answer HTML, such as
`<mark>` or a `<details>` label that must not show), and `front_html_contains` (fragments of
what the question side shows under the question, such as the code it asks about). These are
read back from the database, on SQLite and PostgreSQL. A check the folder marks "pending"
("sections", "html") is expected to fail until the parser learns its syntax, as in
tests/content/test_notes.py.
"""

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.content.bank.sync import import_content
from app.infra.db import Database
from app.infra.models import Card
from tests.support.notes import NOTES, expected, mark_pending, normal

pytestmark = pytest.mark.storage


def _folders(key: str) -> list[str]:
    names = sorted(p.parent.name for p in NOTES.glob("*/expected.json"))
    return [n for n in names if any(key in card for card in expected(n)["cards"])]


def _imported(folder: str, tmp_path: Path, database: Database, engine: Engine) -> list[Card]:
    root = tmp_path / folder
    shutil.copytree(NOTES / folder, root, ignore=shutil.ignore_patterns("expected.json"))
    import_content(root, database)
    with Session(engine) as session:
        rows = session.exec(select(Card).where(col(Card.retired).is_(False))).all()
    return sorted(rows, key=lambda c: (c.source_path, c.source_line))


def _stored(item: dict[str, Any], stored: list[Card]) -> Card:
    """The stored card an expected.json entry names (its file and question)."""
    matches = [
        card
        for card in stored
        if card.source_path == item["file"] and normal(card.question) == normal(item["question"])
    ]
    assert matches, (
        f"{item['file']}: no card '{item['question']}' among {[c.question for c in stored]}"
    )
    return matches[0]


@pytest.mark.parametrize("folder", _folders("section"))
def test_cards_are_filed_under_their_section(
    folder: str,
    tmp_path: Path,
    database: Database,
    engine: Engine,
    request: pytest.FixtureRequest,
) -> None:
    mark_pending(request, folder, "sections")
    stored = _imported(folder, tmp_path, database, engine)
    for item in expected(folder)["cards"]:
        if "section" in item:
            card = _stored(item, stored)
            assert normal(card.section) == normal(item["section"]), (item["question"], card.section)


_HTML_KEYS = ("answer_html_contains", "answer_html_excludes", "front_html_contains")


@pytest.mark.parametrize("folder", sorted({f for key in _HTML_KEYS for f in _folders(key)}))
def test_answers_render_as_the_notes_mean(
    folder: str,
    tmp_path: Path,
    database: Database,
    engine: Engine,
    request: pytest.FixtureRequest,
) -> None:
    mark_pending(request, folder, "html")
    stored = _imported(folder, tmp_path, database, engine)
    for item in expected(folder)["cards"]:
        if not set(_HTML_KEYS) & item.keys():
            continue
        card = _stored(item, stored)
        html = card.answer_html
        for fragment in item.get("answer_html_contains", []):
            assert fragment in html, (item["question"], fragment, html)
        for fragment in item.get("answer_html_excludes", []):
            assert fragment not in html, (item["question"], fragment, html)
        for fragment in item.get("front_html_contains", []):
            assert fragment in card.front_html, (item["question"], fragment, card.front_html)
