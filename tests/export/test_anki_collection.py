"""The exported .apkg imported by Anki itself (the `anki` package's backend), not re-read by us."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.content.bank.sync import import_content
from app.export.anki import FIELDS, export_apkg
from tests.support.anki import anki_collection, collection, import_into, notes_by_card
from tests.support.content_files import WriteContent
from tests.support.images import png

__all__ = ["collection"]  # a fixture, from tests/support/anki.py


DECK = r"""
---
title: 算子 & 性能
tags: [gpu]
---

## 计算

### Q：为什么 GEMM 是 $O(n^3)$？ {#gemm-core}

**面试回答。** 计算量 $F=2mnk$，而 $a<b$。

$$
I=\frac{\text{FLOPs}}{\text{Bytes}}
$$

**易错点 / 边界。** 别忘了 $\beta$。

**继续读。** Roofline / [论文](https://example.com/roofline)

### Q：HBM 带宽多大？ {#hbm}

**面试回答。** 约 3 TB/s。
"""

TOPIC = """
---
title: Roofline
---

正文。
"""


@pytest.fixture
def bank(database, write_content: WriteContent, engine: Engine) -> Engine:
    import_content(write_content({"decks/gpu.md": DECK, "topics/roofline.md": TOPIC}), database)
    return engine


def test_anki_imports_every_note_with_fields_math_and_links(
    bank: Engine, collection: "anki_collection.Collection", tmp_path: Path
) -> None:
    package = tmp_path / "gpu.apkg"
    with Session(bank) as session:
        export_apkg(
            session=session,
            deck_slug=None,
            path=package,
            base_url="https://qbank.example.org",
        )
    import_into(collection, package)

    assert collection.note_count() == 2
    assert collection.card_count() == 2
    assert "qbank::算子 & 性能" in [d.name for d in collection.decks.all_names_and_ids()]
    [model] = [m for m in collection.models.all() if m["name"] == "qbank Q&A"]
    assert [f["name"] for f in model["flds"]] == list(FIELDS)

    notes = notes_by_card(collection)
    assert set(notes) == {"gemm-core", "hbm"}
    gemm = notes["gemm-core"]
    # Math reaches Anki in the delimiters its MathJax renders, the TeX HTML-escaped.
    assert gemm["Question"] == r"为什么 GEMM 是 \(O(n^3)\)？"
    assert r"\(a&lt;b\)" in gemm["Answer"]
    assert r"\[I=\frac{\text{FLOPs}}{\text{Bytes}}\]" in gemm["Answer"]
    assert r"\(\beta\)" in gemm["Pitfalls"]
    assert 'href="https://qbank.example.org/topics/roofline"' in gemm["Reading"]
    assert 'href="https://example.com/roofline"' in gemm["Reading"]
    assert 'href="https://qbank.example.org/cards/gemm-core"' in gemm["Source"]
    for field in gemm.values():
        assert "127.0.0.1" not in field
        assert 'class="katex' not in field

    # The rendered card is what a learner sees in Anki: the question on the back too.
    card = collection.get_card(collection.find_cards("Source:*gemm-core*")[0])
    assert r"\(O(n^3)\)" in card.question()
    assert "Roofline" in card.answer()


def test_reimport_updates_notes_instead_of_duplicating_them(
    database,
    bank: Engine,
    collection: "anki_collection.Collection",
    tmp_path: Path,
    write_content: WriteContent,
) -> None:
    first = tmp_path / "first.apkg"
    with Session(bank) as session:
        export_apkg(
            session=session, deck_slug=None, path=first, now=datetime(2026, 1, 1, tzinfo=UTC)
        )
    import_into(collection, first)

    write_content({"decks/gpu.md": DECK.replace("约 3 TB/s", "约 3.35 TB/s")})
    import_content(first.parent / "content", database)
    second = tmp_path / "second.apkg"
    with Session(bank) as session:
        # Anki takes a note from a package only when it was modified later than its own copy.
        export_apkg(
            session=session, deck_slug=None, path=second, now=datetime(2026, 2, 1, tzinfo=UTC)
        )
    import_into(collection, second)

    assert collection.note_count() == 2
    assert "3.35 TB/s" in notes_by_card(collection)["hbm"]["Answer"]


def test_images_travel_as_anki_media(
    database,
    write_content: WriteContent,
    engine: Engine,
    collection: "anki_collection.Collection",
    tmp_path: Path,
) -> None:
    deck = DECK.replace("约 3 TB/s。", "约 3 TB/s。\n\n![HBM 带宽随代际增长](../assets/hbm.png)")
    root = write_content({"decks/gpu.md": deck, "topics/roofline.md": TOPIC})
    (root / "assets").mkdir()
    (root / "assets" / "hbm.png").write_bytes(png())
    import_content(root, database)
    package = tmp_path / "gpu.apkg"
    with database.session() as session:
        report = export_apkg(session=session, deck_slug=None, path=package, content_dir=root)
    assert report.images == 1
    import_into(collection, package)

    answer = notes_by_card(collection)["hbm"]["Answer"]
    [name] = re.findall(r'<img src="([^"]+)" alt="HBM 带宽随代际增长"', answer)
    assert "/" not in name and name.endswith(".png")
    assert (Path(collection.media.dir()) / name).read_bytes() == png()


def test_without_the_content_directory_the_image_is_left_as_it_was(
    database, write_content: WriteContent, engine: Engine, tmp_path: Path
) -> None:
    deck = DECK.replace("约 3 TB/s。", "约 3 TB/s。\n\n![图](../assets/hbm.png)")
    root = write_content({"decks/gpu.md": deck, "topics/roofline.md": TOPIC})
    (root / "assets").mkdir()
    (root / "assets" / "hbm.png").write_bytes(png())
    import_content(root, database)
    with database.session() as session:
        report = export_apkg(session=session, deck_slug=None, path=tmp_path / "x.apkg")
    assert report.images == 0


def test_a_learners_suspended_cards_flags_and_leeches_reach_anki(
    bank: Engine, collection: "anki_collection.Collection", tmp_path: Path
) -> None:
    from app.study.marks import Mark

    package = tmp_path / "marked.apkg"
    marks = {
        "gemm-core": Mark("gemm-core", suspended=True, leech=True),
        "hbm": Mark("hbm", flag=4),
    }
    with Session(bank) as session:
        export_apkg(session=session, deck_slug=None, path=package, marks=marks)
    options = anki_collection.ImportAnkiPackageOptions(
        merge_notetypes=True, update_notes=1, with_scheduling=True
    )
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(package), options=options)
    collection.import_anki_package(request)

    [gemm] = collection.find_cards("Source:*gemm-core*")
    [hbm] = collection.find_cards("Source:*hbm*")
    assert collection.get_card(gemm).queue == -1  # suspended
    assert collection.get_card(hbm).user_flag() == 4  # blue
    assert collection.find_cards("tag:leech") == [gemm]
    assert collection.find_cards("is:suspended") == [gemm]


HOSTILE_TITLE = (
    'CUDA::Streams :::Events "quoted" <script>alert(1)</script> <b>bold</b> &amp;'
    " \u0001\u001f\u007f tab\there " + "长" * 400
)

HOSTILE_DECK = f"""
---
title: {json.dumps(HOSTILE_TITLE)}
tags: [gpu, "a::b", "<i>t</i>"]
description: "<script>d()</script> & notes"
---

## Sec::tion "q" <b>x</b>

### Q：<script>alert(2)</script> & "q"\u001f? {{#hostile}}

**面试回答。** <b>raw</b> & \u0002 fine\u001f.
"""


def test_a_hostile_deck_comes_out_in_anki_as_qbank_shows_it(
    database, write_content: WriteContent, engine: Engine, collection: "anki_collection.Collection"
) -> None:
    import_content(write_content({"decks/hostile.md": HOSTILE_DECK}), database)
    package = write_content({}) / "hostile.apkg"
    with database.session() as session:
        export_apkg(session=session, deck_slug=None, path=package)
    import_into(collection, package)  # a U+001F inside a field made Anki refuse the package

    # One deck under "qbank": '::' and ':::' flattened to ':' rather than nesting decks, the
    # control characters gone, whitespace collapsed, the HTML kept as the text it is.
    expected = (
        'qbank::CUDA:Streams :Events "quoted" <script>alert(1)</script> <b>bold</b> &amp;'
        " tab here " + "长" * 400
    )
    names = sorted(d.name for d in collection.decks.all_names_and_ids())
    assert names == ["Default", "qbank", expected]
    deck = collection.decks.by_name(expected)
    assert deck is not None
    assert deck["desc"] == "&lt;script&gt;d()&lt;/script&gt; &amp; notes"

    [note_id] = collection.find_notes("")
    note = collection.get_note(note_id)
    assert note["Question"] == "&lt;script&gt;alert(2)&lt;/script&gt; &amp; &quot;q&quot;?"
    assert note["Answer"] == "<p><b>raw</b> &amp;  fine.</p>\n"  # bare formatting kept
    assert "<script>" not in note["Source"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in note["Source"]
    assert note["Source"].endswith(" / Sec::tion &quot;q&quot; &lt;b&gt;x&lt;/b&gt; / hostile")
    # Tags are flat too: no tag hierarchy is made of a section or tag holding '::'.
    assert sorted(note.tags) == sorted(["gpu", "a:b", "<i>t</i>", 'Sec:tion_"q"_<b>x</b>'])
    card = collection.get_card(note.card_ids()[0])
    assert card.did == deck["id"]
    assert "<script>" not in card.question()
