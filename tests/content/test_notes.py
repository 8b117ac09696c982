"""Folders of notes as people write them: every way of writing Q&A becomes the cards it means.

Each folder under tests/fixtures/notes/ has an expected.json (see its README) listing the cards
it must give, in file order, and the headings and lines that must not become cards. A check the
folder marks "pending" is expected to fail until the parser learns its syntax, and fails the run
once it passes, so that the mark is taken off.
"""

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.content.bank.report import FileReport
from app.content.bank.sync import CheckReport, check_content
from tests.support.notes import NOTES, expected, mark_pending, normal

SEEDS = Path(__file__).parents[1] / "fixtures" / "seeds"
FOLDERS = sorted(p.name for p in NOTES.iterdir() if (p / "expected.json").exists())


def cards(report: CheckReport) -> list[tuple[str, str, str]]:
    """(file, question, answer) of every card found, in path and line order."""
    return [
        (file.path, card.question, card.answer)
        for file in report.files
        for card in sorted(file.cards, key=lambda c: c.line)
    ]


@pytest.fixture(scope="module")
def reports() -> dict[str, CheckReport]:
    return {folder: check_content(NOTES / folder) for folder in FOLDERS}


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_question_becomes_its_card(
    folder: str, reports: dict[str, CheckReport], request: pytest.FixtureRequest
) -> None:
    mark_pending(request, folder, "cards")
    want = expected(folder)["cards"]
    assert want, f"{folder}/expected.json lists no cards"
    got = cards(reports[folder])
    for item in want:
        matches = [
            answer
            for path, question, answer in got
            if path == item["file"] and normal(question) == normal(item["question"])
        ]
        assert matches, f"{item['file']}: no card '{item['question']}' among {got}"
        assert any(
            all(normal(phrase) in normal(answer) for phrase in item.get("answer_contains", []))
            for answer in matches
        ), f"{item['file']}: '{item['question']}' answers {matches}"
    # Nothing more: a card the folder does not list is a heading or line taken by mistake.
    assert len(got) == len(want), [q for _, q, _ in got]


@pytest.mark.parametrize("folder", FOLDERS)
def test_sections_and_answer_headings_are_no_cards(
    folder: str, reports: dict[str, CheckReport], request: pytest.FixtureRequest
) -> None:
    mark_pending(request, folder, "not_cards")
    questions = {normal(question) for _, question, _ in cards(reports[folder])}
    not_cards = expected(folder)["not_cards"]
    assert not_cards, f"{folder}/expected.json lists the headings that are no cards"
    for text in not_cards:
        assert normal(text) not in questions, f"{folder}: '{text}' became a card"


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_card_has_an_empty_answer(
    folder: str, reports: dict[str, CheckReport], request: pytest.FixtureRequest
) -> None:
    mark_pending(request, folder, "empty_answers")
    found = cards(reports[folder])
    assert found
    for path, question, answer in found:
        assert answer.strip(), f"{path}: '{question}' has an empty answer"


@pytest.mark.parametrize(
    "folder", [f for f in FOLDERS if f != "problems" and expected(f).get("warnings")]
)
def test_listed_warnings_are_given_at_their_lines(
    folder: str, reports: dict[str, CheckReport], request: pytest.FixtureRequest
) -> None:
    mark_pending(request, folder, "warnings")
    lines = {(w.path, w.line) for w in reports[folder].warnings}
    for item in expected(folder)["warnings"]:
        assert (item["file"], item["line"]) in lines, (item, sorted(lines))


def test_a_problem_in_the_notes_is_a_warning_and_strict_refuses(
    reports: dict[str, CheckReport],
) -> None:
    lenient = reports["problems"]
    assert lenient.errors == []
    lines = {(w.path, w.line) for w in lenient.warnings}
    wanted = expected("problems").get("warnings", [])
    assert wanted
    for item in wanted:
        assert (item["file"], item["line"]) in lines, (item, sorted(lines))
    strict = check_content(NOTES / "problems", strict=True)
    assert strict.errors
    result = CliRunner().invoke(main, ["check", "--strict", str(NOTES / "problems")])
    assert result.exit_code == 1
    assert CliRunner().invoke(main, ["check", str(NOTES / "problems")]).exit_code == 0


