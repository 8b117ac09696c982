"""Cloze deletions and reversed cards, from notes as written to `qbank check --json`."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.content.compile.cloze import cloze_forms
from app.content.compile.notepage import note_file, note_page
from app.content.compile.render import Rendered, Renderer
from app.content.notes.cloze import cloze_id, deletions, strip
from app.content.notes.parse import parse_note
from app.content.notes.parsed import ParsedDeck
from tests.support.cloze_notes import GPU, HIGHLIGHTS, NOTES
from tests.support.content_files import WriteContent


def cards_of(text: str, path: str = "gpu.md") -> list:
    deck, errors = parse_note(path, text)
    assert errors == []
    assert isinstance(deck, ParsedDeck)
    return deck.cards


def checked(write_content: WriteContent) -> dict:
    result = CliRunner().invoke(main, ["check", "--json", str(write_content(NOTES))])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_check_json_gives_each_card_with_its_kind(write_content: WriteContent) -> None:
    report = checked(write_content)
    gpu, memory = report["files"]
    by_question = {card["question"]: card for card in gpu["cards"]}
    assert [card["kind"] for card in gpu["cards"]] == [
        *["cloze"] * 6,
        "reversed",
        "reversed",
        "basic",
        "cloze",
    ]
    # Each deletion number is a card: its own deletion blank (or its hint), the others filled.
    assert "The H100 SXM has […] SMs and 50 MB of L2." in by_question
    assert "The H100 SXM has 132 SMs and [size] of L2." in by_question
    assert by_question["The H100 SXM has […] SMs and 50 MB of L2."]["line"] == 5
    # Inside a formula too, read as text.
    assert any(q.startswith("The ridge point is I^* = […]") for q in by_question)
    assert "HBM3 gives about […]" in by_question  # a list item, without its marker
    assert "GPU SMs A100 […]" in by_question  # a table cell
    assert by_question["roofline"]["answer"].startswith("a plot of")
    assert by_question[by_question["roofline"]["answer"]]["answer"] == "roofline"
    # A deletion in a question's answer: the card reads it as prose and it is a card of its own.
    tiling = by_question["Why does tiling help?"]
    assert "{{" not in tiling["answer"] and "O(b)" in tiling["answer"]
    assert [card["kind"] for card in memory["cards"]] == ["cloze", "cloze", "reversed", "reversed"]
    assert (
        memory["cards"][0]["question"] == "An SM has […] of registers and 228 KB of shared memory."
    )
    assert report["summary"] == {"decks": 2, "cards": 14, "topics": 0, "errors": 0, "warnings": 0}


def test_highlights_and_bold_are_deletions_only_where_a_note_opts_in() -> None:
    plain = HIGHLIGHTS.replace("cloze: highlights\n", "")
    assert [card.kind for card in cards_of(plain, "memory.md")] == ["reversed", "reversed"]
    bold = HIGHLIGHTS.replace("cloze: highlights", "cloze: bold").replace("==", "**")
    assert [card.kind for card in cards_of(bold, "memory.md")][:2] == ["cloze", "cloze"]
    _deck, errors = parse_note("m.md", HIGHLIGHTS.replace("highlights", "everything"))
    assert [error.message for error in errors] == [
        "cloze must be 'highlights' or 'bold', not 'everything'"
    ]


def test_a_note_of_deletions_keeps_them_whatever_its_name_asks() -> None:
    note = "A vector clock keeps {{c1::one counter per node}}, sent with every message.\n"
    cards = cards_of(note, "What is a vector clock.md")
    assert [(card.kind, card.question) for card in cards] == [
        ("cloze", "A vector clock keeps […], sent with every message.")
    ]
    [card] = cards_of(note.replace("{{c1::", "").replace("}}", ""), "What is a vector clock.md")
    assert (card.kind, card.question) == ("basic", "What is a vector clock")


def test_editing_text_outside_a_deletion_keeps_the_card_id() -> None:
    before = {card.question: card.id for card in cards_of(GPU)}
    edited = GPU.replace("The H100 SXM has", "NVIDIA's H100 SXM GPU has").replace(
        "{{c2::50 MB::size}}", "{{c3::50 MB::size}}"
    )
    after = {card.question: card.id for card in cards_of(edited)}
    assert (
        after["NVIDIA's H100 SXM GPU has […] SMs and 50 MB of L2."]
        == (before["The H100 SXM has […] SMs and 50 MB of L2."])
    )
    assert (
        after["NVIDIA's H100 SXM GPU has 132 SMs and [size] of L2."]
        == (before["The H100 SXM has 132 SMs and [size] of L2."])
    )
    changed = {card.id for card in cards_of(GPU.replace("{{c1::132}}", "{{c1::144}}"))}
    assert before["The H100 SXM has […] SMs and 50 MB of L2."] not in changed
    assert cloze_id("gpu", "a {{c1::x}} b", 1) == cloze_id("gpu", "other {{c7::x}}", 7)


def test_deletions_balance_braces_and_skip_code() -> None:
    text = r"$y = {{c1::\frac{a}{b}::ratio}}$ and `{{c2::code}}` and {{c3::x}}"
    found = deletions(text)
    assert [(d.number, d.answer, d.hint) for d in found] == [
        (1, r"\frac{a}{b}", "ratio"),
        (3, "x", ""),
    ]
    assert strip(text) == r"$y = \frac{a}{b}$ and `{{c2::code}}` and x"


@pytest.fixture(scope="module")
def render() -> Callable[[str], Rendered]:
    renderer = Renderer()
    return lambda text: renderer.render(text, path="n.md", line=1, errors=[])


def test_front_and_back_through_katex(render: Callable[[str], Rendered]) -> None:
    text = "Ridge $I^* = {{c1::P/B}}$ at peak {{c2::P::compute}}."
    one = cloze_forms(text, 1, render)
    # Inside a formula the blank and the answer are KaTeX's own boxes, rendered with the rest.
    assert one.front.html.count('class="katex"') == 1 and "fbox" in one.front.html
    assert "<mo>…</mo>" in one.front.html or "…" in one.front.html
    assert "P/B" not in one.front.text and "[…]" in one.front.text
    assert "at peak P." in one.front.text  # the other deletion filled in
    assert "fbox" in one.back.html and "P/B" in one.back.text
    assert one.anki == "<p>Ridge \\(I^* = {{c1::P/B}}\\) at peak P.</p>\n"
    two = cloze_forms(text, 2, render)
    assert '<span class="cloze-blank">[compute]</span>' in two.front.html
    assert '<span class="cloze-answer">P</span>' in two.back.html
    assert "fbox" not in two.front.html
    assert "{{c1::P::compute}}" in two.anki
    # A formula's closing brace is kept apart from Anki's `}}`.
    assert "{{c1::\\frac{a}{b} }}" in cloze_forms("$x={{c1::\\frac{a}{b}}}$", 1, render).anki


def test_a_note_page_reads_only_note_files_inside_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.md").write_text("# A\n\nThe {{c1::answer}}.\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("secret\n", encoding="utf-8")
    (root / "data.sqlite").write_text("not a note\n", encoding="utf-8")
    (root / "out.md").symlink_to(tmp_path / "outside.md")
    (root / "inside.md").symlink_to(root / "sub" / "a.md")
    (root / "away").symlink_to(tmp_path, target_is_directory=True)
    assert note_file(root, "sub/a.md") == (root / "sub" / "a.md").resolve()
    assert note_file(root, "inside.md") == (root / "sub" / "a.md").resolve()
    for path in (
        "../outside.md",
        "sub/../../outside.md",
        "sub/./a.md",
        str(tmp_path / "outside.md"),
        "/etc/passwd",
        "out.md",
        "away/outside.md",
        "data.sqlite",
        "sub",
        "sub\\a.md",
        "sub/a.md\x00",
        "",
    ):
        assert note_file(root, path) is None, path
    page = note_page(root, "sub/a.md")
    assert page is not None and page.title == "a"
    assert [(b.first, b.last) for b in page.blocks] == [(1, 1), (3, 3)]
    assert page.blocks[1].html == "<p>The answer.</p>\n"  # the markers removed


def test_hostile_blocks_stay_linear_and_bounded() -> None:
    many = " ".join(f"{{{{c{n}::x{n}}}}}" for n in range(1, 200))
    deck, errors = parse_note("many.md", many + "\n")
    assert isinstance(deck, ParsedDeck)
    assert len(deck.cards) == 50
    assert [str(error) for error in errors] == [
        "many.md:1: more than 50 deletion numbers in one block: only the first 50 become cards"
    ]
    # Unclosed markers by the ten thousand: each scan stops at the next marker.
    for text in ("{{c1::" * 20_000, "==a " * 30_000, "{{c1::`x}}` " * 10_000, "{{c1::{" * 20_000):
        assert len(strip(text, "highlights")) <= len(text)


def test_a_notes_own_private_use_characters_open_no_span(render: Callable[[str], Rendered]) -> None:
    forms = cloze_forms("A \ue000stray\ue003 {{c1::x}}", 1, render)
    assert forms.front.html.count("<span") == 1 and forms.front.html.count("</span>") == 1
