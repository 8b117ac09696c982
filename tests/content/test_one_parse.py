"""Compile renders each note from its one parse, and the result is what parsing each block gives."""

import pickle
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.content.compile import build, workers
from app.content.compile.compiled import CompiledDeck, CompiledTopic, with_parsed
from app.content.compile.render import Renderer
from app.content.notes.markdown import parser
from app.content.notes.parse import parse_note
from app.content.notes.parsed import ParsedDeck
from app.content.notes.source import SourceText, scan
from bench.reparse_count import FIXTURES, count_folder
from tests.support.examples import examples

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [ROOT / "content", ROOT / "tests" / "fixtures" / "notes"]

NOTE = """---
title: Drill
---

Why these questions matter, with $x^2$.

## Basics

### Q：什么是 $\\alpha$？ {#alpha}

**面试回答。** 它是 **第一个** 字母，见 $\\alpha + 1$。

<div>raw</div>

**追问。**

- 追问：$\\alpha$ 和 `a` 有什么不同？ {#alpha-vs-a}
  答：一个是**希腊**字母 $\\alpha$。

  后面还有一段。
- 追问：为什么要区分？
  答：公式里意义不同。

**易错点 / 边界。**
别把 $a$ 当成 $\\alpha$。

### Q: What is a warp?

**Answer.** 32 threads.

- one
- two

```python
x = 1
```

**Follow-ups.** Ask about divergence.
"""


def _forms(compiled: CompiledDeck | CompiledTopic) -> object:
    if isinstance(compiled, CompiledTopic):
        return (compiled.body_html, compiled.text, compiled.wikilinks)
    cards = [
        {key: value for key, value in vars(card).items() if key != "card"}
        for card in compiled.cards
    ]
    return (compiled.intro_html, [(c, vars(f)) for c in cards for f in c["followups"]], cards)


def _compile(item: build.Parsed, root: Path | None) -> tuple[object, list[str]]:
    errors: list[build.ContentError] = []
    compiled = build.compile_item(item, Renderer(root), errors)
    return _forms(compiled), sorted(f"{e.line}:{e.said}" for e in errors)


def test_a_note_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    md = parser()
    real = md.parse
    monkeypatch.setattr(md, "parse", lambda text, env=None: calls.append(text) or real(text, env))
    monkeypatch.setattr(md, "parseInline", lambda *a, **k: pytest.fail("a line parsed again"))
    deck, errors = parse_note("decks/drill.md", NOTE)
    assert isinstance(deck, ParsedDeck) and not errors
    _, problems = _compile(deck, None)
    assert len(calls) == 1, "compile parsed a block of the note again"
    assert not problems
    card = deck.cards[0]
    assert card.answer.spans and card.pitfalls.spans and card.question_span
    assert [q.id for q in card.questions] == ["alpha-vs-a", "alpha.f2"]
    assert all(q.cut for q in card.questions)


def _notes() -> list[tuple[Path, SourceText]]:
    found = []
    for folder in FOLDERS:
        sources, _ = scan(folder)
        found += [(folder, source) for source in sources]
    return found


@pytest.mark.parametrize(("root", "source"), _notes(), ids=lambda value: getattr(value, "path", ""))
def test_rendered_from_the_notes_tokens_as_from_each_block_alone(
    root: Path, source: SourceText
) -> None:
    from_tokens, _ = build.parse_source(source)
    alone, _ = build.parse_source(source)
    if from_tokens is None or alone is None:
        return
    alone.note = None  # every block parsed on its own, as compile did before
    assert _compile(from_tokens, root) == _compile(alone, root)


def test_a_worker_renders_the_tokens_it_parsed() -> None:
    source = SourceText("decks/drill.md", "", NOTE)
    [(item, _, kept)] = build._parse_many([source])
    sent = pickle.loads(pickle.dumps(item))  # as the note travels to the import
    assert sent.note is not None and sent.note.tokens is None
    assert kept and workers._kept["decks/drill.md"].note is not None
    forms, problems, _ = build._compile_kept("decks/drill.md", item.names(), None)
    assert "decks/drill.md" not in workers._kept
    assert not problems
    alone, _ = build.parse_source(source)
    assert alone is not None
    alone.note = None
    # The worker sends the forms back without the parsed note, which the import has (`sent`).
    compiled = with_parsed(forms, sent)
    assert isinstance(compiled, CompiledDeck) and compiled.deck is sent
    assert _forms(compiled) == _compile(alone, None)[0]


