"""Search cards and topics by substring, which works for Chinese without a word segmenter."""

import html
import re
from dataclasses import dataclass

from markupsafe import Markup
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.models import Card, Deck, Topic

MAX_TERMS = 8
SNIPPET = 60


@dataclass(frozen=True)
class Hit:
    kind: str  # card | topic
    id: str
    title: str
    url: str
    snippet: Markup
    title_html: Markup
    deck: str = ""


def terms_of(query: str) -> list[str]:
    return [t.casefold() for t in query.split()][:MAX_TERMS]


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_")
    return f"%{escaped}%"


def highlight(text: str, terms: list[str]) -> Markup:
    """Escape `text` and wrap every occurrence of a term in <mark>."""
    if not terms:
        return Markup(html.escape(text))
    pattern = re.compile(
        "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE
    )
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        out.append(f"<mark>{html.escape(match.group())}</mark>")
        last = match.end()
    out.append(html.escape(text[last:]))
    return Markup("".join(out))


def snippet(text: str, terms: list[str]) -> Markup:
    """A window of `text` around the first match, highlighted."""
    flat = " ".join(text.split())
    folded = flat.casefold()
    first = min((i for t in terms if (i := folded.find(t)) >= 0), default=0)
    start = max(first - SNIPPET // 2, 0)
    piece = flat[start : start + 2 * SNIPPET]
    prefix = "…" if start else ""
    suffix = "…" if start + 2 * SNIPPET < len(flat) else ""
    return Markup(prefix) + highlight(piece, terms) + Markup(suffix)


def search(session: Session, query: str, *, limit: int = 50) -> list[Hit]:
    """Cards and topics containing every term; question/title matches first."""
    terms = terms_of(query)
    if not terms:
        return []
    card_rows = session.exec(
        select(Card, Deck)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(
            col(Card.retired).is_(False),
            *(func.lower(Card.search_text).like(_like(t), escape="\\") for t in terms),
        )
        .order_by(col(Deck.path), col(Card.position))
        .limit(limit)
    ).all()
    topic_rows = session.exec(
        select(Topic)
        .where(*(func.lower(Topic.search_text).like(_like(t), escape="\\") for t in terms))
        .order_by(col(Topic.title))
        .limit(limit)
    ).all()
    hits = [
        Hit(
            kind="topic",
            id=topic.slug,
            title=topic.title,
            url=f"/topics/{topic.slug}",
            snippet=snippet(topic.search_text.split("\n", 3)[-1], terms),
            title_html=highlight(topic.title, terms),
        )
        for topic in topic_rows
    ]
    hits += [
        Hit(
            kind="card",
            id=card.id,
            title=card.question,
            url=f"/cards/{card.id}",
            snippet=snippet(card.search_text.split("\n", 1)[-1], terms),
            title_html=highlight(card.question, terms),
            deck=deck.title,
        )
        for card, deck in card_rows
    ]
    hits.sort(key=lambda h: not any(t in h.title.casefold() for t in terms))
    return hits[:limit]
