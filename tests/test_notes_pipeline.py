"""The one parse: the syntax every stage reads, and what it becomes."""

from app.content.compile.render import Renderer
from app.content.errors import ContentError


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