def test_a_note_past_the_workers_budget_travels_and_is_parsed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workers, "KEEP_CHARS", 0)
    source = SourceText("decks/drill.md", "", NOTE)
    [(item, _, kept)] = build._parse_many([source])
    assert not kept and "decks/drill.md" not in workers._kept
    sent = pickle.loads(pickle.dumps(item))
    forms, problems, _ = build._compile_remote(sent, None)
    assert not problems
    alone, _ = build.parse_source(source)
    assert alone is not None
    alone.note = None
    assert _forms(with_parsed(forms, sent)) == _compile(alone, None)[0]


# The pieces compile still parses from their text in the fixture notes, by folder. Text a
# recogniser rewrote: a fold's tags taken off the lines around its answer (details,
# details-labels, unclosed-html), an admonition's body unindented, a question over two lines
# joined into one (inline-separator), the paragraphs under a `# Question (EN)` heading joined
# into one question (labelled-headings). Lines whose tokens in the note are not what they give
# alone: text that goes on in a raw HTML block after its `<h2>` or `<summary>` line
# (html-headings, html-headings-anchors, details-adjacent), lines a list item took as its lazy
# continuation (plain-text). A question that is the note's file name, written nowhere in the note
# (file-name-questions). A question mark the bold left outside, joined to the bold question
# (bold-step-numbers, list-questions), a task list's box taken off one (list-questions). Not
# cut yet: an `A:` line under its `Q:` line inside one list item
# (bold-qa-markers, list-questions).
STILL_PARSED = {
    "admonition-labels": 2,
    "bold-qa-markers": 2,
    "bold-step-numbers": 2,
    "details": 5,
    "details-adjacent": 1,
    "details-labels": 3,
    "file-name-questions": 22,
    "html-headings": 1,
    "html-headings-anchors": 1,
    "inline-separator": 1,
    "labelled-headings": 7,
    "list-questions": 4,
    "plain-text": 3,
    "unclosed-html": 1,
}


@pytest.mark.parametrize(
    "folder",
    [ROOT / "content", *sorted(p.parent for p in FIXTURES.glob("*/expected.json"))],
    ids=lambda p: p.name,
)
def test_compile_parses_again_only_what_the_recognisers_rewrote(folder: Path) -> None:
    assert count_folder(folder).total <= STILL_PARSED.get(folder.name, 0)


def _renders_alike(note: str) -> None:
    """The note's cards compile the same from its tokens as from each piece's text alone."""
    deck, _ = parse_note("decks/f.md", note)
    if not isinstance(deck, ParsedDeck) or not deck.cards:
        return
    alone, _ = parse_note("decks/f.md", note)
    assert isinstance(alone, ParsedDeck)
    alone.note = None
    assert _compile(deck, None) == _compile(alone, None)


_PIECES = st.sampled_from(
    ["$x^2$", "`code`", "**粗体**", "*斜*", "`a` b", "{#id-1}", " ", "中文", "why?", "[[W]]", "\\*"]
)
_LINE = st.lists(_PIECES, min_size=1, max_size=5).map("".join)


@given(
    st.lists(
        st.tuples(_LINE, _LINE, st.lists(_LINE, max_size=2), st.booleans()), min_size=1, max_size=3
    )
)
@settings(max_examples=examples(100), deadline=None)
def test_follow_ups_render_from_the_note_as_from_their_text(
    items: list[tuple[str, str, list[str], bool]],
) -> None:
    """Follow-ups cut from the note's tokens give what parsing their text alone gives."""
    lines = []
    for question, answer, more, loose in items:
        lines += [f"- 追问：{question}", f"  答：{answer}"]
        lines += [line for extra in more for line in ("", f"  {extra}")]
        lines += [""] if loose else []
    note = "### Q：题？\n\n**回答。** 答案。\n\n**追问。**\n\n" + "\n".join(lines) + "\n"
    _renders_alike(note)


def test_questions_on_a_paragraphs_first_line_are_not_parsed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    note = "Q: 什么是 **warp**？\nA: 32 个线程，见 $2^5$。\n\nQ: 什么是 SM？\nA: 流式多处理器。\n"
    deck, errors = parse_note("decks/qa.md", note)
    assert isinstance(deck, ParsedDeck) and not errors
    assert [card.question for card in deck.cards] == ["什么是 **warp**？", "什么是 SM？"]
    assert all(card.question_span for card in deck.cards)
    md = parser()
    monkeypatch.setattr(md, "parseInline", lambda *a, **k: pytest.fail("a question parsed again"))
    forms, problems = _compile(deck, None)
    assert not problems
    _, _, cards = forms
    assert cards[0]["question_html"] == "什么是 <strong>warp</strong>？"


