"""Rendering of emphasis next to CJK text, and the warnings for Markdown left literal."""

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from app.content.cjk import is_cjk
from app.content.errors import ContentError, ContentWarning
from app.content.render import Renderer
from tests.test_render import RecordingRenderer, collapse_math

FIXTURES = Path(__file__).parent / "fixtures"
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
