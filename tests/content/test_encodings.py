"""A note in UTF-16 or UTF-32, with or without a byte-order mark, is read as the text it is, or
refused with a `path:line` problem; never imported as mojibake."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.content.bank.sync import check_content
from app.content.compile import build
from app.content.compile.compiled import CompiledDeck
from app.content.compile.render import Renderer
from app.content.errors import ContentError, ContentWarning
from app.content.notes.encoding import decode
from app.content.notes.invisible import visible
from app.content.notes.source import scan

NOTE = """\
# 并发 Concurrency

## 什么是死锁？

两个线程互相等待对方持有的锁，一个都不放手。

## What is a race?

An outcome that depends on timing: 上一次写入被覆盖。
"""
QUESTIONS = ["什么是死锁？", "What is a race?"]
WIDE = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


def _check(folder: Path, data: bytes):
    folder.mkdir(exist_ok=True)
    (folder / "deck.md").write_bytes(data)
    return check_content(folder)


def _questions(report) -> list[str]:
    return [card.question for f in report.files for card in f.cards]


@pytest.mark.parametrize("codec", WIDE)
def test_a_wide_note_with_a_byte_order_mark_reads_as_utf8_would(tmp_path: Path, codec: str):
    report = _check(tmp_path / "n", ("\ufeff" + NOTE).encode(codec))
    assert _questions(report) == QUESTIONS
    assert not report.errors and not report.warnings


@pytest.mark.parametrize("codec", WIDE)
def test_a_wide_note_without_a_mark_is_detected_with_a_warning(tmp_path: Path, codec: str):
    report = _check(tmp_path / "n", NOTE.encode(codec))
    assert _questions(report) == QUESTIONS
    name = codec.upper().replace("-", " ", 1).replace("-", " ").replace("UTF ", "UTF-")
    assert [str(w) for w in report.warnings] == [
        f"deck.md:1: file has no byte-order mark; read as {name} (saving it as UTF-8 is safer)"
    ]


def test_a_chinese_note_in_utf16_without_a_mark_is_not_read_as_gb18030(tmp_path: Path):
    # Hardly any ASCII: only the line breaks have a NUL byte.
    note = "# 并发\n\n## 什么是死锁？\n\n两个线程互相等待对方持有的锁。一个都不放手。\n"
    report = _check(tmp_path / "n", note.encode("utf-16-le"))
    assert _questions(report) == ["什么是死锁？"]
    assert [w.said.code for w in report.warnings] == ["read_without_bom"]


def test_a_broken_wide_note_is_refused_at_its_line(tmp_path: Path):
    data = ("\ufeff" + NOTE).encode("utf-16-le")
    broken = data[:100] + b"\x00\xdc" + data[100:]  # a lone low surrogate
    report = _check(tmp_path / "n", broken)
    assert _questions(report) == []
    (problem,) = [p for p in report.warnings + report.errors if p.path == "deck.md"]
    assert problem.said.code == "bom_invalid" and problem.line == 5
    assert "UTF-16 LE byte-order mark" in problem.message


def test_a_file_with_nul_bytes_that_is_no_wide_text_is_refused(tmp_path: Path):
    report = _check(tmp_path / "n", NOTE.encode() + b"\x00\x01binary\n")
    assert _questions(report) == []
    (problem,) = [p for p in report.warnings + report.errors if p.path == "deck.md"]
    assert problem.said.code == "binary" and problem.line == 10


def test_invalid_utf8_names_the_byte_and_the_line(tmp_path: Path):
    report = _check(tmp_path / "n", b"# Deck\n\n## Q?\n\ncaf\xe9\n")
    (problem,) = [p for p in report.warnings + report.errors if p.path == "deck.md"]
    assert str(problem) == (
        "deck.md:5: file is not valid UTF-8 (byte 0xE9), nor GB18030; not read: save it as UTF-8"
    )


# Notes as people write them: lines of any text (no NUL characters, which no note holds).
LINES = st.lists(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n")),
    min_size=2,
    max_size=8,
)


@given(LINES, st.sampled_from(["utf-8", *WIDE]), st.booleans())
def test_any_note_reads_back_as_itself_or_is_refused(lines: list[str], codec: str, bom: bool):
    # Itself but for the zero-width characters that show nothing (app.content.notes.invisible).
    text = visible("\n".join(lines) + "\n")
    data = (("\ufeff" if bom else "") + text).encode(codec)
    problems: list[ContentError] = []
    read = decode(data, "n.md", problems)
    if read is None:
        assert problems and not isinstance(problems[-1], ContentWarning)
    elif codec == "utf-8" and not bom:
        # GB18030 is a guess that warns; otherwise the text is the text written.
        assert read == text or [p.said.code for p in problems] == ["read_as_gb18030"]
    else:
        assert read == text, (codec, bom, problems)


# --- characters that show nothing ----------------------------------------------------------

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def test_zero_width_characters_are_dropped_as_a_note_is_read():
    data = "## XGBoost\u200b为什么\u2060快？\n\n因为\ufeff预排序\u200c和\u200d并行。\n".encode()
    assert decode(data, "n.md", []) == "## XGBoost为什么快？\n\n因为预排序和并行。\n"


def test_joiners_that_shape_an_emoji_or_a_word_stay():
    coder, eye = "\U0001f469\u200d\U0001f4bb", "\U0001f441\ufe0f\u200d\U0001f5e8\ufe0f"
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    assert visible(f"{coder} {eye} {persian}") == f"{coder} {eye} {persian}"
    assert visible("a\u200db \u200c") == "ab "


def test_a_zero_width_space_opening_a_line_takes_its_indentation_along():
    # `\u200b\t综上所述` is a paragraph; the tab alone would make it indented code.
    assert visible("甲\n\n\u200b\t综上所述\n  \u200b  乙\n") == "甲\n\n综上所述\n  乙\n"


def test_a_question_and_its_rendered_forms_agree_without_zero_width_characters(tmp_path: Path):
    note = "# 提升树\n\n## XGBoost\u200b为什么\u200d可以并行？\n\n特征\u200b粒度上并行。\n"
    (tmp_path / "deck.md").write_text(note, encoding="utf-8")
    [source], _ = scan(tmp_path)
    parsed, _ = build.parse_source(source)
    assert parsed is not None
    compiled = build.compile_item(parsed, Renderer(), [])
    assert isinstance(compiled, CompiledDeck)
    [card] = compiled.cards
    question = "XGBoost为什么可以并行？"
    assert card.card.question == question
    assert card.question_text == question
    assert card.question_html == question
    assert card.answer_text == "特征粒度上并行。"
    assert not set(ZERO_WIDTH) & set(card.card.id + card.answer_html)
