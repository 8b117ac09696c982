"""A repository's folder READMEs: each its own deck, named by its folder, with no clash."""

from pathlib import Path

from app.content.bank.sync import check_content
from app.content.names import note_name

QUESTION = "## What is RAII?\n\nA resource is released when its owner goes out of scope.\n"


def test_a_folder_readme_is_named_by_its_folder() -> None:
    assert note_name("Basics/Functions/README.md") == "Functions"
    assert note_name("Basics/index.md") == "Basics"
    assert note_name("README.md") == "README"
    assert note_name("Basics/Functions/raii.md") == "raii"


def test_folder_readmes_are_decks_of_their_own_without_warnings(tmp_path: Path) -> None:
    for folder in ("Basics", "Basics/Functions", "Basics/Memory management"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        text = QUESTION.replace("RAII", f"RAII in {folder}")
        (tmp_path / folder / "README.md").write_text(text, encoding="utf-8")
    (tmp_path / "Basics" / "Functions" / "README.md").write_text(
        "# Function calls\n\n" + QUESTION.replace("RAII", "a calling convention"),
        encoding="utf-8",
    )
    report = check_content(tmp_path)
    assert report.errors == [] and report.warnings == [], report.warnings
    titles = sorted(file.title for file in report.files if file.title)
    assert titles == ["Basics", "Function calls", "Memory management"], titles
