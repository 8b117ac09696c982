"""Content directories the tests write: files under a root, and the drill deck's size."""

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

# `write_content` (tests/conftest.py): writes files into the test's content directory.
WriteContent = Callable[[Mapping[str, str | None]], Path]


def write_files(root: Path, files: Mapping[str, str | None]) -> Path:
    """Write (dedented) `files` under `root`; a value of None deletes that file."""
    for rel, text in files.items():
        target = root / rel
        if text is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


# The cards of the drill deck (`drill_dir` in tests/conftest.py), q01 … q24.
DRILL_CARDS = 24