_QUESTION_LINES = st.sampled_from(
    [
        "Q: {q}？\nA: {a}",
        "**{q}？**\n{a}",
        "**Q:** {q}？\n**A:** {a}",
        "1. {q}？\n{a}",
        "Q：{q}？\n\n{a}",
    ]
)


@given(st.lists(st.tuples(_QUESTION_LINES, _LINE, _LINE), min_size=2, max_size=4))
@settings(max_examples=examples(100), deadline=None)
def test_questions_on_their_own_line_render_from_the_note_as_from_their_text(
    items: list[tuple[str, str, str]],
) -> None:
    """Questions cut from a paragraph's first line give what parsing their text alone gives."""
    note = "\n\n".join(form.format(q=q, a=a) for form, q, a in items) + "\n"
    _renders_alike(note)


_HTML_PIECES = st.sampled_from(
    ["$x^2$", "`code`", "**粗体**", "中文", "what", " ", "&amp;", "&lt;b&gt;", "<b>b</b>", "\\*"]
)
_HTML_HEADINGS = st.sampled_from(
    [
        '<h2 id="{n}.{q}">{n}.{q}？</h2>\n\n{a}',
        "<h3>{q}?</h3>\n{a}",
        '<h1><a id="x"></a>{n}. {q}？</h1>\n\n{a}',
        "<h2><strong>{q}？</strong></h2>\n\n{a}",
        '## <a id="a{n}"></a>{q}？\n\n{a}',
        "<p>{a}</p>\n<h2>{q}？</h2>\n\n{a}",
        "<h2>{q}？</h2>\n<p>{a}</p>\n<div>{a}</div>\n<!-- {a} -->",
        '<h2 id="x">{q}？</h2>\n  <p>{a}\n{a}</p>\n\n{a}',
    ]
)


@given(
    st.lists(
        st.tuples(_HTML_HEADINGS, st.lists(_HTML_PIECES, min_size=1, max_size=4).map("".join)),
        min_size=1,
        max_size=4,
    ),
    _LINE,
)
@settings(max_examples=examples(100), deadline=None)
def test_html_headings_render_from_the_note_as_from_their_text(
    items: list[tuple[str, str]], answer: str
) -> None:
    """Questions of `<hN>` headings, cut from the note's tokens, give what their text gives."""
    note = "\n\n".join(
        form.format(n=n, q=q, a=answer) for n, (form, q) in enumerate(items, start=1)
    )
    _renders_alike(note + "\n")


_LIST_ITEMS = st.sampled_from(
    [
        "- **{q}**\n    * {a}\n    * {a}",
        "- {q}？\n  - {a}\n  - {a}",
        "- {q}？\n  {a}",
        "1. {q}？\n\n   {a}\n\n   - {a}",
        "2. Q: {q}？\n   - {a}",
        "1.  ### {q}？\n\n    {a}\n\n    ```\n    code\n    ```",
        "- {q} #card\n  - {a}",
        "- **{q}**：\n    {a}",
        "1.  ### {q}？\n\n    {a}\n\n    **[⬆ Back to Top](#table-of-contents)**",
        "- {q}？\n  - {a}\n\n  [↑ 返回目录](#目录)",
    ]
)


@given(
    st.lists(st.tuples(_LIST_ITEMS, _LINE, _LINE), min_size=1, max_size=4),
    st.sampled_from(["\n", "\n\n"]),
)
@example(  # stars that open no emphasis (`** x**`) stay in the question either way
    [("- **{q}**\n    * {a}\n    * {a}", q, "$x^2$") for q in ("$x^2$", "$x^2$", " $x^2$**粗体**")],
    "\n",
)
@settings(max_examples=examples(100), deadline=None)
def test_list_item_questions_render_from_the_note_as_from_their_text(
    items: list[tuple[str, str, str]], between: str
) -> None:
    """List items that ask, cut from the note's tokens, give what their text alone gives."""
    note = "## 复习\n\n" + between.join(form.format(q=q, a=a) for form, q, a in items) + "\n"
    _renders_alike(note)


_LABELS = st.sampled_from(
    [
        "",
        "",
        "**面试回答。** ",
        "面试回答。",
        "**追问展开**：",
        "易错点 / 边界。 ",
        "**A:** ",
        "答：",
    ],
)
_ENDED_LINE = st.tuples(_LINE, st.sampled_from(["", "", "  ", "\\"])).map("".join)


