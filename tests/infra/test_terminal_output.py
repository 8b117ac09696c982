"""No control character from a file name or a note reaches the terminal or the log raw, and one
problem is always one line (`qbank check`, `qbank import`, the server's log)."""

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from app.cli import main
from app.infra.logs import JsonFormatter, TextFormatter
from app.infra.terminal import printable

# What must never be printed raw: C0 (but the line feeds of a multi-line text), DEL, C1, bidi.
RAW = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)), "\u061c", "\u200e", "\u200f"}
RAW |= {"\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
# Names a hostile folder may hold: clear and colour the screen, forge a line, ring, reorder.
HOSTILE_NAMES = {
    "esc": "\x1b[2J\x1b[31mred.md",
    "cr": "fake\r0 warnings.md",
    "newline": "two\n0 errors.md",
    "bell": "bell\x07.md",
    "del": "del\x7f.md",
    "rlo": "evil\u202edm.exe.md",
    "csi": "c1\x9b2J.md",
}


def test_each_unsafe_character_is_shown_as_its_escape() -> None:
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert (
        printable("x\ry\nz\x07\x7f\x9b\u202e\u2066")
        == "x\\x0dy\\x0az\\x07\\u007f\\u009b\\u202e\\u2066"
    )
    assert printable("第一\tline\n", lines=True) == "第一\\x09line\n"
    assert printable("plain text, 中文 and ｜ stay") == "plain text, 中文 and ｜ stay"


@given(st.text())
def test_printable_text_is_one_line_without_controls(text: str) -> None:
    shown = printable(text)
    assert not RAW & set(shown)
    assert len(shown.splitlines()) <= 1


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_escaped_json_stays_json_meaning_the_same(value: object) -> None:
    shown = printable(json.dumps(value, ensure_ascii=False, indent=1), lines=True)
    assert not (RAW - {"\n"}) & set(shown)
    assert json.loads(shown) == value


def _hostile_folder(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in HOSTILE_NAMES.values():
        # A card whose question holds an escape, and a formula left unclosed: a warning naming
        # the file, and a card line naming the question.
        (root / name).write_text(
            "# Deck\x1b]0;title\x07\n\n## What is \x1b[31mred\u202e?\n\nIt is $x.\n",
            encoding="utf-8",
        )
    return root


def _assert_safe(output: str, names: int) -> None:
    assert not (RAW - {"\n"}) & set(output)
    lines = output.splitlines()
    for key, name in HOSTILE_NAMES.items():
        shown = printable(name)
        # Every line naming the file holds the whole name: nothing it holds starts a new line.
        naming = [line for line in lines if shown in line]
        assert len(naming) >= names, (key, output)
    assert "\\x1b[2J\\x1b[31mred.md" in output and "evil\\u202edm.exe.md" in output
    assert not any(line.startswith(("0 warnings", "0 errors", "dm.exe")) for line in lines)


def test_check_escapes_file_names_and_note_text(tmp_path: Path) -> None:
    folder = _hostile_folder(tmp_path / "notes")
    result = CliRunner().invoke(main, ["check", str(folder)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    # Each file: its deck line, its card line, and its warning.
    _assert_safe(result.output, names=3)
    assert "What is \\x1b[31mred\\u202e?" in result.output
    as_json = CliRunner().invoke(main, ["check", "--json", str(folder)])
    assert not (RAW - {"\n"}) & set(as_json.output)
    found = json.loads(as_json.output)
    assert {Path(f["path"]).name for f in found["files"]} == set(HOSTILE_NAMES.values())


@pytest.mark.storage
def test_import_escapes_file_names(settings) -> None:
    _hostile_folder(settings.content_dir)
    result = CliRunner().invoke(main, ["import"])
    assert result.exit_code == 0, result.output
    _assert_safe(result.output, names=1)
    last = result.output.splitlines()[-1]
    assert last.startswith(f"{len(HOSTILE_NAMES)} decks,") and last.endswith(" warnings")


@pytest.mark.parametrize(
    "formatter", [TextFormatter("%(levelname)s: %(message)s"), JsonFormatter()]
)
def test_the_log_escapes_messages_and_keeps_a_traceback_s_lines(formatter) -> None:
    try:
        raise ValueError("bad \x1b[2J name")
    except ValueError:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "qbank", logging.WARNING, __file__, 1, "%s", ("two\nlines\x1b[31m\u202e.md",), exc_info
    )
    line = formatter.format(record)
    assert not (RAW - {"\n"}) & set(line)
    if isinstance(formatter, JsonFormatter):
        entry = json.loads(line)
        assert entry["message"] == "two\nlines\x1b[31m\u202e.md"  # escaped, the same text
        assert "\n" not in line
    else:
        first, *rest = line.split("\n")
        assert first == "WARNING: two\\x0alines\\x1b[31m\\u202e.md"
        assert rest[0].startswith("Traceback") and "bad \\x1b[2J name" in rest[-1]


def test_check_json_stdout_is_only_the_json_when_katex_warns(tmp_path: Path) -> None:
    """KaTeX prints its font warnings to the process's stdout from native code, past
    `sys.stdout`: piped into a program, `qbank check --json` must still print only JSON."""
    for n in range(12):  # enough notes for the compile to use worker processes as well
        (tmp_path / f"n{n}.md").write_text(
            f"# 笔记 {n}\n\n## 什么是全角波浪线？\n\n写作 $a^{{￣}}$。\n", encoding="utf-8"
        )
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "n.md").write_text((tmp_path / "n0.md").read_text(encoding="utf-8"))
    for folder, notes in ((tmp_path / "one", 1), (tmp_path, 13)):
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                "from app.cli import main; main()",
                "check",
                str(folder),
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        found = json.loads(run.stdout)
        assert len(found["files"]) == notes
