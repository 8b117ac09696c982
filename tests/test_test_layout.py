"""The tests mirror the app: one directory per app package, shared helpers in tests/support/."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
APP = TESTS.parent / "app"

# Directories that are no app package, each a kind of test or what the tests share.
CROSS_CUTTING = {
    "browser": "pages driven in a real Chromium",
    "js": "the static/ client's modules under Node's test runner",
    "team": "team mode end to end: members, sign-in, privacy",
    "support": "helpers and fixtures the test modules import",
    "fixtures": "notes, cases and seeds read by the tests",
}
# Flat files are the repository-wide checks (packaging, import graph, layout) and conftest.py.
MAX_FLAT = 10


def _shared_by_import(module: str) -> bool:
    """A test module, or a conftest.py, which pytest alone loads: which one a bare
    `from conftest import …` finds depends on which directories the run was given."""
    last = module.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imports_of_tests() -> list[tuple[str, str]]:
    """(importing file, imported module) for each import of a test module or a conftest."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if _shared_by_import(node.module):
                    found.append((path.name, node.module))
            elif isinstance(node, ast.Import):
                found += [(path.name, a.name) for a in node.names if _shared_by_import(a.name)]
    return found


def app_parts() -> set[str]:
    """The app's packages and its top-level modules (cli, serve, …), by name."""
    return {p.name for p in APP.iterdir() if (p / "__init__.py").exists()} | {
        p.stem for p in APP.glob("*.py") if p.stem != "__init__"
    }


def test_no_test_module_imports_another() -> None:
    assert imports_of_tests() == []


def test_at_most_ten_files_are_left_flat() -> None:
    flat = sorted(p.name for p in TESTS.glob("*.py"))
    assert len(flat) <= MAX_FLAT, flat


def test_every_test_directory_mirrors_an_app_package_or_is_a_named_kind() -> None:
    directories = {
        p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    }
    unknown = directories - app_parts() - CROSS_CUTTING.keys()
    assert not unknown, f"test directories that mirror no app package: {sorted(unknown)}"


def test_test_modules_live_in_test_directories_not_in_support() -> None:
    assert not list((TESTS / "support").rglob("test_*.py"))
    assert not list((TESTS / "fixtures").rglob("test_*.py"))
