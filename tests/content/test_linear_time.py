"""Hostile notes cost time in proportion to their size: `qbank check` of a 1 MB note of runs of
spaces, `$`, `*`, `<`, brackets, formulas or tags takes about ten times what 100 KB does.

Measured as CPU time (the least of a few runs), and judged by the ratio between two sizes ten
times apart, never against a wall clock: linear work gives ~10, a quadratic pattern ~100. The
suite compares 4 KB with 40 KB (a few seconds in all); the `megabyte` run (`pytest -m megabyte`,
which CI makes after the suite), 100 KB with 1 MB: about five minutes of CPU.
"""

from collections.abc import Callable
from pathlib import Path

import pytest

from app.content.bank.sync import check_content
from tests.support.cpu import least_cpu_seconds

# Linear is 10; n log n and the noise of a shared machine stay well below; quadratic is 100.
MAX_RATIO = 25
# Below this, a time measures the clock and the collector more than the work.
FLOOR_SECONDS = 0.02

CARD = "# Deck\n\n## What is a lock?\n\n"


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit.encode()))


# Each hostile note, by the run it is made of; `size` is its length in bytes, near enough.
NOTES: dict[str, Callable[[int], str]] = {
    # Headings: where recognisers read labels, numbers, ids and closing hashes.
    "heading of spaces": lambda n: f"# Deck\n\n## a{_repeat(' ', n)}b?\n\nA.\n",
    "heading of ideographic spaces": lambda n: f"# Deck\n\n## 问{_repeat('　', n)}题？\n\nA.\n",
    "heading of tabs and hashes": lambda n: f"# Deck\n\n## a{_repeat(chr(9) + ' #', n)}\n\nA.\n",
    "heading of id openings": lambda n: f"# Deck\n\n## a {_repeat('{#', n)}}}\n\nA.\n",
    "title of spaces": lambda n: f"# a{_repeat(' ', n)}b\n\n## Q?\n\nA.\n",
    "question prefix of spaces": lambda n: f"# Deck\n\nQ{_repeat(' ', n)}: x\n\nA: y\n",
    "inline card of spaces": lambda n: f"# Deck\n\na{_repeat(' ', n)}b :: c\n",
    "label of spaces": lambda n: f"# Deck\n\n## Q?\n\n**a{_repeat(' ', n)}\n",
    "many cards": lambda n: "# Deck\n\n" + _repeat("## What is it?\n\nA.\n\n", n),
    "numbered questions": lambda n: "# Deck\n\n" + _repeat("1. Why? \n", n),
    # Inline markup in an answer.
    "dollars": lambda n: CARD + _repeat("$", n) + "\n",
    "stars": lambda n: CARD + _repeat("*", n) + "\n",
    "nested emphasis": lambda n: CARD + _repeat("*a **b _c __d ", n) + "\n",
    "brackets": lambda n: CARD + _repeat("[", n // 2) + _repeat("]", n // 2) + "\n",
    "wikilink openings": lambda n: CARD + _repeat("[[a ", n) + "\n",
    "backticks": lambda n: CARD + _repeat("`a ``", n) + "\n",
    "CJK emphasis": lambda n: CARD + _repeat("**强调（注）**后，**强（", n) + "\n",
    "angle brackets": lambda n: CARD + _repeat("<", n) + "\n",
    "tag of spaces": lambda n: f"{CARD}A <b{_repeat(' ', n)}x\n",
    "tag attributes": lambda n: f"{CARD}A <img {_repeat('a=x ', n)}\n",
    "comment openings": lambda n: CARD + _repeat("<!--", n) + "\n",
    "details": lambda n: CARD + _repeat("<details>\n", n),
    "summary openings": lambda n: CARD + _repeat("<details><summary>", n) + "\n",
    "unclosed details tags": lambda n: CARD + "<details>\n" + _repeat("<details ", n) + "\n",
    # MkDocs admonitions: a run of answer folds, and folds nested ever deeper.
    "answer folds": lambda n: (
        "# Deck\n\n" + _repeat('## Q\n\n??? success "View Answer"\n    A.\n\n', n)
    ),
    "nested admonitions": lambda n: (
        CARD + "".join("    " * k + "!!! note\n" for k in range(max(1, int((n / 2) ** 0.5))))
    ),
    # Formulas.
    "inline math": lambda n: CARD + _repeat("$x$ ", n) + "\n",
    "display math": lambda n: CARD + _repeat("$$x$$\n", n),
    "math fences": lambda n: CARD + _repeat("$$\n", n),
    "bracket math openings": lambda n: CARD + _repeat("\\(", n) + "\n",
    "bracket math lines": lambda n: CARD + _repeat("\\[\n", n),
}


def _cpu_seconds(folder: Path, text: str, runs: int) -> float:
    (folder / "note.md").write_text(text, encoding="utf-8")
    return least_cpu_seconds(lambda: check_content(folder), runs)


def _assert_linear(folder: Path, name: str, small: int) -> None:
    make = NOTES[name]
    assert abs(len(make(small * 10).encode()) - small * 10) < small
    short = _cpu_seconds(folder, make(small), runs=3)
    long = _cpu_seconds(folder, make(small * 10), runs=2)
    ratio = long / max(short, FLOOR_SECONDS)
    assert ratio < MAX_RATIO, f"{name}: {short:.3f}s for {small} bytes, {long:.3f}s for ten times"


@pytest.mark.parametrize("name", NOTES)
def test_a_hostile_note_costs_time_in_proportion_to_its_size(tmp_path: Path, name: str) -> None:
    _assert_linear(tmp_path, name, 4_000)


@pytest.mark.slow
@pytest.mark.megabyte
@pytest.mark.parametrize("name", NOTES)
def test_a_hostile_megabyte_costs_ten_times_a_hostile_100_kb(tmp_path: Path, name: str) -> None:
    _assert_linear(tmp_path, name, 100_000)
