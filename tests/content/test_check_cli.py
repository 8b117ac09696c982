"""`qbank check` and `qbank import`: one clean line per problem, exit codes, no tracebacks."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.config import Settings
from app.content.bank.sync import check_content
from app.content.notes.parsed import derived_card_id
from tests.support.check_cli import (
    DECK,
    GOOD,
    PROBLEM,
    TOPIC,
    assert_clean_exit,
    problems,
    run,
)
from tests.support.content_files import WriteContent

# --- check ---------------------------------------------------------------------------------


def test_check_clean_content(write_content: WriteContent) -> None:
    root = write_content(GOOD)
    result = run("check", str(root))
    assert_clean_exit(result, 0)
    assert result.stderr == ""
    assert (
        result.stdout.splitlines()[-1]
        == "1 decks, 2 cards, 2 topics, 3 formulas: 0 errors, 0 warnings"
    )
    assert_clean_exit(run("check", "--strict", str(root)), 0)


def test_check_reports_bad_latex_with_file_line_and_formula(write_content: WriteContent) -> None:
    root = write_content({**GOOD, "decks/gpu.md": DECK.replace("F=2mnk", "F=\\frac{2mnk")})
    result = run("check", "--strict", str(root))
    assert_clean_exit(result, 1)
    [line] = problems(result.stderr)
    match = PROBLEM.match(line)
    assert match is not None
    assert (match["path"], match["line"]) == ("decks/gpu.md", "9")
    assert match["message"].startswith("KaTeX: ")
    assert match["message"].endswith("in $F=\\frac{2mnk$")
    assert result.stdout.splitlines()[-1].endswith("1 errors, 0 warnings")


def test_check_lists_errors_from_every_file_sorted(write_content: WriteContent) -> None:
    root = write_content(
        {
            **GOOD,
            "decks/b.md": "---\ntitle: B\n---\n\n## 1. 没有答案\n\n## 2. 坏 $\\oops$\n\nx\n",
            "decks/a.md": "---\ntitle: A\n---\n\n### Q: dup {#gemm-core}\n\nanswer\n",
            "topics/bad.md": "---\ntitle: Bad\n---\n\n$$\n\\frac{\n$$\n\n[[GEMM]]\n",
        }
    )
    result = run("check", "--strict", str(root))
    assert_clean_exit(result, 1)
    errors = [line for line in problems(result.stderr) if not line.endswith("[warning]")]
    # "## 1. 没有答案" holds nothing: a heading, not a card without an answer.
    assert errors[0].startswith("decks/b.md:7: KaTeX: Undefined control sequence: \\oops")
    # The later occurrence (by path) is the one reported; the message names the other.
    assert errors[1] == (
        "decks/gpu.md:7: duplicate card id 'gemm-core' (also at decks/a.md:5); "
        "give one of them an explicit {#id} at the end of its question line or heading"
    )
    assert errors[2].startswith("topics/bad.md:5: KaTeX: ")
    assert len(errors) == 3


def test_every_formula_error_points_at_its_line(write_content: WriteContent) -> None:
    # Each `\\bad{n}` must be reported on the line it sits on, wherever it is in a file;
    # a display block is reported at its opening `$$`.
    deck = """\
---
title: Lines
---


Intro after blank lines $\\bad{1}$.

## Section

### Q：heading $\\bad{2}$

Lead text.

**Answer:**
After a label alone on its line $\\bad{3}$.

**Follow-ups:**

- item
- a list item $\\bad{4}$

**Pitfalls:** p

**Answer:** back to the answer
and a second line $\\bad{5}$
with `a code
span` then $\\bad{6}$

| a | b |
|---|---|
| 1 | $\\bad{7}$ |

