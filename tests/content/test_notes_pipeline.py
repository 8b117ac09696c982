"""The one parse: the syntax every stage reads, and what it becomes."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from app.content.bank.sync import check_content
from app.content.compile.render import Renderer
from app.content.errors import ContentError
from app.content.notes import recognisers
from app.content.notes.markdown import MATH_TYPES, parser
from app.content.notes.outline import build_outline
from app.content.notes.parse import parse_note
from app.content.notes.parsed import ParsedDeck
from app.content.notes.wording import Found, Reason, Syntax
from tests.support.cpu import least_cpu_seconds
from tests.support.examples import examples


def _html(text: str) -> str:
    errors: list[ContentError] = []
    html = Renderer().render(text, path="n.md", line=1, errors=errors).html
    assert errors == []
    return html


def test_highlight_marks_render_as_mark() -> None:
    assert _html("a ==key idea== b") == "<p>a <mark>key idea</mark> b</p>\n"
    assert _html("==**强调**==后") == "<p><mark><strong>强调</strong></mark>后</p>\n"


def test_equals_signs_that_mark_nothing_stay_text() -> None:
    assert _html("a == b, x = 1, ===x===") == "<p>a == b, x = 1, ===x===</p>\n"
    assert _html("`==code==`") == "<p><code>==code==</code></p>\n"


# --- the outline and the renderer agree on math and code -----------------------------------

# Lines that mean structure outside math and code: headings, list items, labels, questions.
_STRUCTURE = st.sampled_from(
    [
        "## Is this a heading?",
        "# 这是标题吗？",
        "- a list item",
        "1. What is a numbered question?",
        "Answer: a label",
        "**Pitfalls** a bold label",
        "追问：a follow-up?",
        "Q: a question line?",
        "<details><summary>Question?</summary>",
        "</details>",
        "x + y = z",
        "",
    ]
)
_SPANS = {
    "dollars": ("$$", "$$"),
    "brackets": ("\\[", "\\]"),
    "math fence": ("```math", "```"),
    "code fence": ("```python", "```"),
    "tilde fence": ("~~~", "~~~"),
}
_SPAN_TOKENS = {*MATH_TYPES, "fence"}


def _spans(tokens: list[Token]) -> list[tuple[int, int, str]]:
    """(first line, last line, content) of each math or code token, as the renderer parses."""
    found: list[tuple[int, int, str]] = []
    for token in tokens:
        if token.type in _SPAN_TOKENS and token.map:
            found.append((token.map[0], token.map[1] - 1, token.content))
        if token.type == "inline" and token.map:
            line = token.map[0]
            for child in token.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                newlines = child.content.count("\n")
                if child.type in MATH_TYPES:
                    found.append((line, line + newlines, child.content))
                line += newlines
    return found


@settings(max_examples=examples(150), deadline=None)
@given(
    kind=st.sampled_from(sorted(_SPANS)),
    inside=st.lists(_STRUCTURE, min_size=1, max_size=6),
    inline=st.booleans(),
)
def test_outline_and_renderer_agree_on_math_and_code(
    kind: str, inside: list[str], inline: bool
) -> None:
    opening, closing = _SPANS[kind]
    if inline and kind == "dollars":
        # `$$` inside a paragraph: lines that interrupt a paragraph end it, for both readers.
        span = [f"Answer: where {opening}", *inside, f"{closing} holds."]
    else:
        span = [opening, *inside, closing]
    lines = [
        "## What is in this span?",
        "",
        "It reads:",
        "",
        *span,
        "",
        "## Is that all?",
        "",
        "Yes.",
    ]
    outline = build_outline(lines)
    tokens = parser().parse("\n".join(lines))
    for first, last, _ in _spans(tokens):
        # Every line a formula or fence continues onto is text to every recogniser.
        assert set(range(first + 1, last + 1)) <= outline.protected, (first, last)
        assert not any(first < h.line <= last for h in outline.headings)
    if inline and kind == "dollars":
        return
    note, errors = parse_note("n.md", "\n".join(lines))
    assert isinstance(note, ParsedDeck), errors
    assert [card.question for card in note.cards] == ["What is in this span?", "Is that all?"]
    # The whole span stays in the answer, and the renderer reads it as one formula or fence.
    answer = note.cards[0].answer.text
    assert "\n".join(span) in answer
    [(_, _, content)] = _spans(parser().parse(answer))
    assert content.strip("\n") == "\n".join(inside).strip("\n")


def test_a_bracket_formula_is_no_label() -> None:
    text = "## What is softmax?\n\n\\[\nAnswer: \\sigma(z)\n\\]\n\nIt normalises."
    note, _ = parse_note("n.md", text)
    assert isinstance(note, ParsedDeck)
    [card] = note.cards
    assert "Answer: \\sigma(z)" in card.answer.text


# --- fixtures: warnings and sections where a folder lists them -----------------------------

NOTES = Path(__file__).parents[1] / "fixtures" / "notes"
_WITH = [p.parent.name for p in sorted(NOTES.glob("*/expected.json"))]


@pytest.mark.parametrize("folder", _WITH)
def test_each_listed_warning_is_reported_at_its_line(folder: str) -> None:
    want = json.loads((NOTES / folder / "expected.json").read_text(encoding="utf-8"))
    if not want.get("warnings") and not want.get("section_of"):
        pytest.skip("no warnings or sections listed")
    report = check_content(NOTES / folder)
    lines = {(w.path, w.line) for w in report.warnings}
    for item in want.get("warnings", []):
        assert (item["file"], item["line"]) in lines, (item, sorted(lines))
    sections = {}
    for path in sorted(NOTES.glob(f"{folder}/**/*.md")):
        note, _ = parse_note(path.name, path.read_text(encoding="utf-8"))
        if isinstance(note, ParsedDeck):
            sections.update({card.question: card.section for card in note.cards})
    for question, section in want.get("section_of", {}).items():
        assert sections[question] == section, (question, sections)


# --- recognisers as plug-ins ---------------------------------------------------------------


def test_each_registered_recogniser_has_its_own_name_and_finds_cards_in_the_fixtures() -> None:
    names = [recogniser.name for recogniser in recognisers.REGISTRY]
    assert len(set(names)) == len(names)
    assert all(isinstance(name, Syntax) for name in names)
    found: set[str] = set()
    for path in sorted(NOTES.glob("*/**/*.md")) + sorted(NOTES.glob("*/**/*.txt")):
        note, _ = parse_note(path.name, path.read_text(encoding="utf-8"))
        if isinstance(note, ParsedDeck):
            found |= {card.recogniser for card in note.cards}
    makes_no_card = {Syntax.TITLE, Syntax.SECTION_LINE, Syntax.CONTENTS}
    assert {*names} - makes_no_card <= found


class _Flashcard:
    """A syntax of one line, `FLASHCARD question | answer`: what a plug-in takes."""

    name = Syntax.QA_LINES
    units = frozenset({"line"})

    def claim(self, unit: recognisers.Unit, region: recognisers.Region) -> Found | None:
        text = region.lines[unit.start]
        if not text.startswith("FLASHCARD "):
            return None
        question, _, answer = text.removeprefix("FLASHCARD ").partition("|")
        card = region.add(region.card(question.strip(), unit.start, self.name))
        card.body = [(unit.start, answer.strip())]
        return card


def test_a_syntax_is_one_more_recogniser_in_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Some notes.\n\nFLASHCARD What is TCP? | A reliable byte stream.\n"
    note, _ = parse_note("n.md", text)
    assert not isinstance(note, ParsedDeck)
    monkeypatch.setattr(recognisers, "REGISTRY", (_Flashcard(), *recognisers.REGISTRY))
    note, _ = parse_note("n.md", text)
    assert isinstance(note, ParsedDeck)
    [card] = note.cards
    assert (card.question, card.answer.text) == ("What is TCP?", "A reliable byte stream.")


def test_reasons_and_kinds_are_named_values() -> None:
    note, _ = parse_note("n.md", "# Title\n\n## Background\n\nText.\n\n## What is X?\n\nY.\n")
    assert isinstance(note, ParsedDeck)
    assert [(n.text, n.reason) for n in note.not_taken] == [
        ("Title", Reason.TITLE),
        ("Background", Reason.NOT_A_QUESTION),
    ]
    assert note.cards[0].recogniser is Syntax.QUESTION_HEADING


def test_a_fold_label_is_not_part_of_the_answer() -> None:
    report = check_content(NOTES / "details-summaries")
    answers = [card.answer for file in report.files for card in file.cards]
    assert len(answers) == 4
    for answer in answers:
        assert not any(label in answer for label in ("Show Answer", "Answer", "点击展开", "答案"))


# --- linear time in the size of a note -----------------------------------------------------

_ADVERSARIAL = {
    "spaces in a heading": lambda n: "## " + " " * n + "x?\n",
    "ideographic spaces": lambda n: "## " + "\u3000" * n + "x？\n",
    "spaces in a tag": lambda n: "## Q?\n\n<div" + " " * n + ">\n",
    "formula blocks": lambda n: "## Q?\n\n" + "$$\nx\n$$\n\n" * (n // 8),
    "stars": lambda n: "## Q?\n\n" + "*a " * (n // 3) + "\n",
    "brackets": lambda n: "## Q?\n\n" + "[" * (n // 2) + "]" * (n // 2) + "\n",
    "numbered lines": lambda n: "".join(f"{i % 999 + 1}. q{i}?\n\na\n\n" for i in range(n // 12)),
    "unclosed folds": lambda n: "## Q?\n\nA\n\n" + "<details>\n\n## H?\n\nx\n\n" * (n // 24),
    "many headings": lambda n: "".join(
        f"{'#' * (i % 6 + 1)} h{i}?\n\nx\n\n" for i in range(n // 14)
    ),
    "labelled headings": lambda n: "# Question\n\nq\n\n## Answer\n\na\n\n" * (n // 30),
    "lists": lambda n: "- a\n\nb\n\n" * (n // 8),
}


def _cpu(text: str) -> float:
    return max(least_cpu_seconds(lambda: parse_note("n.md", text), runs=2), 1e-3)


@pytest.mark.parametrize("kind", sorted(_ADVERSARIAL))
def test_the_recognisers_take_time_in_proportion_to_the_note(kind: str) -> None:
    # Ten times the text must cost about ten times the time, not a hundred (quadratic).
    make = _ADVERSARIAL[kind]
    ratio = _cpu(make(30_000)) / _cpu(make(3_000))
    assert ratio < 35, ratio


@pytest.mark.parametrize(
    ("heading", "text"),
    [
        ("[How do we use Fragments?](https://example.org/a_(b))", "How do we use Fragments?"),
        ("[What does `commit()` do?](https://example.org/a_(b))", "What does `commit()` do?"),
        ("[Why *this* and __that__?](https://example.org/a)", "Why *this* and __that__?"),
        ("[What is $x^2$ or \\(y\\)?](https://example.org/a)", "What is $x^2$ or \\(y\\)?"),
        (
            "[Is \\*x\\* &amp; <b>y</b> ~~z~~?](https://example.org/a)",
            "Is \\*x\\* &amp; <b>y</b> ~~z~~?",
        ),
        ("[See <https://example.org/b>](https://example.org/a)", "See <https://example.org/b>"),
        ('[Is `]` a bracket?](<https://example.org/a b> "title")', "Is `]` a bracket?"),
        ('<a id="q"></a> [Anchored?](https://example.org/a) {#anchored}', "Anchored?"),
        ("[By reference?][ref]", "By reference?"),
        ("[What is it?](https://example.org/a) and more", None),
        ("**[Bold around it?](https://example.org/a)**", None),
        ("[One](https://example.org/a) [two](https://example.org/b)", None),
        ("What is it?", None),
        ("<https://example.org/faq?>", None),
    ],
)
def test_a_heading_that_is_one_link_has_its_texts_markdown(heading: str, text: str | None) -> None:
    outline = build_outline([f"## {heading}", "", "[ref]: https://example.org/r"])
    assert outline.headings[0].link_text == text
