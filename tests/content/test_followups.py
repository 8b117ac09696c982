"""Follow-up questions in a card's follow-ups block: parsing, ids and `qbank check` errors."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it.utils import read_fixture_file

from app.cli import main
from app.content.notes.parse import parse_deck
from app.content.notes.parsed import ParsedCard
from tests.support.check_cli import assert_clean_exit, problems
from tests.support.content_files import WriteContent

FIXTURES = Path(__file__).parents[1] / "fixtures"
DOCS = Path(__file__).parents[2] / "docs" / "content-format.md"
CASES = read_fixture_file(FIXTURES / "followup_cases.md")

# The fixture's input is the card body after the answer; it starts on this line of the file.
HEADER = "---\ntitle: T\n---\n\n### Q：问题？ {#c}\n\n**面试回答。** 答。\n\n"
OFFSET = HEADER.count("\n")


def dump(text: str) -> str:
    """The questions, prose and errors of a card whose body after the answer is `text`."""
    deck, errors = parse_deck("decks/t.md", HEADER + text)
    assert deck is not None
    [card] = deck.cards
    out = []
    for q in card.questions:
        out += [f"[{q.id}] @{q.line - OFFSET} {q.question}", f"answer @{q.answer_line - OFFSET}"]
        out.append(q.answer)
    if card.followups.text:
        # Questions leave blank lines behind so the prose keeps its file lines; one is enough here.
        prose = re.sub(r"\n{3,}", "\n\n", card.followups.text)
        out += [f"prose @{card.followups.line - OFFSET}", prose]
    out += [f"error @{e.line - OFFSET}: {e.message}" for e in errors]
    return "\n".join(out)


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), CASES, ids=[case[1] for case in CASES]
)
def test_followup_cases(line: int, title: str, text: str, expected: str) -> None:
    assert dump(text) == expected.rstrip("\n")


def test_question_positions_and_ids_count_only_questions() -> None:
    deck, errors = parse_deck(
        "decks/t.md",
        HEADER + "**追问展开。**\n\n- 展开\n- 追问：一？\n  答：一。\n- 追问：二？\n  答：二。\n",
    )
    assert errors == []
    assert deck is not None
    [card] = deck.cards
    assert [(q.id, q.position, q.explicit_id) for q in card.questions] == [
        ("c.f1", 0, False),
        ("c.f2", 1, False),
    ]


def test_docs_example_parses_as_documented() -> None:
    section = DOCS.read_text(encoding="utf-8").split("### Follow-up questions", 1)[1]
    example = section.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    deck, errors = parse_deck("decks/t.md", HEADER + example)
    assert errors == []
    assert deck is not None
    [card] = deck.cards
    assert [q.id for q in card.questions] == ["c.f1", "fa-head-dim", "c.f3"]
    assert card.questions[0].question == "那 backward 时怎么办，不存 attention matrix 怎么求梯度？"
    assert card.questions[0].answer.startswith("前向只为每行存 logsumexp")
    assert card.questions[2].answer.startswith("The running max stays")
    assert card.followups.text.startswith("训练时还要记住 dropout")


def test_changing_a_question_changes_the_card_fingerprint_but_not_its_id() -> None:
    def card_of(body: str) -> ParsedCard:
        deck, errors = parse_deck("decks/t.md", HEADER + body)
        assert errors == [] and deck is not None
        return deck.cards[0]

    before = card_of("**追问展开。**\n\n- 追问：一？\n  答：一。\n")
    after = card_of("**追问展开。**\n\n- 追问：一？\n  答：改过的答案。\n")
    assert before.id == after.id == "c"
    assert before.fingerprint() != after.fingerprint()


# --- qbank check ----------------------------------------------------------------------------

DECK = """\
---
title: GPU
---

### Q：FlashAttention 省了什么？ {#fa}

**面试回答。** 省掉 $N\\times N$ 矩阵的 HBM 读写。

**追问展开。**

- 追问：backward 怎么办？
  答：重算 $P$。
- 追问：没有答案的追问？

### Q：什么是 occupancy？ {#occ}

**面试回答。** 活跃 warp 占上限的比例。

**追问展开。**

- 追问：寄存器悬崖？ {#fa.f1}
  答：多 2 个寄存器少一半 block。
"""


def test_check_reports_each_bad_followup_at_its_line(write_content: WriteContent) -> None:
    root = write_content({"decks/gpu.md": DECK})
    result = CliRunner().invoke(main, ["check", "--strict", str(root)])
    assert_clean_exit(result, 1)
    path = "decks/gpu.md"
    lines = DECK.splitlines()
    missing = next(n for n, text in enumerate(lines, 1) if "没有答案的追问" in text)
    duplicate = next(n for n, text in enumerate(lines, 1) if "{#fa.f1}" in text)
    first = next(n for n, text in enumerate(lines, 1) if "backward 怎么办" in text)
    assert problems(result.stderr) == [
        f"{path}:{missing}: follow-up question '没有答案的追问？' has no answer "
        "(start a continuation line of the item with '答：' or 'A:')",
        f"{path}:{duplicate}: duplicate follow-up id 'fa.f1' (also at {path}:{first}); "
        "give one of them an explicit {#id} at the end of its follow-up line",
    ]


def test_check_passes_strict_once_every_question_has_an_answer(
    write_content: WriteContent,
) -> None:
    fixed = DECK.replace("- 追问：没有答案的追问？", "- 追问：补上答案的追问？\n  答：补上了。")
    fixed = fixed.replace(" {#fa.f1}", "")
    root = write_content({"decks/gpu.md": fixed})
    result = CliRunner().invoke(main, ["check", "--strict", str(root)])
    assert_clean_exit(result, 0)
    assert result.stdout.splitlines()[-1] == (
        "1 decks, 2 cards, 0 topics, 2 formulas: 0 errors, 0 warnings"
    )
