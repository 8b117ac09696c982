"""The benchmarks' synthetic bank is valid content: every benchmark starts by importing it."""

import sys
from pathlib import Path

from app.content.bank.sync import check_content

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._synthetic import write_bank


def test_the_synthetic_bank_passes_check_with_its_followup_questions(tmp_path: Path) -> None:
    stats = write_bank(tmp_path, cards=120, decks=2, topics=10, seed=3)

    report = check_content(tmp_path)

    assert report.errors == []
    assert report.cards == stats.cards == 120
    assert report.topics == 10
    # The follow-ups blocks hold questions with answers, not only prose.
    text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "decks").glob("*.md"))
    assert "- 追问：" in text and "  答：" in text
