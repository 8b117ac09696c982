"""The scope of a study or practice session: a deck, a section, a tag."""

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, cast
from sqlmodel import col

from app.models import Card, Deck


@dataclass(frozen=True)
class Filters:
    deck: str | None = None
    section: str | None = None
    tag: str | None = None
    # Custom study: reviews due within this many days after today count as due today.
    ahead: int = 0

    def apply(self, query: Any) -> Any:
        """`query` (which joins Card and Deck) limited to the active cards in scope."""
        query = query.where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
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
        return bool(self.deck or self.section or self.tag)

    @property
    def label(self) -> str:
        """The scope as people read it: deck · section · #tag."""
        tag = f"#{self.tag}" if self.tag else None
        return " · ".join(v for v in (self.deck, self.section, tag) if v)

    def as_params(self) -> dict[str, str]:
        params = {
            k: v
            for k, v in (("deck", self.deck), ("section", self.section), ("tag", self.tag))
            if v
        }
        return params | ({"ahead": str(self.ahead)} if self.ahead else {})
