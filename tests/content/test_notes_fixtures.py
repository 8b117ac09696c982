"""The notes fixtures agree with their expected.json: each question and phrase is in its file."""

import json
import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures"
NOTES = FIXTURES / "notes"
NOTE_SUFFIXES = {".md", ".markdown", ".txt"}


def _plain(text: str) -> str:
    """Drop tags, emphasis and code marks, zero-width characters and collapse whitespace, as a
    card's plain text would."""
    text = re.sub(r"<[^>]+>|[\u200b-\u200d\u2060\ufeff]", "", text)
    text = re.sub(r"[*`]", "", text)
    return re.sub(r"\s+", " ", text)


def _folders() -> list[Path]:
    folders = sorted(p.parent for p in NOTES.glob("*/expected.json"))
    assert folders, "no notes fixtures found"
    return folders


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_expected_cards_are_written_in_their_files(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    cards = expected["cards"]
    assert cards
    for card in cards:
        path = folder / card["file"]
        # A note whose file name asks: its question is the name (`what-is-x.md` with spaces).
        name = path.stem if " " in path.stem else re.sub(r"[-_]+", " ", path.stem)
        source = _plain(path.read_text(encoding="utf-8") + "\n" + name)
        assert _plain(card["question"]) in source, card["question"]
        assert card["answer_contains"]
        for phrase in card["answer_contains"]:
            assert _plain(phrase) in source, phrase


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_not_cards_are_written_somewhere_in_the_folder(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    notes = [p for p in folder.rglob("*") if p.is_file() and p.suffix in NOTE_SUFFIXES]
    text = " ".join(_plain(p.read_text(encoding="utf-8")) for p in notes)
    assert expected["not_cards"]
    for heading in expected["not_cards"]:
        assert _plain(heading) in text, heading


# The checks tests/content/test_notes.py and tests/content/test_notes_stored.py can expect to
# fail for a while.
PENDING_CHECKS = {"cards", "not_cards", "empty_answers", "warnings", "sections", "html"}


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_pending_marks_name_a_check_and_say_why(folder: Path) -> None:
    pending = json.loads((folder / "expected.json").read_text(encoding="utf-8")).get("pending", {})
    assert set(pending) <= PENDING_CHECKS, set(pending) - PENDING_CHECKS
    assert all(isinstance(why, str) and why.strip() for why in pending.values()), pending


def test_seed_documents_list_their_38_cards_in_order() -> None:
    expected = json.loads((FIXTURES / "seeds" / "expected.json").read_text(encoding="utf-8"))
    documents = expected["documents"]
    assert [d["cards_count"] for d in documents] == [20, 18]
    for document in documents:
        lines = (FIXTURES / "seeds" / document["file"]).read_text(encoding="utf-8").split("\n")
        assert len(document["cards"]) == document["cards_count"]
        for card in document["cards"]:
            assert card["question"] in lines[card["line"] - 1]
            for phrase in card["answer_contains"]:
                assert phrase in "\n".join(lines[card["line"] :]), phrase
