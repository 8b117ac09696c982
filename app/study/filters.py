"""The scope of a study or practice session: a folder of notes, a deck, a section, a tag."""

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, cast, func, or_
from sqlmodel import col

from app.infra.models import Card, Deck

# A folder is named by its path, which may be as long as a file's path may be (PATH_MAX): every
# folder the app lists must be one that `?folder=` accepts.
FOLDER_MAX_LENGTH = 4096


def in_folder(folder: str) -> Any:
    """Decks whose note sits in `folder` or below it (as app.content.names.note_folder reads it).

    The house layout's `decks/` is no folder of its own, so `decks/a/x.md` is in folder `a`.
    A prefix compared as text, not LIKE: folder names may hold `%` and `_`, and SQLite's LIKE
    ignores case.
    """
    conditions = []
    for prefix in (folder.strip("/") + "/", "decks/" + folder.strip("/") + "/"):
        conditions.append(func.substr(col(Deck.path), 1, len(prefix)) == prefix)
    return or_(*conditions)


@dataclass(frozen=True)
class Filters:
    deck: str | None = None
    section: str | None = None
    tag: str | None = None
    folder: str | None = None
    # Custom study: reviews due within this many days after today count as due today.
    ahead: int = 0

    def apply(self, query: Any) -> Any:
        """`query` (which joins Card and Deck) limited to the active cards in scope."""
        query = query.where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
        if self.folder:
            query = query.where(in_folder(self.folder))
        if self.deck:
            query = query.where(Deck.slug == self.deck)
        if self.section:
            query = query.where(Card.section == self.section)
        if self.tag:
            # Tags are stored as JSON text; match the serialised tag so this is portable.
            needle = (
                json.dumps(self.tag).replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_")
            )
            query = query.where(cast(Card.tags, String).like(f"%{needle}%", escape="\\"))
        return query

    @property
    def scoped(self) -> bool:
        return bool(self.folder or self.deck or self.section or self.tag)

    @property
    def label(self) -> str:
        """The scope as people read it: folder/ · deck · section · #tag."""
        tag = f"#{self.tag}" if self.tag else None
        folder = f"{self.folder}/" if self.folder else None
        return " · ".join(v for v in (folder, self.deck, self.section, tag) if v)

    def as_params(self) -> dict[str, str]:
        params = {
            k: v
            for k, v in (
                ("folder", self.folder),
                ("deck", self.deck),
                ("section", self.section),
                ("tag", self.tag),
            )
            if v
        }
        return params | ({"ahead": str(self.ahead)} if self.ahead else {})
