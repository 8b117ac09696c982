"""Rendering: Markdown + KaTeX to safe HTML, math found exactly where the format says."""

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from app.content.compile.render import Renderer
from app.content.errors import ContentError, ContentWarning
from tests.support.render import RecordingRenderer, collapse_math

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"),
    read_fixture_file(FIXTURES / "render_cases.md"),
    ids=[case[1] for case in read_fixture_file(FIXTURES / "render_cases.md")],
)
def test_render_cases(line: int, title: str, text: str, expected: str) -> None:
    renderer = RecordingRenderer()
    errors: list[ContentError] = []
    rendered = renderer.render(text, path="decks/case.md", line=1, errors=errors)
    assert errors == []
    for out in renderer.outputs:
        # Every formula really went through KaTeX: MathML plus the TeX annotation.
        assert "<math" in out
        assert 'encoding="application/x-tex"' in out
    assert collapse_math(rendered.html, renderer).rstrip() == expected.rstrip()


def render(text: str, *, line: int = 1, inline: bool = False) -> tuple[str, list[ContentError]]:
    errors: list[ContentError] = []
    out = Renderer().render(text, path="decks/x.md", line=line, errors=errors, inline=inline)
    return out.html, errors


def test_inline_and_display_math_become_katex_mathml() -> None:
    out, errors = render("强度$I$很低\n\n$$\n\\begin{aligned}a&=b\\\\c&=d\\end{aligned}\n$$\n")
    assert errors == []
    assert out.count("<math") == 2
    assert out.count('display="block"') == 1
    assert '<span class="katex-display">' in out
    assert "<mtable" in out  # the aligned environment really became a table of rows
    assert "$" not in out


def test_bad_formula_is_an_error_with_its_line_and_formula() -> None:
    text = "first line\nsecond $\\frac{a$ line\n\nthird $\\badmacro$"
    out, errors = render(text, line=10)
    assert [(e.path, e.line) for e in errors] == [("decks/x.md", 11), ("decks/x.md", 13)]
    assert errors[0].message.startswith("KaTeX: ")
    assert errors[0].message.endswith(" in $\\frac{a$")
    assert "expected '}'" in errors[0].message
    assert "Undefined control sequence: \\badmacro" in errors[1].message
    # The page still renders; the bad formula is shown as escaped code.
    assert '<code class="math-error"' in out
    assert "\\frac{a</code>" in out


def test_bad_multiline_display_formula_reports_its_opening_line() -> None:
    _, errors = render(
        "intro\n\n$$\n\\begin{aligned}\na &= \\frac{1\n\\end{aligned}\n$$\n", line=20
    )
    assert len(errors) == 1
    assert errors[0].line == 22
    # The formula is shown on one line in the message.
    assert "in $\\begin{aligned} a &= \\frac{1 \\end{aligned}$" in errors[0].message


def test_bad_formula_in_a_list_item_reports_the_item_line() -> None:
    _, errors = render("- ok $a$\n- still ok\n- bad $\\frac$\n", line=5)
    assert [e.line for e in errors] == [7]


def test_bad_formula_after_a_multiline_formula_in_a_paragraph() -> None:
    _, errors = render("text $a\n+b$ and\nthen $\\frac$", line=1)
    # The inline formula over a line break is also worth a warning (see tests/content/test_lint.py).
    assert [(e.line, isinstance(e, ContentWarning)) for e in errors] == [(1, True), (3, False)]


def test_formulas_are_rendered_once_per_distinct_formula() -> None:
    renderer = Renderer()
    errors: list[ContentError] = []
    for _ in range(3):
        renderer.render("$x$ and $x$ and $$x$$", path="p", line=1, errors=errors)
    renderer.render("$\\frac{$ $\\frac{$", path="p", line=1, errors=errors)
    assert renderer.formulas_rendered == 3  # x inline, x display, the bad one
    assert len(errors) == 2  # a cached failure is still reported where it occurs


def test_plain_text_and_wikilinks() -> None:
    out = Renderer().render(
        "强度$\\beta I$很低，见 [[FlashAttention]] 和 `code`", path="p", line=1, errors=[]
    )
    assert out.wikilinks == ["FlashAttention"]
    # The formula as readable text, from its TeX: the text never holds KaTeX's markup.
    assert out.text == "强度 β I 很低，见 FlashAttention 和 code"


def test_plain_text_keeps_blocks_apart_and_drops_markup() -> None:
    text = "a **b**c  \nd\n\n- x &amp; y\n\n```\nz\n```\n\n$$\n\\frac{a}{b}\n$$\n"
    out = Renderer().render(text, path="p", line=1, errors=[])
    assert out.text == "a bc d x & y z a/b"


def test_the_anki_form_has_each_formula_as_tex_between_mathjax_delimiters() -> None:
    out = Renderer().render(
        "Inline $a<b$ and\n\n$$\nx^2\n$$\n\nbad $\\frac$", path="p", line=1, errors=[]
    )
    assert "\\(a&lt;b\\)" in out.anki
    assert "\\[x^2\\]" in out.anki
    assert "katex" not in out.anki
    assert '<code class="math-error"' in out.anki  # shown as its source, as on the page
    assert out.formulas == 2


def test_inline_rendering_for_questions_has_no_paragraph() -> None:
    out, errors = render("为什么 $O(N^2)$？", inline=True)
    assert errors == []
    assert not out.startswith("<p>")
    assert out.startswith('为什么 <span class="katex">')


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "x <script src=//evil.example></script> y",
        "[a](javascript:alert(1))",
        "[a](  javascript:alert(1)  )",
        "[a](java\tscript:alert(1))",
        "[a](&#x6A;avascript:alert(1))",
        "[a][ref]\n\n[ref]: javascript:alert(1)",
        "<javascript:alert(1)>",
        "![i](javascript:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        "<img src=x onerror=alert(1)>",
        "$\\href{javascript:alert(1)}{x}$",
        "$\\url{javascript:alert(1)}$",
        "[[javascript:alert(1)]]",
    ],
)
def test_scripts_and_javascript_links_are_inert(text: str) -> None:
    out, _ = render(text)
    lowered = out.lower()
    assert "<script" not in lowered
    assert 'href="javascript:' not in lowered
    assert 'src="javascript:' not in lowered
    assert "<img" not in lowered
    assert '<a href="javascript' not in lowered


def test_formula_whose_katex_message_cannot_be_decoded_is_an_error() -> None:
    # pykatex raises UnicodeDecodeError when KaTeX's error context cuts an emoji in half.
    tex = "\\badmacro " + "😀" * 20
    out, errors = render(f"emoji ${tex}$", line=3)
    message = f"KaTeX: could not parse this formula in ${tex}$"
    assert [str(e) for e in errors] == [f"decks/x.md:3: {message}"]
    assert '<code class="math-error"' in out


def test_code_span_across_lines_keeps_later_lines_right() -> None:
    _, errors = render("a `co\nde` b\n`x\ny\nz` $\\frac$", line=1)
    assert [e.line for e in errors] == [5]
