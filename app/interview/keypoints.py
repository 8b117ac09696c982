"""A model answer as a checklist of key points, compiled at import; and what a checklist says.

The import (app.content.compile.forms) makes an answer's key points from its Markdown: its
list items, else its sentences, or the list an author marked with `要点：`; they are stored with
the card as places in its answer's HTML.
"""

import hashlib

from sqlmodel import Session, col, select

from app.content.compile.points import point_html
from app.infra.models import Card


def card_points(session: Session, card_ids: list[str]) -> dict[str, list[str]]:
    """The key points of each of `card_ids` as HTML (cards gone: absent)."""
    rows = session.exec(
        select(Card.id, Card.answer_html, Card.key_points).where(col(Card.id).in_(card_ids))
    )
    return {card_id: [point_html(html, p) for p in points] for card_id, html, points in rows}


def points_key(points: list[str]) -> str:
    """A short fingerprint of a checklist, to notice when the content changed meanwhile."""
    return hashlib.sha256("\x1f".join(points).encode()).hexdigest()[:16]


def suggested_rating(said: int, total: int, *, overtime: bool) -> int:
    """The rating that the share of key points said suggests: 1 Again … 4 Easy."""
    coverage = said / total if total else 1.0
    if coverage < 0.4:
        return 1
    if coverage < 0.7:
        return 2
    if coverage < 0.95 or overtime:
        return 3
    return 4
