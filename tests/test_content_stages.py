"""The content pipeline's stages import downward only, and Markdown is configured once.

notes/ (reading notes) → compile/ (every rendered form) → bank/ (writing the bank): a stage
never imports a later one, so notes can be parsed and checked without the renderer or the
database, and compile without the database.
"""

import ast
import re
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"
CONTENT = APP / "content"
# Each stage and the stages it must not import.
LATER = {"notes": ("compile", "bank"), "compile": ("bank",)}


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports, at the top or inside a function, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{path}:{node.lineno}: relative import; name the stage it comes from")
    return found


@pytest.mark.parametrize("stage", sorted(LATER))
def test_a_stage_never_imports_a_later_one(stage: str) -> None:
    modules = sorted((CONTENT / stage).rglob("*.py"))
    assert modules
    wrong = [
        f"{path.relative_to(APP.parent)}:{line} imports {module}"
        for path in modules
        for line, module in _imports(path)
        for later in LATER[stage]
        if module == f"app.content.{later}" or module.startswith(f"app.content.{later}.")
    ]
    assert wrong == []


def test_the_stage_test_sees_a_wrong_import(tmp_path: Path) -> None:
    note = tmp_path / "wrong.py"
    note.write_text("def f():\n    from app.content.bank.store import x\n", encoding="utf-8")
    assert _imports(note) == [(2, "app.content.bank.store")]


def test_one_markdown_configuration_in_the_app() -> None:
    made = [
        f"{path.relative_to(APP.parent)}:{number}"
        for path in sorted(APP.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bMarkdownIt\(", line)
    ]
    assert made == ["app/content/notes/markdown.py:" + made[0].rsplit(":", 1)[-1]], made
