"""Cloze cards exported into Anki's Cloze note type, checked by a real Anki collection."""

from pathlib import Path

import pytest
from sqlmodel import Session

from app.content.bank.sync import import_content
from app.export.anki import CLOZE_FIELDS, export_apkg
from tests.support.anki import collection, import_into  # noqa: F401
from tests.support.cloze_notes import NOTES
from tests.support.content_files import WriteContent

anki_collection = pytest.importorskip("anki.collection")


def test_cloze_cards_open_in_anki_as_cloze_notes(
    database,
    engine,
    write_content: WriteContent,
    collection: "anki_collection.Collection",  # noqa: F811
    tmp_path: Path,
) -> None:
    import_content(write_content(NOTES), database)
    package = tmp_path / "cloze.apkg"
    with Session(engine) as session:
        report = export_apkg(session=session, deck_slug=None, path=package)
    import_into(collection, package)

    assert report.notes == 14 and collection.note_count() == 14
    [model] = [m for m in collection.models.all() if m["name"] == "qbank Cloze"]
    assert model["type"] == 1  # Anki's cloze type
    assert [f["name"] for f in model["flds"]] == list(CLOZE_FIELDS)
    texts = {
        collection.get_note(note_id)["Text"]: note_id
        for note_id in collection.find_notes("note:qbank*Cloze")
    }
    assert len(texts) == 9  # one note per cloze card, each asking one deletion
    size = "<p>The H100 SXM has 132 SMs and {{c1::50 MB::size}} of L2.</p>\n"
    assert size in texts
    ridge = next(text for text in texts if "ridge" in text)
    assert r"\(I^* = {{c1::P/B}}\)" in ridge and "katex" not in ridge
    # What a learner sees in Anki: the blank with its hint on the front, the answer on the back.
    card = collection.get_note(texts[size]).cards()[0]
    assert "[size]" in card.question() and "50 MB" not in card.question()
    assert "50 MB" in card.answer()
