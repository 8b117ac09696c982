"""Shared test helpers (from test_anki_export.py)."""

import io
import json
import re
import sqlite3
import zipfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.export.anki import export_apkg


@dataclass
class Note:
    guid: str
    model_id: int
    deck: str
    tags: list[str]
    fields: dict[str, str]


@dataclass
class Apkg:
    names: list[str]
    decks: dict[int, str]  # id -> name, without Anki's "Default"
    models: dict[int, dict[str, Any]]
    notes: dict[str, Note]  # by the Source field's card id


def read_apkg(source: Path | bytes, tmp_path: Path) -> Apkg:
    """Open an .apkg the way Anki does: a zip holding the collection as SQLite."""
    data = source if isinstance(source, bytes) else source.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        collection = tmp_path / "opened.anki2"
        collection.write_bytes(archive.read("collection.anki2"))
    with closing(sqlite3.connect(collection)) as db:
        decks_json, models_json = db.execute("SELECT decks, models FROM col").fetchone()
        decks = {
            int(k): v["name"] for k, v in json.loads(decks_json).items() if v["name"] != "Default"
        }
        models = {int(k): v for k, v in json.loads(models_json).items()}
        rows = db.execute(
            "SELECT n.guid, n.mid, n.tags, n.flds, c.did FROM notes n JOIN cards c ON c.nid = n.id"
        ).fetchall()
    collection.unlink()
    notes = {}
    for guid, mid, tags, flds, did in rows:
        names_ = [f["name"] for f in sorted(models[mid]["flds"], key=lambda f: f["ord"])]
        fields = dict(zip(names_, flds.split("\x1f"), strict=True))
        card_id = re.sub(r"<[^>]+>", "", fields["Source"]).rsplit(" / ", 1)[-1]
        notes[card_id] = Note(guid, mid, decks[did], tags.split(), fields)
    return Apkg(names, decks, models, notes)


def export(engine: Engine, tmp_path: Path, name: str = "out.apkg", **options: Any) -> Apkg:
    path = tmp_path / name
    options.setdefault("deck_slug", None)
    with Session(engine) as session:
        export_apkg(session=session, path=path, **options)
    return read_apkg(path, tmp_path)
