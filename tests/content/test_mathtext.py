"""Formulas as search text: what pylatexenc's tables say each macro reads as, walked quickly,
with the space the author put after a macro kept (`\\log n` reads `log n`, not `logn`)."""

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text

from app.content.compile.mathtext import readable_math

CONTENT = Path(__file__).resolve().parents[2] / "content"
_SPACE = re.compile(r"\s+")


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"I=\frac{\text{FLOPs}}{\text{Bytes}}", "I=FLOPs/Bytes"),
        (r"\min(\pi, \beta I)", "min(π, β I)"),
        (r"O(n \log n)", "O(n log n)"),  # TeX swallows the space after `\log`; a reader does not
        (r"a \cdot b", "a · b"),
        (r"\log_2 n + \alpha_i", "log_2 n + α_i"),
        (r"\frac12", "1/2"),  # arguments of one character, unbraced
        (r"\sqrt[3]{x}", "√(x)"),  # an optional argument the reading leaves out
        (r"\sum_{i=1}^{n} x_i", "∑_i=1^n x_i"),
        (r"\left(\frac{a}{b}\right)^2", "(a/b)^2"),
        (r"\begin{pmatrix}a&b\\c&d\end{pmatrix}", "[ a b; c d ]"),
        (r"\begin{aligned}a&=b\\c&=d\end{aligned}", "a =b c =d"),
        (r"\operatorname{softmax}(z)_i", "softmax(z)_i"),  # unknown macros keep their text
        (r"\hat{x} + \mathbb{R}^n", "x̂ + ℝ^n"),  # readings pylatexenc computes
        (r"\{x\} \% 100\,\mathrm{ms}", "{x} % 100 ms"),
        ("x % a comment\n+ y", "x + y"),
        (r"-1--+1", "-1–+1"),  # pylatexenc's specials
        (r"\pi* x", "π* x"),  # a star after a macro that has no starred form is text
        (r"\frac{a", "a/"),  # unclosed: read to the end, never an error
        ("\\", ""),
    ],
)
def test_reads_as(tex: str, text: str) -> None:
    assert readable_math(tex) == text


def test_the_bundled_formulas_read_as_pylatexenc_reads_them() -> None:
    """Every formula of the bundled notes gives pylatexenc's own text, but for spaces.

    pylatexenc drops the space after a macro's name as TeX does; the reading keeps it."""
    library = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
    formulas: set[str] = set()
    for note in CONTENT.rglob("*.md"):
        text = note.read_text(encoding="utf-8")
        formulas |= set(re.findall(r"\$\$(.+?)\$\$", text, re.S))
        formulas |= set(re.findall(r"(?<!\$)\$([^$\n]+?)\$(?!\$)", text))
    assert len(formulas) > 100
    differ = [
        tex
        for tex in sorted(formulas)
        if _SPACE.sub("", readable_math(tex)) != _SPACE.sub("", library.latex_to_text(tex))
    ]
    assert differ == []


@given(st.text(alphabet="\\{}[]%&~^_ abx\n" + "αfracsqrtbegin", max_size=60))
def test_any_text_reads_without_error(tex: str) -> None:
    text = readable_math(tex)
    assert text == text.strip()
    assert "  " not in text
