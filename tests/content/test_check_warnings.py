"""`qbank check` on notes as people write them: each warning where it is due, none where not."""

from pathlib import Path

from app.content.bank.sync import check_content


def _warnings(tmp_path: Path, text: str) -> list[tuple[int, str, str]]:
    """(line, code, message) of each warning `qbank check` gives for one note holding `text`."""
    (tmp_path / "note.md").write_text(text, encoding="utf-8")
    report = check_content(tmp_path)
    assert report.errors == []
    return [(w.line, w.said.code, w.message) for w in report.warnings]


JSX_IN_A_LIST = """\
1. ### How is raw markup rendered?

    With the attribute below:

    ```jsx
    function Box() {
      return <div className="box" />;
    }
    ```

    or written inline as `<div>` or ``<details>``.

2. ### How is a box styled?

    With an object.
"""


def test_html_in_code_indented_in_a_list_is_not_a_fold_left_open(tmp_path: Path) -> None:
    assert _warnings(tmp_path, JSX_IN_A_LIST) == []
    quoted = "\n".join(f"> {line}" if line else ">" for line in JSX_IN_A_LIST.splitlines())
    assert _warnings(tmp_path, quoted) == []


def test_a_div_left_open_in_prose_is_still_said(tmp_path: Path) -> None:
    text = "## What is a residual?\n\n<div>\n\nThe input added back.\n\n## Why?\n\nA scale.\n"
    assert [code for _, code, _ in _warnings(tmp_path, text)] == ["html_unclosed"]


NUMBERED_BOLD = """\
## 1. 概率

**1.1** 一个袋子里有黑球和白球，问：最后一个球是黑球的概率？

**1.2** 两个容器交换三次之后，哪边的沙子多？

一样多。
"""


def test_a_bold_dotted_number_is_dropped_whole_from_the_question(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text(NUMBERED_BOLD, encoding="utf-8")
    report = check_content(tmp_path)
    [card] = report.files[0].cards
    assert card.question == "两个容器交换三次之后，哪边的沙子多？"
    [(line, _, message)] = _warnings(tmp_path, NUMBERED_BOLD)
    assert line == 3
    assert "'一个袋子里有黑球和白球，问：最后一个球是黑球的概率？'" in message


UNANSWERED = """\
## Sorting

### What is a stable sort?

### What is an in-place sort?

One that needs no more than constant extra memory.

**What is a comparison sort?**

**What is a counting sort?**

One that counts keys instead of comparing them.

## More sorts

- **What is a radix sort?**
- **What is a bucket sort?**
  One that spreads keys over buckets, then sorts each.
- **Merge sort**
- What is a heap sort?
"""


def test_each_unanswered_question_is_said_whatever_its_form(tmp_path: Path) -> None:
    said = {(line, code) for line, code, _ in _warnings(tmp_path, UNANSWERED)}
    # A heading, a bold paragraph and a bold list item that ask, each with nothing under it;
    # neither a bold term nor a plain item is a question left unanswered.
    assert said == {(3, "card_no_answer"), (9, "card_no_answer"), (17, "card_no_answer")}
    report = check_content(tmp_path)
    assert [card.question for card in report.files[0].cards] == [
        "What is an in-place sort?",
        "What is a counting sort?",
        "What is a bucket sort?",
    ]