def test_nested_folders_skip_tool_folders_and_keep_their_path(
    reports: dict[str, CheckReport],
) -> None:
    files = {file.path: file for file in reports["nested"].files}
    assert files
    assert not any(path.startswith(("node_modules/", ".")) for path in files)
    assert "gpu/memory/bank-conflicts.markdown" in files
    assert "reading/interview-log.txt" in files
    deck = files["gpu/kernels/tiling/gemm-tiling.md"]
    assert (deck.kind, deck.folder) == ("deck", "gpu/kernels/tiling")


def test_the_json_report_lists_each_note(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", "--json", str(NOTES / "nested")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["summary"]["cards"] == sum(len(f["cards"]) for f in report["files"]) > 0
    kinds = {f["path"]: f["kind"] for f in report["files"]}
    assert kinds["gpu/kernels/tiling/gemm-tiling.md"] == "deck"
    for file in report["files"]:
        for card in file["cards"]:
            assert {"id", "line", "question", "answer", "recogniser"} <= card.keys()


# --- the user's own documents, as written ---------------------------------------------------


SEED_FILES = {"gpu-kernels-qa.txt": 20, "numbered-notes.txt": 18}


@pytest.mark.parametrize("suffix", [".txt", ".md"])
@pytest.mark.parametrize(("name", "count"), SEED_FILES.items())
def test_the_seed_documents_give_their_cards(
    tmp_path: Path, name: str, count: int, suffix: str
) -> None:
    shutil.copy(SEEDS / name, tmp_path / (Path(name).stem + suffix))
    report = check_content(tmp_path)
    [file] = report.files
    assert isinstance(file, FileReport)
    assert (file.kind, len(file.cards)) == ("deck", count)
    want = _seed_expectations(name)
    assert [normal(c.question) for c in file.cards] == [normal(q["question"]) for q in want]
    assert any(item.get("answer_contains") for item in want), "the seed lists answer phrases"
    for card, item in zip(file.cards, want, strict=True):
        for phrase in item.get("answer_contains", []):
            assert normal(phrase) in normal(card.answer), (card.question, phrase)


def _seed_expectations(name: str) -> list[dict[str, Any]]:
    data = json.loads((SEEDS / "expected.json").read_text(encoding="utf-8"))
    [document] = [doc for doc in data["documents"] if doc["file"] == name]
    return list(document["cards"])


def test_the_structured_seed_keeps_its_title_sections_and_labelled_blocks() -> None:
    from app.content.notes.parse import parse_note
    from app.content.notes.parsed import ParsedDeck

    text = (SEEDS / "gpu-kernels-qa.txt").read_text(encoding="utf-8")
    deck, errors = parse_note("gpu-kernels-qa.txt", text)
    assert errors == []
    assert isinstance(deck, ParsedDeck)
    assert deck.title == "知识问答：算子与性能 QA"
    want = _seed_expectations("gpu-kernels-qa.txt")
    assert len(deck.cards) == len(want) == 20
    blocks = {"answer": "answer", "followups": "followups", "pitfalls": "pitfalls"}
    assert all(any(item["blocks"].get(block) for item in want) for block in blocks)
    for card, item in zip(deck.cards, want, strict=True):
        for block, attribute in blocks.items():
            for phrase in item["blocks"].get(block, []):
                assert phrase in getattr(card, attribute).text, (card.question, block, phrase)
        assert [link.title for link in card.links] == item["blocks"]["reading"]
        for formula in item.get("answer_formulas", []):
            assert formula in card.answer.text
    first = deck.cards[0]
    assert first.section == "GPU 与矩阵计算基础"
    assert re.fullmatch(r"q-[0-9a-f]{12}", first.id)
