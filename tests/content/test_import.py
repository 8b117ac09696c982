"""Importing content: all-or-nothing, incremental, and card ids that keep learners' history."""

import os
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, col, select

from app.content.bank.sync import import_content
from app.content.errors import ContentErrors
from app.content.notes import source
from app.content.notes.parsed import derived_card_id
from app.infra.models import Card, CardLink, Deck
from tests.support.content_files import WriteContent
from tests.support.imports import MakeLearner, add_history, counts, history

pytestmark = pytest.mark.storage


GPU = """\
---
title: GPU 基础
tags: [gpu]
---

入门介绍 $x$。

## 计算

### Q：为什么 GEMM 核心？ {#gemm-core}

**面试回答。** 计算量 $F=2mnk$。

**继续读。** GEMM 与融合

### Q：什么是 roofline？

**面试回答。** 性能上限 $P=\\min(\\pi, \\beta I)$。

## 内存

### Q：HBM 带宽多大？

**面试回答。** 约 3 TB/s。
"""

SYSTEMS = """\
---
title: 系统
---

## 1. 什么是 NVLink？

GPU 之间的高速互联。
"""

TOPIC = """\
---
title: GEMM 与融合
aliases: [GEMM]
---

GEMM 的主体是 $C=AB$。
"""

ROOFLINE = derived_card_id("什么是 roofline？")
HBM = derived_card_id("HBM 带宽多大？")
NVLINK = derived_card_id("什么是 NVLink？")
BASE = {"decks/gpu.md": GPU, "decks/systems.md": SYSTEMS, "topics/gemm.md": TOPIC}


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order."""
    with engine.connect() as conn:
        return {
            table.name: sorted((tuple(row) for row in conn.execute(table.select())), key=repr)
            for table in SQLModel.metadata.sorted_tables
        }


def card(engine: Engine, card_id: str) -> Card:
    with Session(engine) as session:
        row = session.get(Card, card_id)
        assert row is not None, f"no card {card_id}"
        return row


def deck_of(engine: Engine, card_id: str) -> Deck:
    with Session(engine) as session:
        row = session.get(Deck, card(engine, card_id).deck_id)
        assert row is not None
        return row


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture
def imported(database, write_content: WriteContent, engine: Engine) -> Path:
    """The BASE content, imported once, its files older than the import's racy window.

    Otherwise whether the next import keeps their stamps (and so writes) would depend on how
    long the test took between the two.
    """
    root = write_content(BASE)
    written = time.time() - 2 * source.RACY_SECONDS
    for note in root.rglob("*.md"):
        os.utime(note, (written, written))
    report = import_content(root, database)
    assert counts(report) == {"added": 4}
    return root


# --- first import and no-op ---------------------------------------------------------------


def test_first_import_stores_rendered_cards(
    database, write_content: WriteContent, engine: Engine
) -> None:
    report = import_content(write_content(BASE), database)
    assert (report.decks, report.topics) == (2, 1)
    assert counts(report) == {"added": 4}
    assert (report.files_read, report.files_skipped) == (3, 0)
    assert report.formulas_rendered == 4
    assert report.warnings == []

    gemm = card(engine, "gemm-core")
    assert gemm.question == "为什么 GEMM 核心？"
    assert gemm.section == "计算"
    assert gemm.tags == ["gpu", "计算"]
    assert "<math" in gemm.answer_html
    assert "F=2mnk" in gemm.answer_html
    assert (gemm.source_path, gemm.source_line) == ("decks/gpu.md", 10)
    assert card(engine, HBM).section == "内存"
    assert card(engine, NVLINK).question == "什么是 NVLink？"
    assert deck_of(engine, "gemm-core").slug == "gpu"
    assert "<math" in deck_of(engine, "gemm-core").intro_html
    with database.session() as session:
        [link] = session.exec(select(CardLink)).all()
    assert (link.card_id, link.target, link.topic_slug) == ("gemm-core", "GEMM 与融合", "gemm")


def test_reimport_without_changes_renders_and_changes_nothing(
    database, imported: Path, engine: Engine
) -> None:
    before = dump(engine)
    report = import_content(imported, database)
    assert report.formulas_rendered == 0
    assert (report.files_read, report.files_skipped) == (0, 3)
    assert counts(report) == {"unchanged": 4}
    assert dump(engine) == before


def test_only_changed_files_are_read(
    database, imported: Path, write_content: WriteContent, engine: Engine
) -> None:
    write_content({"decks/systems.md": SYSTEMS.replace("高速互联", "高速互联 $B$")})
    report = import_content(imported, database)
    assert (report.files_read, report.files_skipped) == (1, 2)
    assert report.formulas_rendered == 1
    assert counts(report) == {"updated": 1, "unchanged": 3}


def test_a_new_rendering_renders_every_file_again(
    database, imported: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "RENDERING", source.RENDERING + 1)
    report = import_content(imported, database)
    assert (report.files_read, report.files_skipped) == (3, 0)
    assert counts(report) == {"unchanged": 4}  # same cards, same ids, same history
    assert (import_content(imported, database).files_read) == 0


def test_a_folder_that_comes_to_name_its_notes_as_questions_reads_its_topics_again(
    database, write_content: WriteContent, engine: Engine
) -> None:
    """Eight notes named as questions and one named as a topic: too few to tell, the topic is a
    page. A ninth question makes the folder one of named questions: the next import reads the
    topic note again, unchanged as it is, and its name is its question."""
    notes = {
        f"android/What is component {n}.md": f"# Component {n}\n\nIt does {n}.\n" for n in range(8)
    }
    notes["android/Activity lifecycle.md"] = "# Activity lifecycle\n\nCreated, started, resumed.\n"
    root = write_content(notes)
    written = time.time() - 2 * source.RACY_SECONDS
    for note in root.rglob("*.md"):
        os.utime(note, (written, written))
    first = import_content(root, database)
    assert (first.decks, first.topics) == (8, 1)

    write_content({"android/What is component 8.md": "# Component 8\n\nIt does 8.\n"})
    second = import_content(root, database)
    assert (second.files_read, second.files_skipped) == (10, 0)
    assert (second.decks, second.topics) == (10, 0)
    with Session(engine) as session:
        questions = set(session.exec(select(Card.question)).all())
    assert "Activity lifecycle" in questions and len(questions) == 10
    assert import_content(root, database).files_read == 0


# --- identity -----------------------------------------------------------------------------


def test_answer_edit_keeps_id_and_history(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, ROOFLINE, make_learner())
    write_content({"decks/gpu.md": GPU.replace("性能上限", "可达性能上限")})
    report = import_content(imported, database)
    assert counts(report) == {"updated": 1, "unchanged": 3}
    row = card(engine, ROOFLINE)
    assert "可达性能上限" in row.answer_html
    assert row.retired is False
    assert history(engine, ROOFLINE) == ([learner], [learner])


def test_move_to_another_section_keeps_id_and_history(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, HBM, make_learner())
    moved = GPU.replace("## 内存\n\n", "").replace("## 计算\n\n", "## 计算与内存\n\n")
    write_content({"decks/gpu.md": moved})
    report = import_content(imported, database)
    assert report.added == 0
    assert report.retired == 0
    row = card(engine, HBM)
    assert (row.section, row.tags) == ("计算与内存", ["gpu", "计算与内存"])
    assert history(engine, HBM) == ([learner], [learner])


def test_move_to_another_deck_file_keeps_id_and_history(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, HBM, make_learner())
    hbm_card = "### Q：HBM 带宽多大？\n\n**面试回答。** 约 3 TB/s。\n"
    assert hbm_card in GPU
    write_content(
        {
            "decks/gpu.md": GPU.replace(hbm_card, "").replace("## 内存\n\n", ""),
            # The target deck is numbered style; the number is not part of the id.
            "decks/systems.md": SYSTEMS + "\n## 2. HBM 带宽多大？\n\n约 3 TB/s。\n",
        }
    )
    report = import_content(imported, database)
    assert counts(report) == {"updated": 1, "unchanged": 3}
    row = card(engine, HBM)
    assert row.source_path == "decks/systems.md"
    assert deck_of(engine, HBM).slug == "systems"
    assert history(engine, HBM) == ([learner], [learner])


def content_order(engine: Engine) -> list[str]:
    """Active card ids by their stored place in the bank's content order."""
    with Session(engine) as session:
        return list(
            session.exec(
                select(Card.id).where(col(Card.retired).is_(False)).order_by(col(Card.ordinal))
            )
        )


