"""Links by note name (`[[note#heading]]`) resolved to a reading page, a deck or a card."""

import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlmodel import Session, select

from app.content.bank.sync import import_content
from app.infra.models import Card, Deck
from app.study.catalog import note_url

# Folder prefixes, names and the job rows are compared in SQL: both databases.
pytestmark = pytest.mark.storage

NESTED = Path(__file__).parents[1] / "fixtures" / "notes" / "nested"


@pytest.fixture
def nested(database, engine, tmp_path):
    root = tmp_path / "notes"
    shutil.copytree(NESTED, root)
    import_content(root, database)
    with database.session() as session:
        yield session


def _card(session: Session, question: str) -> str:
    return session.exec(select(Card.id).where(Card.question == question)).one()


def _deck(session: Session, title: str) -> str:
    return session.exec(select(Deck.slug).where(Deck.title == title)).one()


def test_a_reading_page_by_title_or_file_name_at_a_heading(nested):
    page = note_url(nested, "roofline")
    assert page is not None and page.startswith("/topics/")
    assert note_url(nested, "Roofline 读书笔记") == page
    assert note_url(nested, "ROOFLINE") == page  # names match as titles do, case aside
    assert note_url(nested, "roofline", "拐点") == page + "#:~:text=" + quote("拐点")


def test_a_deck_by_title_or_file_name_and_a_card_by_its_heading(nested):
    deck = "/decks/" + _deck(nested, "Bank conflicts")
    assert note_url(nested, "bank-conflicts") == deck
    assert note_url(nested, "Bank conflicts") == deck
    card = "/cards/" + _card(nested, "What causes a bank conflict?")
    assert note_url(nested, "bank-conflicts", "What causes a bank conflict?") == card
    # The heading as its author numbered or labelled it still finds the card.
    assert note_url(nested, "bank-conflicts", "1. What causes a bank conflict") == card
    assert note_url(nested, "coalescing", "为什么跨步访问会变慢？") == "/cards/" + _card(
        nested, "为什么跨步访问会变慢？"
    )
    # A heading that is no card's question: the deck's page at that text.
    coalescing = "/decks/" + _deck(nested, "合并访存")
    assert note_url(nested, "coalescing", "小结 & 参考") == (
        coalescing + "#:~:text=" + quote("小结 & 参考", safe="")
    )


def test_an_unknown_note_is_none(nested):
    assert note_url(nested, "no-such-note") is None
    assert note_url(nested, "no-such-note", "What causes a bank conflict?") is None
