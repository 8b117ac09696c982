"""The trigram indexes behind search: used by the query, kept in step, made by the migration.

They only narrow the rows compared, so what search finds is tested in tests/web; here, that
the database really answers from them and that they hold every entry.
"""

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from app.content.bank.sync import import_content
from app.infra.db import make_engine
from app.infra.migrate import downgrade, upgrade
from app.infra.models import SearchEntry
from app.infra.searchdb import FTS_TABLE
from app.search.query import search, search_statement, terms_of

pytestmark = pytest.mark.storage

DECK = """
---
title: Kernels
slug: kernels
---

### Q：Roofline 模型怎么读？ {#roofline}

**面试回答。** 算术强度决定 kernel 受算力还是显存带宽限制。

### Q：为什么要做算子融合？ {#fusion}

**面试回答。** 省掉中间结果的显存往返，FlashAttention 是例子。
"""

OTHER = """
---
title: Serving
slug: serving
---

### Q：decode 阶段受什么限制？ {#decode}

**面试回答。** 带宽。
"""


def _plan(session: Session, query: str) -> str:
    statement = search_statement(session, terms_of(query), kind=None, deck=None, limit=50)
    compiled = statement.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
    if session.get_bind().dialect.name == "sqlite":
        rows = session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all()
        return "\n".join(str(row[-1]) for row in rows)
    # Ten entries are cheaper to scan than to look up: ask whether the index can serve it.
    session.connection().exec_driver_sql("SET LOCAL enable_seqscan = off")
    session.connection().exec_driver_sql("SET LOCAL enable_indexscan = off")
    rows = session.connection().exec_driver_sql(f"EXPLAIN {compiled}").all()
    return "\n".join(row[0] for row in rows)


def _index_size(session: Session) -> int | None:
    if session.get_bind().dialect.name != "sqlite":
        return None
    # The FTS5 table's own check, rank 1: its index holds each row of `searchentry` once, no
    # more and no less (without it, only the index's own structure is checked).
    session.connection().exec_driver_sql(
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
    )
    return session.connection().exec_driver_sql(f"SELECT count(*) FROM {FTS_TABLE}").scalar_one()


def test_search_answers_terms_of_three_characters_from_the_index(
    database, engine: Engine, write_content: Callable[[dict[str, str]], Path]
) -> None:
    import_content(write_content({"decks/a.md": DECK}), database)
    with database.session() as session:
        if engine.dialect.name == "sqlite":
            assert f"SCAN {FTS_TABLE} VIRTUAL TABLE INDEX" in _plan(session, "roofline 显存")
            # Two characters make no trigram: the entries are compared one by one.
            assert FTS_TABLE not in _plan(session, "显存")
        else:
            assert "Bitmap Index Scan on ix_searchentry_text_trgm" in _plan(session, "roofline")
        assert [hit.id for hit in search(session, "roofline 显存").hits] == ["roofline"]
        assert [hit.id for hit in search(session, "显存").hits] == ["roofline", "fusion"]


def test_the_index_follows_every_edit(
    database, engine: Engine, write_content: Callable[[dict[str, str | None]], Path]
) -> None:
    root = write_content({"decks/a.md": DECK, "decks/b.md": OTHER})
    import_content(root, database)
    import_content(
        write_content({"decks/a.md": DECK.replace("FlashAttention", "PagedKV")}), database
    )
    with database.session() as session:
        assert [hit.id for hit in search(session, "pagedkv").hits] == ["fusion"]
        assert search(session, "flashattention").hits == []
        entries = session.exec(select(func.count()).select_from(SearchEntry)).one()
        assert _index_size(session) in (None, entries)
    import_content(write_content({"decks/a.md": None}), database)
    with database.session() as session:
        assert search(session, "roofline").hits == []
        assert [hit.id for hit in search(session, "decode").hits] == ["decode"]
        assert _index_size(session) in (None, 1)


