"""Rendering of emphasis next to CJK text, and the warnings for Markdown left literal."""

import re
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file
from pygments.token import STANDARD_TYPES

from app.content.compile import highlight
from app.content.compile.render import Renderer
from app.content.errors import ContentError, ContentWarning
from app.content.notes.cjk import is_cjk
from tests.support.render import RecordingRenderer, collapse_math

FIXTURES = Path(__file__).parents[1] / "fixtures"
EMPHASIS = read_fixture_file(FIXTURES / "cjk_emphasis.md")
LITERAL = read_fixture_file(FIXTURES / "literal_markup.md")


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), EMPHASIS, ids=[c[1] for c in EMPHASIS]
)
def test_cjk_emphasis_cases(line: int, title: str, text: str, expected: str) -> None:
    renderer = RecordingRenderer()
    errors: list[ContentError] = []
    rendered = renderer.render(text, path="decks/case.md", line=1, errors=errors)
    assert collapse_math(rendered.html, renderer).rstrip() == expected.rstrip()
    # A run left literal on purpose (the ASCII cases) is what the warning is for.
    assert bool(errors) == ("**" in expected)


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), LITERAL, ids=[c[1] for c in LITERAL]
)
def test_literal_markup_warnings(line: int, title: str, text: str, expected: str) -> None:
    errors: list[ContentError] = []
    Renderer().render(text, path="decks/case.md", line=1, errors=errors)
    assert all(isinstance(error, ContentWarning) for error in errors)
    assert [f"{e.line}: {e.message}" for e in errors] == expected.splitlines()


def test_literal_markup_warning_counts_lines_from_the_block_start() -> None:
    errors: list[ContentError] = []
    Renderer().render("第一段\n\n第二段\n还有 **没闭合", path="topics/t.md", line=40, errors=errors)
    assert [str(e) for e in errors] == ["topics/t.md:43: '**' is left literal in the rendered text"]


@pytest.mark.parametrize(
    ("char", "cjk"),
    [
        ("中", True),
        ("，", True),
        ("」", True),
        ("ｱ", True),
        ("한", True),
        ("a", False),
        ("🙂", False),
    ],
)
def test_what_counts_as_cjk(char: str, cjk: bool) -> None:
    assert is_cjk(char) is cjk


CODE = read_fixture_file(FIXTURES / "code_cases.md")


@pytest.mark.parametrize(("line", "title", "text", "expected"), CODE, ids=[c[1] for c in CODE])
def test_code_highlighting_cases(line: int, title: str, text: str, expected: str) -> None:
    errors: list[ContentError] = []
    rendered = Renderer().render(text, path="decks/case.md", line=1, errors=errors)
    assert errors == []
    assert rendered.html.rstrip() == expected.rstrip()
    # Search and the plain text see the code, not the markup around it.
    assert "hl-" not in rendered.text


def test_every_highlighting_class_has_a_light_and_dark_colour() -> None:
    css = (Path(__file__).parents[2] / "static" / "app.css").read_text()
    emitted = {f"hl-{STANDARD_TYPES[kind]}" for _, kind in highlight._PALETTE}
    assert emitted
    for name in emitted:
        assert re.search(rf"\.{name}\b[^{{]*\{{[^}}]*color: var\(--", css), name
    variables = set(re.findall(r"var\((--hl-\w+)\)", css))
    assert variables
    for variable in variables:
        assert css.count(f"{variable}:") == 2, f"{variable} needs a light and a dark value"


MATH_LINES = read_fixture_file(FIXTURES / "math_error_lines.md")


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), MATH_LINES, ids=[c[1] for c in MATH_LINES]
)
def test_math_problems_are_reported_at_their_line(
    line: int, title: str, text: str, expected: str
) -> None:
    errors: list[ContentError] = []
    Renderer().render(text, path="decks/case.md", line=1, errors=errors)
    found = [f"{e.line}: {e.message if isinstance(e, ContentWarning) else 'KaTeX'}" for e in errors]
    assert found == expected.splitlines()
