"""Hostile content trees: what leaves the root, loops, directories, FIFOs and huge files.

Each is refused with one `path:line: message` line from `qbank check` and `qbank import`, and
nothing is imported.
"""

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import func, select

from app.content.bank.sync import import_content
from app.content.errors import ContentErrors
from app.content.notes.source import MAX_FILE_BYTES
from app.infra.models import Card
from tests.support.check_cli import GOOD, assert_clean_exit, problems, run
from tests.support.content_files import WriteContent

pytestmark = pytest.mark.storage

SECRET_DECK = "---\ntitle: Private\n---\n\n### Q: secret? {#secret}\n\n**Answer.** private.\n"


def _linked_file_outside(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "private-notes.md").write_text(SECRET_DECK, encoding="utf-8")
    (root / "decks" / "linked.md").symlink_to(elsewhere / "private-notes.md")


def _linked_folder_outside(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other-decks"
    elsewhere.mkdir()
    (elsewhere / "private.md").write_text(SECRET_DECK, encoding="utf-8")
    (root / "topics").rename(tmp_path / "topics-kept")
    (root / "topics").symlink_to(elsewhere)


def _loop(root: Path, tmp_path: Path) -> None:
    (root / "decks" / "loop.md").symlink_to(root / "decks" / "loop.md")


def _dangling(root: Path, tmp_path: Path) -> None:
    (root / "decks" / "gone.md").symlink_to(tmp_path / "nothing-here.md")


def _fifo(root: Path, tmp_path: Path) -> None:
    os.mkfifo(root / "decks" / "x.md")


def _huge(root: Path, tmp_path: Path) -> None:
    with (root / "decks" / "x.md").open("wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)


CASES = [
    ("file symlinked from outside", _linked_file_outside, "decks/linked.md:0: symlink to "),
    ("folder symlinked from outside", _linked_folder_outside, "topics:0: symlink to "),
    ("symlink loop", _loop, "decks/loop.md:0: symlink loop; not followed"),
    ("dangling symlink", _dangling, "decks/gone.md:0: symlink to nothing; not followed"),
    ("FIFO named x.md", _fifo, "decks/x.md:0: not a regular file (a FIFO, socket or device)"),
    ("huge file", _huge, "decks/x.md:0: larger than 4 MB; not read"),
]


@pytest.mark.parametrize(("make", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check_refuses_with_one_line(
    write_content: WriteContent, tmp_path: Path, make: Callable[..., None], expected: str
) -> None:
    root = write_content(GOOD)
    make(root, tmp_path)
    result = run("check", "--strict", str(root))
    assert_clean_exit(result, 1)
    lines = problems(result.stderr)
    assert any(line.startswith(expected) for line in lines), lines
    assert "secret" not in result.output


@pytest.mark.parametrize(("make", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_import_refuses_and_imports_nothing(
    database,
    write_content: WriteContent,
    tmp_path: Path,
    engine: Engine,
    make: Callable[..., None],
    expected: str,
) -> None:
    root = write_content(GOOD)
    make(root, tmp_path)
    with pytest.raises(ContentErrors) as raised:
        import_content(root, database, strict=True)
    assert any(str(error).startswith(expected) for error in raised.value.errors)
    with database.session() as session:
        assert session.exec(select(func.count()).select_from(Card)).one() == 0


def test_symlinks_inside_the_tree_are_followed(write_content: WriteContent) -> None:
    root = write_content(GOOD)
    (root / "shared").mkdir()
    (root / "decks" / "gpu.md").rename(root / "shared" / "gpu.md")
    (root / "decks" / "gpu.md").symlink_to(root / "shared" / "gpu.md")
    assert_clean_exit(run("check", str(root)), 0)


def _deck_with(formula: str) -> str:
    return f"---\ntitle: Math\n---\n\n### Q: big? {{#big}}\n\n**Answer.** ${formula}$\n"


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("x+" * 20_000 + "x", "KaTeX: formula longer than 4000 characters in $x+x+"),
        (r"\def\a{\a\a}\a", "KaTeX: Too many expansions: infinite loop or need to increase"),
    ],
    ids=["40,000 characters", "endless macro"],
)
def test_formulas_past_the_limits_are_errors_at_their_line(
    write_content: WriteContent, formula: str, message: str
) -> None:
    root = write_content({**GOOD, "decks/math.md": _deck_with(formula)})
    result = run("check", "--strict", str(root))
    assert_clean_exit(result, 1)
    [line] = [line for line in problems(result.stderr) if line.startswith("decks/math.md")]
    assert line.startswith(f"decks/math.md:7: {message}")


def test_a_huge_rule_is_drawn_at_most_50em(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({**GOOD, "decks/math.md": _deck_with(r"\rule{100000em}{100000em}")})
    import_content(root, database)
    with database.session() as session:
        answer = session.exec(select(Card.answer_html).where(Card.id == "big")).one()
    assert 'width="50em"' in answer
    assert "100000em" not in answer.replace(r"\rule{100000em}{100000em}", "")