def test_upgrading_a_bank_indexes_the_entries_it_has(
    database, engine: Engine, write_content: Callable[[dict[str, str]], Path]
) -> None:
    import_content(write_content({"decks/a.md": DECK}), database)
    # Migrated by another process, as `qbank db upgrade` would.
    tool = make_engine(engine.url.render_as_string(hide_password=False))
    downgrade(tool, "0018")  # before the indexes: the entries are there, unindexed
    with database.session() as session:
        assert session.exec(select(func.count()).select_from(SearchEntry)).one() == 2
    upgrade(tool)
    tool.dispose()
    with database.session() as session:
        assert [hit.id for hit in search(session, "roofline").hits] == ["roofline"]
        assert [hit.id for hit in search(session, "flashattention").hits] == ["fusion"]
        assert _index_size(session) in (None, 2)


def test_a_bank_from_before_0026_indexes_each_new_entry_once(
    database, engine: Engine, write_content: Callable[[dict[str, str | None]], Path]
) -> None:
    import_content(write_content({"decks/a.md": DECK}), database)
    tool = make_engine(engine.url.render_as_string(hide_password=False))
    downgrade(tool, "0025")  # SQLite: the insert trigger is back
    upgrade(tool)
    tool.dispose()
    import_content(write_content({"decks/b.md": OTHER}), database)
    with database.session() as session:
        assert [hit.id for hit in search(session, "decode").hits] == ["decode"]
        entries = session.exec(select(func.count()).select_from(SearchEntry)).one()
        assert _index_size(session) in (None, entries)


def test_an_import_that_changed_nothing_still_mends_missing_or_stale_entries(
    database, write_content: Callable[[dict[str, str]], Path]
) -> None:
    root = write_content({"decks/a.md": DECK, "decks/b.md": OTHER})
    import_content(root, database)
    with database.session() as session, database.writing(session):
        entries = {e.key: e for e in session.exec(select(SearchEntry)).all()}
        session.delete(entries["roofline"])
        entries["fusion"].source_hash = "stale"
        entries["decode"].ordinal = 7
        session.add(SearchEntry(kind="card", key="gone", title="gone", body="gone"))
    import_content(root, database)  # a no-op: no file changed
    with database.session() as session:
        assert [hit.id for hit in search(session, "roofline").hits] == ["roofline"]
        rows = {e.key: e for e in session.exec(select(SearchEntry)).all()}
        assert "gone" not in rows
        assert rows["fusion"].source_hash != "stale"
        assert rows["decode"].ordinal != 7


def test_entries_written_batch_by_batch_are_the_entries_of_the_cards_stored(
    database, monkeypatch: pytest.MonkeyPatch, write_content: Callable[[dict[str, str]], Path]
) -> None:
    """A big import writes cards and their entries in batches: each card ends with one entry,
    made from its final text and in its final place, after a first import and after an edit."""
    from app.content.bank import sync
    from app.infra.models import Card

    monkeypatch.setattr(sync, "_WRITE_BATCH_CARDS", 2)  # a batch after every deck
    notes = {"decks/a.md": DECK, "decks/b.md": OTHER}
    notes["decks/c.md"] = DECK.replace("kernels", "kernels-2").replace("{#", "{#c-")
    root = write_content(notes)
    for edit in (None, ("带宽。", "显存带宽，不是算力。")):
        if edit:
            root = write_content({"decks/b.md": OTHER.replace(*edit)})
        import_content(root, database)
        with database.session() as session:
            cards = session.exec(select(Card.id, Card.ordinal, Card.deck_id)).all()
            entries = session.exec(
                select(SearchEntry.key, SearchEntry.ordinal, SearchEntry.deck_id).where(
                    SearchEntry.kind == "card"
                )
            ).all()
            assert sorted(entries) == sorted(cards) and len(cards) == 5
            assert _index_size(session) in (None, len(entries))
    with database.session() as session:
        assert [hit.id for hit in search(session, "不是算力").hits] == ["decode"]