@given(
    st.lists(st.tuples(_LABELS, _ENDED_LINE, st.sampled_from(["\n", "\n", "\n\n"])), max_size=6),
    st.sampled_from(["### Q：题？\n\n", "Q: 题？\n", "**Q:** 题？\n", "1.题？\n"]),
)
@settings(max_examples=examples(100), deadline=None)
def test_labelled_lines_of_one_paragraph_render_from_the_note_as_from_their_text(
    lines: list[tuple[str, str, str]], question: str
) -> None:
    """Blocks cut from lines of a paragraph give what parsing their lines alone gives."""
    body = "".join(label + line + after for label, line, after in lines)
    after = question.replace("题", "另一题") + "x\n"
    _renders_alike(question + "A: 答案。\n" + body + "\n" + after)


_FOLDS = st.sampled_from(
    [
        "<details>\n<summary>{q}？</summary>\n\n{a}\n\n</details>",
        "<details><summary>{q}?</summary>\n\n{a}\n</details>",
        "{n}. {q}？\n\n<details><summary><b>Show Answer</b></summary>\n\n{a}\n\n</details>",
        "{q}？\n\n<details>\n<summary>💡 **答案**</summary>\n\n{a}\n</details>\n\n---",
        "<details>\n<summary> {q} </summary>\n{a}\n</details>",
        "</details>\n<details><summary>{q}？</summary>\n\n{a}\n\n</details>",
    ]
)


@given(
    st.lists(
        st.tuples(_FOLDS, st.lists(_HTML_PIECES, min_size=1, max_size=4).map("".join), _LINE),
        min_size=1,
        max_size=4,
    )
)
@settings(max_examples=examples(100), deadline=None)
def test_details_render_from_the_note_as_from_their_text(items: list[tuple[str, str, str]]) -> None:
    """`<details>` questions, cut from the note's tokens, give what their text alone gives."""
    folds = [form.format(n=n, q=q, a=a) for n, (form, q, a) in enumerate(items, start=1)]
    _renders_alike("## 问答\n\n" + "\n\n".join(folds) + "\n")


_CELL = st.lists(
    st.sampled_from(
        ["$x^2$", "`code`", "**粗体**", "中文", "why?", " ", "a \\| b", "- x", "[[W]]"]
    ),
    min_size=1,
    max_size=4,
).map("".join)


@given(
    st.lists(st.tuples(_CELL, _CELL), min_size=1, max_size=4),
    st.sampled_from(
        ["| 问题 | 答案 |\n| --- | --- |", "| # | **Question** | **Answer** |\n|---|---|---|"]
    ),
)
@settings(max_examples=examples(100), deadline=None)
def test_question_tables_render_from_the_note_as_from_their_text(
    rows: list[tuple[str, str]], header: str
) -> None:
    """A question table's cells, cut from the note's tokens, give what their text alone gives."""
    numbered = header.startswith("| #")
    lines = [
        f"| {n} | {q} | {a} |" if numbered else f"| {q} | {a} |"
        for n, (q, a) in enumerate(rows, start=1)
    ]
    _renders_alike("## 速记\n\n" + header + "\n" + "\n".join(lines) + "\n")


_QUOTED = st.sampled_from(
    [
        "> [!question] {q}？\n> {a}\n> {a}",
        "> [!faq]- {q}?\n>\n> {a}\n>\n> - {a}",
        "> [!QUESTION]+ {q}\n> {a}\n\n",
        "> [!question]\n> {q}？\n> {a}",
        "> [!question] {q}？\n> > [!success] Answer\n> > {a}",
        "{q}？\n\n> 答：{a}\n> {a}",
        "{q}？\n\n> **A:** {a}\n>\n> ```\n> code\n> ```",
        "{q}::{a}",
        "- {q}::{a}",
    ]
)


@given(st.lists(st.tuples(_QUOTED, _LINE, _LINE), min_size=1, max_size=4))
@settings(max_examples=examples(100), deadline=None)
def test_callouts_quotes_and_separators_render_from_the_note_as_from_their_text(
    items: list[tuple[str, str, str]],
) -> None:
    """Callouts, quoted answers and `question::answer` lines, cut from the note's tokens, give
    what their text alone gives."""
    _renders_alike("\n\n".join(form.format(q=q, a=a) for form, q, a in items) + "\n")
