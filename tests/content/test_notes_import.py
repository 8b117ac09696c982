"""Importing someone's notes folder on both databases: history survives moves and edits, and a
problem in one note is a warning while the rest imports."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.content.bank.sync import import_content
from app.content.errors import ContentErrors
from app.infra.models import Card, Deck, Learner, ReviewLog, Topic
from tests.support.content_files import WriteContent
from tests.support.imports import add_history

pytestmark = pytest.mark.storage

NOTES = Path(__file__).parents[1] / "fixtures" / "notes"

TCP = """# 网络

## TCP 为什么需要三次握手？

两次握手时服务端无法确认客户端能收到自己的报文。

## What is a socket?

An endpoint for sending and receiving data.
"""


def active_cards(engine: Engine) -> dict[str, Card]:
    with Session(engine) as session:
        rows = session.exec(select(Card).where(col(Card.retired).is_(False))).all()
        return {card.question: card for card in rows}


def test_moving_renaming_and_editing_notes_keeps_history(
    database, write_content: WriteContent, engine: Engine, make_learner: Callable[..., Learner]
) -> None:
    root = write_content({"后端/网络/tcp.md": TCP})
    import_content(root, database)
    before = active_cards(engine)
    card = before["TCP 为什么需要三次握手？"]
    add_history(database, card.id, make_learner())

    # The folder renamed, the note moved deeper and renamed, its answer edited.
    shutil.rmtree(root / "后端")
    edited = TCP.replace("自己的报文。", "自己的报文，历史连接也会被误认。")
    write_content({"backend/net/handshake/tcp-basics.md": edited})
    report = import_content(root, database)

    assert (report.added, report.retired) == (0, 0)
    after = active_cards(engine)
    moved = after["TCP 为什么需要三次握手？"]
    assert moved.id == card.id
    assert moved.source_path == "backend/net/handshake/tcp-basics.md"
    assert "历史连接" in moved.answer_html
    with database.session() as session:
        assert session.exec(select(ReviewLog).where(ReviewLog.card_id == card.id)).all()
        deck = session.get(Deck, moved.deck_id)
        assert deck is not None and deck.path == "backend/net/handshake/tcp-basics.md"


def test_the_same_question_in_two_notes_gives_two_cards_with_a_warning(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"a/net.md": TCP, "b/net.md": TCP})
    report = import_content(root, database)
    cards = [c for c in active_cards_list(engine) if c.question == "What is a socket?"]
    assert len(cards) == 2
    assert len({c.id for c in cards}) == 2
    assert any("duplicate card id" in w.message and w.path == "b/net.md" for w in report.warnings)
    with pytest.raises(ContentErrors):
        import_content(write_content({"c/net.md": TCP}), database, strict=True)


def active_cards_list(engine: Engine) -> list[Card]:
    with Session(engine) as session:
        return list(session.exec(select(Card).where(col(Card.retired).is_(False))).all())


def test_a_folder_with_problems_imports_with_warnings_and_strict_changes_nothing(
    database, tmp_path: Path, engine: Engine
) -> None:
    root = tmp_path / "problems"
    shutil.copytree(NOTES / "problems", root)
    (root / "expected.json").unlink()
    with pytest.raises(ContentErrors) as refused:
        import_content(root, database, strict=True)
    assert refused.value.errors
    assert active_cards_list(engine) == []

    report = import_content(root, database)
    assert report.added > 0
    assert report.warnings
    assert all(w.line >= 0 and w.path for w in report.warnings)
    html = " ".join(card.answer_html for card in active_cards_list(engine))
    assert 'class="math-error"' in html  # the formula KaTeX cannot parse, shown as its source


def test_a_nested_folder_gives_decks_by_path_and_reading_pages(
    database, tmp_path: Path, engine: Engine
) -> None:
    root = tmp_path / "nested"
    shutil.copytree(NOTES / "nested", root)
    import_content(root, database)
    with database.session() as session:
        decks = {deck.path for deck in session.exec(select(Deck))}
        topics = {topic.path for topic in session.exec(select(Topic))}
    assert "gpu/kernels/tiling/gemm-tiling.md" in decks
    assert not any(path.startswith("node_modules") for path in decks | topics)
    html = " ".join(card.answer_html for card in active_cards_list(engine))
    assert "/media/" in html  # images beside the notes are served from the folder
    assert "/topics/go/" in html  # links between notes go through the resolver