def test_cards_are_numbered_in_content_order_and_decks_counted_on_every_import(
    database, imported: Path, write_content: WriteContent, engine: Engine
) -> None:
    gemm = "gemm-core"
    assert content_order(engine) == [gemm, ROOFLINE, HBM, NVLINK]
    hbm_card = "### Q：HBM 带宽多大？\n\n**面试回答。** 约 3 TB/s。\n"
    write_content(
        {
            "decks/gpu.md": GPU.replace(hbm_card, "").replace("## 内存\n\n", ""),
            # A new card first in its file, and the HBM card moved to the end of it.
            "decks/systems.md": SYSTEMS.replace(
                "## 1. 什么是 NVLink？",
                "## 1. 什么是 PCIe？\n\n主机总线。\n\n## 2. 什么是 NVLink？",
            )
            + "\n## 3. HBM 带宽多大？\n\n约 3 TB/s。\n",
        }
    )
    import_content(imported, database)
    pcie = derived_card_id("什么是 PCIe？")
    assert content_order(engine) == [gemm, ROOFLINE, pcie, NVLINK, HBM]
    with database.session() as session:
        decks = {deck.slug: deck.card_count for deck in session.exec(select(Deck))}
    assert decks == {"gpu": 2, "systems": 3}


def test_file_rename_keeps_ids_and_history(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learners = [add_history(database, cid, make_learner()) for cid in ("gemm-core", ROOFLINE, HBM)]
    old_deck_id = deck_of(engine, HBM).id
    write_content({"decks/gpu.md": None, "decks/gpu-basics.md": GPU})
    report = import_content(imported, database)
    assert counts(report) == {"updated": 3, "unchanged": 1}
    for card_id, learner in zip(("gemm-core", ROOFLINE, HBM), learners, strict=True):
        row = card(engine, card_id)
        assert (row.source_path, row.retired) == ("decks/gpu-basics.md", False)
        assert history(engine, card_id) == ([learner], [learner])
    # The slug comes from the file name, so the deck is new and the old one retires.
    assert deck_of(engine, HBM).slug == "gpu-basics"
    with database.session() as session:
        old = session.get(Deck, old_deck_id)
        assert old is not None
        assert old.retired is True


def test_file_rename_with_explicit_slug_keeps_the_deck(
    database, write_content: WriteContent, engine: Engine
) -> None:
    with_slug = GPU.replace("tags: [gpu]", "tags: [gpu]\nslug: gpu")
    root = write_content({**BASE, "decks/gpu.md": with_slug})
    import_content(root, database)
    deck_id = deck_of(engine, HBM).id
    write_content({"decks/gpu.md": None, "decks/renamed.md": with_slug})
    report = import_content(root, database)
    assert report.added == report.retired == 0
    assert deck_of(engine, HBM).id == deck_id
    assert deck_of(engine, HBM).path == "decks/renamed.md"


def test_rewording_without_explicit_id_is_a_new_card(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    add_history(database, ROOFLINE, make_learner())
    write_content({"decks/gpu.md": GPU.replace("什么是 roofline？", "roofline 模型是什么？")})
    report = import_content(imported, database)
    assert counts(report) == {"added": 1, "retired": 1, "unchanged": 3}
    assert card(engine, ROOFLINE).retired is True
    assert card(engine, derived_card_id("roofline 模型是什么？")).retired is False


def test_rewording_with_explicit_id_keeps_the_card(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, "gemm-core", make_learner())
    write_content({"decks/gpu.md": GPU.replace("为什么 GEMM 核心？", "GEMM 为什么重要？")})
    report = import_content(imported, database)
    assert counts(report) == {"updated": 1, "unchanged": 3}
    assert card(engine, "gemm-core").question == "GEMM 为什么重要？"
    assert history(engine, "gemm-core") == ([learner], [learner])


# --- retire and resume --------------------------------------------------------------------


def test_removed_card_retires_and_resumes_with_its_history(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, NVLINK, make_learner())
    write_content({"decks/systems.md": SYSTEMS + "\n## 2. 新卡\n\n新答案。\n"})
    import_content(imported, database)

    write_content({"decks/systems.md": "---\ntitle: 系统\n---\n\n## 2. 新卡\n\n新答案。\n"})
    report = import_content(imported, database)
    # 新卡 moved up one place, so it is updated too.
    assert counts(report) == {"retired": 1, "updated": 1, "unchanged": 3}
    row = card(engine, NVLINK)
    assert row.retired is True
    assert history(engine, NVLINK) == ([learner], [learner])

    write_content({"decks/systems.md": SYSTEMS})
    report = import_content(imported, database)
    assert counts(report) == {"resumed": 1, "retired": 1, "unchanged": 3}
    row = card(engine, NVLINK)
    assert row.retired is False
    assert row.id == NVLINK
    assert history(engine, NVLINK) == ([learner], [learner])


def test_deleted_deck_file_retires_its_cards_and_deck(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    learner = add_history(database, NVLINK, make_learner())
    write_content({"decks/systems.md": None})
    report = import_content(imported, database)
    assert counts(report) == {"retired": 1, "unchanged": 3}
    assert report.decks == 1
    assert card(engine, NVLINK).retired is True
    assert deck_of(engine, NVLINK).retired is True
    assert history(engine, NVLINK) == ([learner], [learner])

    write_content({"decks/systems.md": SYSTEMS})
    report = import_content(imported, database)
    assert counts(report) == {"resumed": 1, "unchanged": 3}
    assert deck_of(engine, NVLINK).retired is False


# --- all or nothing -----------------------------------------------------------------------


def test_failing_import_changes_nothing_and_lists_every_error(
    database, imported: Path, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    add_history(database, ROOFLINE, make_learner())
    before = dump(engine)
    bad_systems = SYSTEMS + "\n## 2. 坏公式\n\n这里 $\\frac{1$ 写错了。\n\n## Q: 没有答案\n"
    write_content(
        {
            "decks/gpu.md": GPU.replace("性能上限", "新的答案"),  # a good change
            "decks/new.md": "---\ntitle: 新\n---\n\n## 1. 新问题\n\n新答案。\n",  # a good new file
            "decks/systems.md": bad_systems,
            "topics/gemm.md": None,  # a good removal
        }
    )
    with pytest.raises(ContentErrors) as caught:
        import_content(imported, database, strict=True)
    assert [str(error) for error in caught.value.errors] == [
        f"decks/systems.md:{line_of(bad_systems, '这里')}: KaTeX: Unexpected end of input in a "
        "macro argument, expected '}' at end of input: \\frac{1 in $\\frac{1$",
        f"decks/systems.md:{line_of(bad_systems, '没有答案')}: "
        "question '没有答案' was not made a card: no answer follows it",
    ]
    assert dump(engine) == before

    # Fixing the one bad file lets every pending change through.
    write_content({"decks/systems.md": SYSTEMS})
    report = import_content(imported, database)
    assert counts(report) == {"added": 1, "updated": 1, "unchanged": 3}
    assert "新的答案" in card(engine, ROOFLINE).answer_html


def test_duplicate_explicit_ids_name_both_places(
    database, imported: Path, write_content: WriteContent, engine: Engine
) -> None:
    before = dump(engine)
    write_content({"decks/other.md": "---\ntitle: O\n---\n\n### Q: again {#gemm-core}\n\na\n"})
    with pytest.raises(ContentErrors) as caught:
        import_content(imported, database, strict=True)
    assert [str(error) for error in caught.value.errors] == [
        "decks/other.md:5: duplicate card id 'gemm-core' (also at decks/gpu.md:10); "
        "give one of them an explicit {#id} at the end of its question line or heading"
    ]
    assert dump(engine) == before


def test_duplicate_derived_ids_in_new_files_name_both_places(
    database, write_content: WriteContent, engine: Engine
) -> None:
    # Different numbers, same question: the same derived id.
    root = write_content(
        {
            "decks/a.md": "---\ntitle: A\n---\n\n## 1. 什么是 NVLink？\n\nanswer\n",
            "decks/b.md": "---\ntitle: B\n---\n\nIntro.\n\n## 7、什么是 NVLink\n\nanswer\n",
        }
    )
    with pytest.raises(ContentErrors) as caught:
        import_content(root, database, strict=True)
    [error] = caught.value.errors
    assert (error.path, error.line) == ("decks/b.md", 7)
    assert f"duplicate card id '{NVLINK}' (also at decks/a.md:5)" in error.message
    tables = dump(engine)
    assert tables, "the dump lists the bank's tables"
    assert all(rows == [] for rows in tables.values())


def test_duplicate_deck_slug_is_an_error(
    database, imported: Path, write_content: WriteContent, engine: Engine
) -> None:
    write_content({"decks/other.md": "---\ntitle: O\nslug: gpu\n---\n\n## 1. x\n\na\n"})
    with pytest.raises(ContentErrors) as caught:
        import_content(imported, database, strict=True)
    assert [str(e) for e in caught.value.errors] == [
        "decks/other.md:1: deck slug 'gpu' is also used by decks/gpu.md"
    ]


def test_unsafe_link_fails_the_import(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content(
        {
            "decks/a.md": (
                "---\ntitle: A\n---\n## Q: q\n\na\n\n**继续读：** [x](javascript:alert(1))\n"
            )
        }
    )
    with pytest.raises(ContentErrors) as caught:
        import_content(root, database, strict=True)
    assert [str(e) for e in caught.value.errors] == [
        "decks/a.md:8: unsafe or unsupported link target 'javascript:alert(1)'"
    ]


def test_empty_content_directory_is_an_error(database, tmp_path: Path, engine: Engine) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ContentErrors) as caught:
        import_content(tmp_path / "empty", database, strict=True)
    assert [e.line for e in caught.value.errors] == [0]
    assert "no notes (.md, .markdown or .txt files) found" in caught.value.errors[0].message


# --- links and topics ---------------------------------------------------------------------


def link_slugs(engine: Engine) -> dict[str, str | None]:
    with Session(engine) as session:
        return {link.target: link.topic_slug for link in session.exec(select(CardLink))}


def test_links_follow_topics_as_they_come_and_go(
    database, imported: Path, write_content: WriteContent, engine: Engine
) -> None:
    write_content({"topics/gemm.md": None})
    report = import_content(imported, database)
    assert link_slugs(engine) == {"GEMM 与融合": None}
    # After import the warning points at the card (links keep no line of their own).
    assert [str(w) for w in report.warnings] == [
        f"decks/gpu.md:{line_of(GPU, 'gemm-core')}: continue-reading 'GEMM 与融合' matches no topic"
    ]

    write_content({"topics/fusion.md": TOPIC})
    report = import_content(imported, database)
    assert link_slugs(engine) == {"GEMM 与融合": "fusion"}
    assert report.warnings == []


def test_link_matching_ignores_case_and_width(
    database, write_content: WriteContent, engine: Engine
) -> None:
    deck = (
        "---\ntitle: A\n---\n## 1. q\n\na\n\n"
        "**继续读：** ｇｅｍｍ / [slug](gemm.md) / [[  GEMM 与融合 ]]\n"
    )
    root = write_content({"decks/a.md": deck, "topics/gemm.md": TOPIC})
    report = import_content(root, database)
    assert report.warnings == []
    assert set(link_slugs(engine).values()) == {"gemm"}