$$
\\begin{aligned}
x &= \\bad{8}
\\end{aligned}
$$
"""
    topic = "---\ntitle: T\n---\n\n\nBody\ncontinued $\\bad{9}$\n\n\n\n"
    root = write_content({"decks/lines.md": deck, "topics/t.md": topic})

    def line_of(text: str, needle: str) -> int:
        return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)

    expected = {str(n): ("decks/lines.md", line_of(deck, f"\\bad{{{n}}}")) for n in range(1, 8)}
    expected["8"] = ("decks/lines.md", line_of(deck, "\\begin{aligned}") - 1)
    expected["9"] = ("topics/t.md", line_of(topic, "\\bad{9}"))
    reported = {}
    for error in check_content(root, strict=True).errors:
        marker = re.search(r"\\bad\{(\d)\}", error.message.rsplit(" in $", 1)[1])
        assert marker is not None, error
        reported[marker[1]] = (error.path, error.line)
    assert reported == expected


def test_check_duplicate_derived_ids_name_both_places(write_content: WriteContent) -> None:
    other = "---\ntitle: O\n---\n\n\n## 1. 什么是 roofline\n\nanswer\n"
    root = write_content({**GOOD, "decks/other.md": other})
    # Same question up to its number, style and trailing question mark: the same derived id.
    card_id = derived_card_id("什么是 roofline？")
    assert [str(e) for e in check_content(root, strict=True).errors] == [
        f"decks/other.md:6: duplicate card id '{card_id}' (also at decks/gpu.md:13); "
        "give one of them an explicit {#id} at the end of its question line or heading"
    ]


def test_check_unsafe_link_is_an_error(write_content: WriteContent) -> None:
    deck = DECK.replace("GEMM 与融合\n", "[GEMM](javascript:alert(document.cookie))\n")
    result = run("check", "--strict", str(write_content({**GOOD, "decks/gpu.md": deck})))
    assert_clean_exit(result, 1)
    assert problems(result.stderr)[0] == (
        "decks/gpu.md:11: unsafe or unsupported link target 'javascript:alert(document.cookie)'"
    )


def test_unresolved_link_is_a_warning_and_strict_makes_it_fail(
    write_content: WriteContent,
) -> None:
    deck = DECK.replace("GEMM 与融合\n", "GEMM 与融合 / 不存在的主题\n")
    root = write_content({**GOOD, "decks/gpu.md": deck})
    result = run("check", str(root))
    assert_clean_exit(result, 0)
    assert problems(result.stderr) == [
        "decks/gpu.md:11: continue-reading '不存在的主题' matches no topic [warning]"
    ]
    assert result.stdout.strip().endswith("0 errors, 1 warnings")

    strict = run("check", "--strict", str(root))
    assert_clean_exit(strict, 1)
    assert problems(strict.stderr) == problems(result.stderr)


def test_markdown_left_literal_is_a_warning_at_check_and_import(
    settings: Settings, write_content: WriteContent
) -> None:
    topic = TOPIC.replace("正文 $C=AB$", "正文 $C=AB$\n**没有闭合的粗体，和 $x 没闭合")
    root = write_content({**GOOD, "topics/gemm.md": topic})
    result = run("check", str(root))
    assert_clean_exit(result, 0)
    assert problems(result.stderr) == [
        "topics/gemm.md:7: '**' is left literal in the rendered text [warning]",
        "topics/gemm.md:7: '$' is left literal in the rendered text [warning]",
    ]
    assert result.stdout.strip().endswith("0 errors, 2 warnings")
    assert_clean_exit(run("check", "--strict", str(root)), 1)

    imported = run("import", str(root))
    assert_clean_exit(imported, 0)
    assert problems(imported.stderr) == problems(result.stderr)


def test_topic_nothing_links_to_is_a_warning(write_content: WriteContent) -> None:
    root = write_content({**GOOD, "topics/orphan.md": "---\ntitle: 孤儿\n---\n\n无人链接。\n"})
    report = check_content(root, strict=True)
    assert report.errors == []
    assert [str(w) for w in report.warnings] == [
        "topics/orphan.md:1: topic '孤儿' is not linked from any card or topic"
    ]


def test_topic_linking_only_itself_is_still_unlinked(write_content: WriteContent) -> None:
    selfish = "---\ntitle: Roofline\n---\n\n见 [[Roofline]]。\n"
    topic = TOPIC.replace("另见 [[Roofline]]", "")
    root = write_content({**GOOD, "topics/gemm.md": topic, "topics/roofline.md": selfish})
    assert [str(w) for w in check_content(root, strict=True).warnings] == [
        "topics/roofline.md:1: topic 'Roofline' is not linked from any card or topic"
    ]


def test_unresolved_wikilink_in_topic_is_a_warning(write_content: WriteContent) -> None:
    topic = TOPIC.replace("[[Roofline]]", "[[Roofline]] 和 [[Nowhere]]")
    report = check_content(write_content({**GOOD, "topics/gemm.md": topic}))
    assert [str(w) for w in report.warnings] == ["topics/gemm.md:6: [[Nowhere]] matches no topic"]


def test_check_missing_directory(tmp_path: Path) -> None:
    result = run("check", "--strict", str(tmp_path / "nope"))
    assert_clean_exit(result, 1)
    assert problems(result.stderr) == [f"{tmp_path / 'nope'}:0: content directory does not exist"]


def test_check_invalid_utf8_reports_its_line(
    write_content: WriteContent, content_dir: Path
) -> None:
    write_content(GOOD)
    (content_dir / "decks" / "latin1.md").write_bytes(b"---\ntitle: x\n---\ncaf\xe9\n")
    result = run("check", "--strict", str(content_dir))
    assert_clean_exit(result, 1)
    assert problems(result.stderr) == [
        "decks/latin1.md:4: file is not valid UTF-8 (byte 0xE9), nor GB18030; not read: "
        "save it as UTF-8"
    ]


def test_check_entry_point_in_a_real_process(write_content: WriteContent) -> None:
    root = write_content({**GOOD, "decks/gpu.md": DECK.replace("F=2mnk", "F=\\frac{")})
    qbank = Path(sys.executable).with_name("qbank")
    if not qbank.exists():
        pytest.skip(f"the qbank console script is not installed next to {sys.executable}")
    proc = subprocess.run(
        [str(qbank), "check", "--strict", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    [line] = problems(proc.stderr)
    assert line.startswith("decks/gpu.md:9: KaTeX: ")


# --- import --------------------------------------------------------------------------------


def test_import_then_noop_import(settings: Settings, write_content: WriteContent) -> None:
    root = write_content(GOOD)
    first = run("import", str(root))
    assert_clean_exit(first, 0)
    assert first.stderr == ""
    assert first.stdout.strip() == (
        "1 decks, 2 topics; cards: 2 added, 0 updated, 0 unchanged, 0 retired, 0 resumed; "
        "3 files read, 0 unchanged files skipped; 3 formulas rendered; 0 warnings"
    )
    again = run("import", str(root))
    assert_clean_exit(again, 0)
    assert "cards: 0 added, 0 updated, 2 unchanged" in again.stdout
    assert "0 files read, 3 unchanged files skipped; 0 formulas rendered" in again.stdout


def test_import_uses_the_configured_content_dir(
    settings: Settings, write_content: WriteContent
) -> None:
    write_content(GOOD)
    assert settings.content_dir == write_content({})
    result = run("import")
    assert_clean_exit(result, 0)
    assert "2 added" in result.stdout


def test_failed_import_prints_problems_and_exits_1(
    settings: Settings, write_content: WriteContent
) -> None:
    root = write_content(GOOD)
    assert_clean_exit(run("import", str(root)), 0)
    write_content(
        {
            "decks/gpu.md": DECK.replace("F=2mnk", "F=\\frac{2mnk").replace("计算量", "新的"),
            "decks/more.md": "---\ntitle: M\n---\n\n## Q: no answer\n",
        }
    )
    result = run("import", "--strict", str(root))
    assert_clean_exit(result, 1)
    assert result.stdout == ""
    lines = problems(result.stderr)
    assert [line.split(": ", 1)[0] for line in lines] == ["decks/gpu.md:9", "decks/more.md:5"]
    assert result.stderr.splitlines()[-1] == (
        "error: import failed with 2 error(s); the bank is unchanged"
    )
    # Nothing was written: the next import after a fix still sees the change to gpu.md.
    write_content({"decks/gpu.md": DECK.replace("计算量", "新的"), "decks/more.md": None})
    fixed = run("import", str(root))
    assert_clean_exit(fixed, 0)
    assert "1 updated, 1 unchanged" in fixed.stdout


def test_import_warnings_are_printed_but_do_not_fail(
    settings: Settings, write_content: WriteContent
) -> None:
    root = write_content({"decks/gpu.md": DECK})
    result = run("import", str(root))
    assert_clean_exit(result, 0)
    assert problems(result.stderr) == [
        "decks/gpu.md:7: continue-reading 'GEMM 与融合' matches no topic [warning]"
    ]
    assert result.stdout.strip().endswith("1 warnings")
