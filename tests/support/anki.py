"""Shared test helpers (from test_anki_collection.py)."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

anki_collection = pytest.importorskip("anki.collection")


@pytest.fixture
def collection(tmp_path: Path) -> Iterator["anki_collection.Collection"]:
    (tmp_path / "anki").mkdir()
    col = anki_collection.Collection(str(tmp_path / "anki" / "collection.anki2"))
    yield col
    col.close()


def import_into(col: "anki_collection.Collection", package: Path) -> None:
    options = anki_collection.ImportAnkiPackageOptions(
        merge_notetypes=True, update_notes=1, with_scheduling=False
    )
    request = anki_collection.ImportAnkiPackageRequest(package_path=str(package), options=options)
    col.import_anki_package(request)


def notes_by_card(col: "anki_collection.Collection") -> dict[str, dict[str, str]]:
    notes = {}
    for note_id in col.find_notes(""):
        note = col.get_note(note_id)
        fields = dict(note.items())
        notes[re.sub(r"<[^>]+>", "", fields["Source"]).rsplit(" / ", 1)[-1]] = fields
    return notes
