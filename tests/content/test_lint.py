"""The formula lint: eaten TeX escapes found, ordinary formulas (every bundled one) left alone."""

from pathlib import Path

import pytest
from markdown_it.token import Token

from app.content.bank.sync import check_content
from app.content.compile.lint import BRACED_TAILS, EATEN_TAILS, formula_warnings
from app.content.compile.render import Renderer
from app.content.errors import ContentError, ContentWarning
from app.content.notes.markdown import parser

CONTENT = Path(__file__).resolve().parents[2] / "content"
MATH = {"math_inline": True, "math_inline_double": False, "math_block": False}

# (case, TeX as the file holds it, inline, expected `offset: message` lines)
CASES = [
    (
        "\\rfloor whose \\r became a line break",
        "(k \\bmod 4,\\ \\lfloor k/4\nfloor)",
        True,
        [
            "0: inline formula spans a line break (an eaten escape such as \\n or \\r?)",
            "1: formula text 'floor' looks like \\rfloor with its backslash eaten",
        ],
    ),
    (
        "\\frac whose \\f became a form feed",
        "x=\frac{1}{2}",
        True,
        [
            "0: formula holds control character U+000C (an eaten escape?)",
            "0: formula text 'rac' looks like \\frac with its backslash eaten",
        ],
    ),
    (
        "\\times whose \\t became a tab",
        "a\times b",
        True,
        [
            "0: formula holds control character U+0009 (an eaten escape?)",
            "0: formula text 'imes' looks like \\times with its backslash eaten",
        ],
    ),
    (
        "\\text whose escape vanished, at the start",
        "ext{ms}",
        True,
        ["0: formula text 'ext' looks like \\text with its backslash eaten"],
    ),
    (
        "\\rightarrow on the third line of a display formula",
        "\na\n\\to b\nightarrow c\n",
        False,
        ["3: formula text 'ightarrow' looks like \\rightarrow with its backslash eaten"],
    ),
    (
        "\\neq whose \\n became a line break in display math",
        "\na \neq b\n",
        False,
        ["2: formula text 'eq' looks like \\neq with its backslash eaten"],
    ),
    (
        "\\left with its backslash gone",
        "eft( x \\right)",
        True,
        [
            "0: formula text 'eft' looks like \\left with its backslash eaten",
        ],
    ),
    (
        "a display formula over several lines",
        "\n\\begin{aligned}\na&=b\\\\\nc&=d\n\\end{aligned}\n",
        False,
        [],
    ),
    ("words inside \\text are prose", "t_{\\text{eq}}+\\text{ floor eq left }", True, []),
    ("operator names and roman identifiers", "\\operatorname{ceil}(x)+\\mathrm{eq}", True, []),
    ("identifiers that end in a tail", "x_{eq}+\\ell_{\\mathrm{right}}+weight+\\beta", True, []),
    (
        "tabs that indent a display formula",
        "\n\t\\begin{aligned}\n\t\ta&=b\n\t\\end{aligned}\n",
        False,
        [],
    ),
    (
        "a tab left by \\tau",
        "a\tau + 1",
        True,
        ["0: formula holds control character U+0009 (an eaten escape?)"],
    ),
    ("the real commands", "\\frac{a}{b}\\times\\rightarrow\\lfloor x\\rfloor\\neq\\eta", True, []),
    ("a tail followed by more letters is a word", "equal + extent + racks", True, []),
    ("braced tails need their brace", "rac + ext", True, []),
    ("surrounding spaces of inline math", " x+y ", True, []),
]


@pytest.mark.parametrize(("case", "tex", "inline", "expected"), CASES, ids=[c[0] for c in CASES])
def test_formula_warnings(case: str, tex: str, inline: bool, expected: list[str]) -> None:
    found = formula_warnings(tex, inline=inline)
    assert [f"{w.offset}: {w.message}" for w in found] == expected


def test_every_tail_is_found_after_a_line_break() -> None:
    assert EATEN_TAILS
    for tail, command in EATEN_TAILS.items():
        tex = "\na\n" + tail + ("{x}" if tail in BRACED_TAILS else " x")
        found = formula_warnings(tex, inline=False)
        assert [w.offset for w in found] == [2], tail
        assert command in found[0].message, tail


def test_display_math_with_line_breaks_is_fine_but_inline_is_not() -> None:
    assert formula_warnings("\na+b\n", inline=False) == []
    [warning] = formula_warnings("a+\nb", inline=True)
    assert warning.offset == 0
    assert warning.message == (
        "inline formula spans a line break (an eaten escape such as \\n or \\r?)"
    )


def bundled_formulas() -> list[tuple[str, str, bool]]:
    """Every formula of the bundled content: (file, TeX, inline)."""
    md = parser()
    found: list[tuple[str, str, bool]] = []

    def walk(path: str, tokens: list[Token]) -> None:
        for token in tokens:
            if token.type in MATH:
                found.append((path, token.content, MATH[token.type]))
            walk(path, token.children or [])

    for path in sorted(CONTENT.glob("*/*.md")):
        walk(str(path), md.parse(path.read_text(encoding="utf-8")))
    return found


def test_no_bundled_formula_is_flagged() -> None:
    formulas = bundled_formulas()
    assert len(formulas) > 600
    assert any(inline for _, _, inline in formulas)
    assert any(not inline for _, _, inline in formulas)
    flagged = [
        (path, tex, warning.message)
        for path, tex, inline in formulas
        for warning in formula_warnings(tex, inline=inline)
    ]
    assert flagged == []


def test_renderer_warns_at_the_line_of_the_problem() -> None:
    errors: list[ContentError] = []
    text = "第一段\n\n一维下标 $\\lfloor k/4\nfloor)$ 之后\n\n$$\na\n\\\\ ightarrow b\n$$\n"
    Renderer().render(text, path="topics/t.md", line=30, errors=errors)
    assert all(isinstance(error, ContentWarning) for error in errors)
    assert [str(e) for e in errors] == [
        "topics/t.md:32: inline formula spans a line break (an eaten escape such as \\n or \\r?)",
        "topics/t.md:33: formula text 'floor' looks like \\rfloor with its backslash eaten",
        "topics/t.md:37: formula text 'ightarrow' looks like \\rightarrow with its backslash eaten",
    ]


def test_check_reports_an_eaten_escape_and_strict_fails(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    deck = "---\ntitle: T\n---\n\n### Q：取整？ {#floor}\n\n**回答。** $\\lfloor k/4\nfloor)$\n"
    (tmp_path / "decks" / "t.md").write_text(deck, encoding="utf-8")
    report = check_content(tmp_path)
    assert report.errors == []
    assert [f"{w.path}:{w.line}" for w in report.warnings] == ["decks/t.md:7", "decks/t.md:8"]
