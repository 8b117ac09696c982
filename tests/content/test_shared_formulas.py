"""A formula that notes on several render workers share is rendered by one and given to the rest."""

import pytest

from app.content.compile import build, render
from app.content.compile.render import Renderer


def test_a_given_formula_is_not_rendered_again_and_counts_once_met(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given = build._render_formulas([("x^2", False), ("x^2", True)])
    assert set(given) == {("x^2", False), ("x^2", True)}
    renderer = Renderer()
    renderer.give(given)
    assert renderer.formulas_rendered == 0, "counted where a note renders it, not where given"
    monkeypatch.setattr(render, "_katex", lambda *_: pytest.fail("rendered again"))
    assert renderer.formula("x^2", True) == given["x^2", True]
    assert renderer.formula("x^2", True) == given["x^2", True]
    assert (renderer.formulas_rendered, renderer.formula_keys()) == (1, [("x^2", True)])


def test_a_formula_katex_refuses_is_left_to_the_worker_that_meets_it() -> None:
    assert build._render_formulas([("\\frac{", False), ("x" * 5000, False)]) == {}
