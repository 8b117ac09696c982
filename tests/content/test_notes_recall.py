"""The recall benchmark scores a folder as its docstring says, through the real `qbank check`."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._recall_scores import Figures, bar_verdict, kept, score_folder
from bench.notes_recall import parse_report, run_check

NOTE = """# 网络

## 传输层

### TCP 为什么要三次握手？

双方都要确认对方收到了自己的初始序号。

### What does a TIME_WAIT socket wait for?

Old segments of the connection to expire, and a lost final ACK to be resent.

## 3.1 拥塞控制

### 3.1.1 慢启动

窗口从一个报文段开始指数增长。

### 3.1.2 拥塞避免

过了阈值以后每个往返只加一个报文段。

## What is head-of-line blocking?
"""

LABELS = {
    "files": {
        "net.md": {
            "questions": [
                {"line": 5, "text": "TCP 为什么要三次握手？"},
                {"line": 9, "text": "What does a TIME_WAIT socket wait for?"},
                {"line": 13, "text": "3.1 拥塞控制", "prompt": True},
                {"line": 23, "text": "What is head-of-line blocking?", "answered": False},
            ],
            "sections": ["网络", "传输层"],
            "inside_answer": ["3.1.1 慢启动", "3.1.2 拥塞避免"],
        }
    }
}


def test_a_folder_is_scored_against_its_labels(tmp_path: Path) -> None:
    (tmp_path / "net.md").write_text(NOTE, encoding="utf-8")
    report, error = run_check(tmp_path, subprocess_mode=False)
    assert report is not None, error
    cards = [card for entry in report["files"] for card in entry["cards"]]

    folder = score_folder("net", json.loads(json.dumps(LABELS)), report, error)
    row = Figures.of(folder)

    assert (row.notes, row.labelled, row.answered, row.asking) == (1, 4, 3, 3)
    assert row.cards == len(cards)
    assert row.non_questions == 4
    # The two questions under headings that ask are found whichever way the topic goes.
    assert row.found_answered >= 2
    # Every card is either a labelled question or a labelled heading taken by mistake, or
    # something else; the three add up.
    [file] = folder.files
    assert row.matched + row.headings_as_cards + len(file.extra) == row.cards
    lines = bar_verdict([row], row)
    assert len(lines) == 4
    assert lines[0].endswith("(bar 95%)")


def test_a_command_that_gives_no_report_scores_nothing_and_says_why() -> None:
    report, error = parse_report("Traceback …", "ValueError: boom", 1)
    row = Figures.of(score_folder("broken", LABELS, report, error))
    assert report is None
    assert "exit status 1" in error and "boom" in error
    assert (row.labelled, row.found, row.cards) == (4, 0, 0)


def test_kept_labels_hold_no_words_and_score_as_the_labels_do(tmp_path: Path) -> None:
    (tmp_path / "net.md").write_text(NOTE, encoding="utf-8")
    report, error = run_check(tmp_path, subprocess_mode=False)
    keyed = kept(LABELS)

    text = json.dumps(keyed, ensure_ascii=False)
    for word in ("三次握手", "TIME_WAIT", "拥塞", "传输层"):
        assert word not in text
    assert Figures.of(score_folder("net", keyed, report, error)) == Figures.of(
        score_folder("net", LABELS, report, error)
    )
