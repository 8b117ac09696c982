"""Follow-up questions in the .apkg as Anki itself imports it, and updated in place on re-export."""

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.content.bank.sync import import_content
from app.export.anki import export_apkg

# Skips this module, as it does its own, when the `anki` package is not installed.
from tests.support.anki import (
    collection,  # noqa: F401  (a fixture)
    import_into,
    notes_by_card,
)
from tests.support.content_files import WriteContent
from tests.support.followups import QUESTIONS


def exported(engine: Engine, path: Path, month: int) -> Path:
    with Session(engine) as session:
        # Anki takes a note from a package only when it was modified later than its own copy.
        now = datetime(2026, month, 1, tzinfo=UTC)
        export_apkg(session=session, deck_slug=None, path=path, now=now)
    return path


def test_anki_shows_each_question_with_its_answer_and_updates_them(
    database,
    write_content: WriteContent,
    engine: Engine,
    collection,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    import_content(root, database)
    import_into(collection, exported(engine, tmp_path / "first.apkg", 1))

    followups = notes_by_card(collection)["fa"]["Followups"]
    assert '<div class="q">backward 不存 attention matrix 怎么求梯度？</div>' in followups
    assert r"按块重算 \(P=\exp(QK^\top-L)\)" in followups
    card = collection.get_card(collection.find_cards("Source:*fa")[0])
    assert "为什么 head dim 大了收益变小？" in card.answer()
    assert "为什么 head dim 大了收益变小？" not in card.question()

    write_content({"decks/attention.md": QUESTIONS.replace("每块放得下的行变少", "块变小")})
    import_content(root, database)
    import_into(collection, exported(engine, tmp_path / "second.apkg", 2))

    assert collection.note_count() == 2
    followups = notes_by_card(collection)["fa"]["Followups"]
    assert "SRAM 固定，块变小。" in followups
    assert "每块放得下的行变少" not in followups
