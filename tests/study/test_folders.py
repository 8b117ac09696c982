"""Folders of notes: the home page's tree and `?folder=` as a scope, on both databases."""

from datetime import UTC, datetime

import pytest
from sqlmodel import Session, col, select

from app.content.bank.sync import import_content
from app.infra.models import Card, Deck
from app.study import Filters, counts, get_learner
from app.study.catalog import DeckSummary, Progress, deck_summaries, folder_tree
from app.study.selection import scope_card_ids

# Folder prefixes, names and the job rows are compared in SQL: both databases.
pytestmark = pytest.mark.storage

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def note(question: str) -> str:
    return f"# Notes\n\n## {question}\n\nThe answer to {question}\n"


def _summary(path: str, total: int) -> DeckSummary:
    return DeckSummary(Deck(slug=path, title=path, path=path), Progress(total=total))


def test_decks_nest_by_folder_with_totals_and_the_house_decks_folder_is_none():
    tree = folder_tree(
        [
            _summary("decks/a.md", 1),
            _summary("后端/网络/tcp.md", 2),
            _summary("后端/网络/udp.md", 3),
            _summary("后端/db.md", 4),
            _summary("Algo/sort.md", 5),
        ]
    )
    assert [s.deck.path for s in tree.decks] == ["decks/a.md"]
    assert [f.path for f in tree.folders] == ["Algo", "后端"]
    backend = tree.folders[1]
    assert (backend.name, backend.progress.total, backend.deck_count) == ("后端", 9, 3)
    assert [s.deck.path for s in backend.decks] == ["后端/db.md"]
    (net,) = backend.folders
    assert (net.name, net.path, net.progress.total) == ("网络", "后端/网络", 5)
    assert tree.progress.total == 15
    assert folder_tree([]).folders == []


NOTES = {
    "后端/网络/tcp.md": note("What is a TCP handshake?"),
    "后端/网络/深入/quic.md": note("Why QUIC over UDP?"),
    "后端/网络x/other.md": note("Is this in the network folder?"),
    "后端/db.md": note("What is an index?"),
    "a_b/x.md": note("Underscore folder?"),
    "axb/y.md": note("Looks like a_b to LIKE?"),
    "100%/z.md": note("Percent folder?"),
    "Net/n.md": note("Upper case folder?"),
    "net/m.md": note("Lower case folder?"),
}


def _questions(session: Session, filters: Filters) -> set[str]:
    learner = get_learner(session, "local")
    ids = scope_card_ids(session, filters=filters, learner=learner, now=NOW)
    return set(session.exec(select(Card.question).where(col(Card.id).in_(ids))))


def test_a_folder_scope_takes_its_decks_and_sub_folders_only(database, engine, write_content):
    import_content(write_content(NOTES), database)
    with database.session() as session:
        assert _questions(session, Filters(folder="后端/网络")) == {
            "What is a TCP handshake?",
            "Why QUIC over UDP?",
        }
        assert len(_questions(session, Filters(folder="后端"))) == 4
        # LIKE's wildcards and SQLite's case-blind LIKE play no part.
        assert _questions(session, Filters(folder="a_b")) == {"Underscore folder?"}
        assert _questions(session, Filters(folder="100%")) == {"Percent folder?"}
        assert _questions(session, Filters(folder="Net")) == {"Upper case folder?"}
        assert _questions(session, Filters(folder="nowhere")) == set()
        # The study counts of a folder: its new cards, counted from the decks' kept totals.
        learner = get_learner(session, "local")
        assert counts(session, learner=learner, now=NOW, filters=Filters(folder="后端")).new == 4
        assert counts(session, learner=learner, now=NOW, filters=Filters(folder="a_b")).new == 1
        tree = folder_tree(deck_summaries(session, learner=learner, now=NOW))
        assert {f.path: f.progress.total for f in tree.folders} == {
            "100%": 1,
            "a_b": 1,
            "axb": 1,
            "Net": 1,
            "net": 1,
            "后端": 4,
        }


def test_the_house_layout_decks_sit_in_no_folder_and_their_sub_folders_are_folders(
    database, engine, write_content
):
    root = write_content(
        {"decks/a.md": note("Top deck?"), "decks/gpu/b.md": note("Nested house deck?")}
    )
    import_content(root, database)
    with database.session() as session:
        assert _questions(session, Filters(folder="gpu")) == {"Nested house deck?"}
        learner = get_learner(session, "local")
        tree = folder_tree(deck_summaries(session, learner=learner, now=NOW))
        assert [s.deck.path for s in tree.decks] == ["decks/a.md"]
        assert [f.path for f in tree.folders] == ["gpu"]


def test_a_folder_reads_in_the_scope_label_and_parameters():
    scope = Filters(folder="后端/网络", tag="tcp")
    assert scope.label == "后端/网络/ · #tcp"
    assert scope.as_params() == {"folder": "后端/网络", "tag": "tcp"}
    assert scope.scoped
