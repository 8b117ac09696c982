"""A big import renders in worker processes and writes batches aside: the bank of one process."""

from collections.abc import Callable
from typing import Any

import pytest
from sqlmodel import select

from app.content.bank import sync
from app.content.bank.sync import import_content
from app.content.compile import build
from app.infra.db import Database
from app.infra.models import Card, SearchEntry
from tests.support.content_files import WriteContent

pytestmark = pytest.mark.storage


def _deck(number: int) -> str:
    cards = "\n".join(
        f"### Q：第 {number}.{i} 题怎么算？ {{#d{number}-q{i}}}\n\n"
        f"**面试回答。** 用 $F_{{{number}}}=2mn^{{{i}}}$，再看 $$\\frac{{a_{i}}}{{b_{number}}}$$\n"
        for i in range(6)
    )
    return f"---\ntitle: 第 {number} 组\n---\n\n{cards}"


def _bank(database: Database) -> list[tuple[Any, ...]]:
    with database.session() as session:
        cards = session.exec(
            select(Card.id, Card.ordinal, Card.answer_html, Card.answer_text, Card.key_points)
        ).all()
        entries = session.exec(select(SearchEntry.key, SearchEntry.body)).all()
    return sorted(cards) + sorted(entries)


@pytest.fixture
def in_workers(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[Any]]:
    """`in_workers()`: imports from then on render in workers, however little text they have;
    it returns the list of the worker pools they render with, filled as they do."""

    def start() -> list[Any]:
        monkeypatch.setattr(build, "PARALLEL_MIN_CHARS", 0)
        pools: list[Any] = []
        real = build.compile_items

        def counted(*args: Any, **kwargs: Any) -> Any:
            pools.append(kwargs.get("pool"))
            return real(*args, **kwargs)

        monkeypatch.setattr(sync, "compile_items", counted)
        return pools

    return start


def test_workers_and_batches_aside_make_the_bank_one_process_makes(
    database: Database,
    make_database_url: Callable[[str], str],
    templates: Any,
    monkeypatch: pytest.MonkeyPatch,
    write_content: WriteContent,
    in_workers: Callable[[], list[Any]],
) -> None:
    other_url = make_database_url("other")
    templates.schema(other_url)
    other_database = Database.open(other_url)
    other_database.upgrade()
    root = write_content({f"decks/d{n}.md": _deck(n) for n in range(8)})
    import_content(root, database)  # little text: one process, one write at the end
    monkeypatch.setattr(sync, "_WRITE_BATCH_CARDS", 6)  # a batch after every deck
    rendered = in_workers()
    report = import_content(root, other_database)
    assert rendered and rendered[0] is not None, "rendered in worker processes"
    assert (report.added, report.formulas_rendered) == (48, 96)
    assert _bank(other_database) == _bank(database)


def test_formulas_notes_on_both_workers_share_make_the_bank_one_process_makes(
    database: Database,
    make_database_url: Callable[[str], str],
    templates: Any,
    write_content: WriteContent,
    in_workers: Callable[[], list[Any]],
) -> None:
    """Each shared formula is rendered by one worker and given to the other before they
    render: the cards and the count of distinct formulas are what one process makes."""
    other_url = make_database_url("other")
    templates.schema(other_url)
    other_database = Database.open(other_url)
    other_database.upgrade()
    shared = "### Q：共用的公式？ {#shared-N}\n\n**面试回答。** $O(n)$ 与 $$\\sum_i x_i$$\n"
    root = write_content(
        {f"decks/d{n}.md": _deck(n) + "\n" + shared.replace("N", str(n)) for n in range(8)}
    )
    import_content(root, database)
    rendered = in_workers()
    report = import_content(root, other_database)
    assert rendered and rendered[0] is not None, "rendered in worker processes"
    assert (report.added, report.formulas_rendered) == (56, 98)
    assert _bank(other_database) == _bank(database)


def test_a_card_id_two_notes_share_is_told_apart_when_workers_render_them(
    database: Database, write_content: WriteContent, in_workers: Callable[[], list[Any]]
) -> None:
    """The clash check renames a card in this process; the worker that kept the note as it
    parsed it must render it under its new id, not the one it parsed."""
    clash = "### Q：两份笔记同一个 id？ {#same}\n\n**面试回答。** 看 $x^2$ 与 $$y_1$$\n"
    root = write_content(
        {f"decks/d{n}.md": _deck(n) + "\n" + clash.replace("？", f" {n}？") for n in range(4)}
    )
    rendered = in_workers()
    report = import_content(root, database)
    assert rendered and rendered[0] is not None, "rendered in worker processes"
    clashes = [w for w in report.warnings if w.said.code == "duplicate_card_id"]
    assert len(clashes) == 3
    with database.session() as session:
        questions = session.exec(select(Card.id, Card.question_text)).all()
    same = sorted(text for card_id, text in questions if "同一个 id" in text)
    assert len(same) == 4, "every note's card is kept, under ids of its own"
    assert len({card_id for card_id, _ in questions}) == len(questions) == 4 * 7
