"""A card as the study screens and the API show it, cached per process and bank generation.

A card's rendered HTML, its deck's title and its resolved links change only when content is
imported, and every changing import moves the bank's generation on (`app.infra.generation`, in
the import's transaction). Each process keeps the views it built for one generation: a study request
reads one small row to learn the generation instead of the card's kilobytes of HTML, its deck
and its links.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy import BindParameter, bindparam
from sqlmodel import Session, col

from app.infra.db import database_of
from app.infra.generation import bank_generation
from app.infra.models import Card, CardLink, Deck, Followup

# Views kept per engine: a few thousand cards of ~10 KB each.
CACHE_SIZE = 4096


@dataclass(frozen=True)
class LinkView:
    title: str
    url: str | None  # None when it names no known topic
    external: bool

    @property
    def resolved(self) -> bool:
        return self.url is not None


@dataclass(frozen=True)
class FollowupView:
    id: str
    question_html: str
    answer_html: str


@dataclass(frozen=True)
class CardView:
    id: str
    deck_slug: str
    deck_title: str
    section: str
    question: str
    question_html: str
    answer_html: str
    followups_html: str
    pitfalls_html: str
    tags: tuple[str, ...]
    links: tuple[LinkView, ...]
    retired: bool
    followups: tuple[FollowupView, ...] = ()
    kind: str = "basic"  # basic | cloze | reversed
    front_html: str = ""  # a cloze card's front or a basic card's stem (a block); else ""
    source_path: str = ""  # the note it comes from, relative to the notes folder
    source_line: int = 0
    question_text: str = ""  # the question as plain text, formulas readable (a page's title)

    @property
    def front(self) -> str:
        """What the question side shows: a cloze card's block, else the question."""
        return self.front_html or self.question_html


class LinkFields(Protocol):
    """A link as stored (a CardLink, or a row of its columns)."""

    external: bool
    target: str
    topic_slug: str | None


def link_url(link: LinkFields) -> str | None:
    if link.external:
        return link.target
    return f"/topics/{link.topic_slug}" if link.topic_slug else None


class CardViews:
    """The views built for the bank's current generation, the most recently used kept."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.generation = -1
        self.views: OrderedDict[str, CardView] = OrderedDict()

    def get(self, generation: int, card_id: str) -> CardView | None:
        with self.lock:
            if generation != self.generation:
                return None
            view = self.views.get(card_id)
            if view is not None:
                self.views.move_to_end(card_id)
            return view

    def put(self, generation: int, view: CardView) -> None:
        with self.lock:
            if generation > self.generation:
                self.generation = generation
                self.views.clear()
            elif generation < self.generation:
                return  # built from an older generation by a slower thread
            self.views[view.id] = view
            if len(self.views) > self.size:
                self.views.popitem(last=False)


def card_view(session: Session, card_id: str, generation: int | None = None) -> CardView | None:
    """The card `card_id` (retired ones included), or None if there is no such card.

    `generation`: the bank's, if the caller read it in this transaction (see GENERATION in
    app.infra.generation).
    """
    current = generation if generation is not None else bank_generation(session)
    # Found from the session: a cache, not a write, looked up by every read that shows a card
    # (the queue, pages, search, reports), which would otherwise all carry the database.
    views = database_of(session).kept(CardViews)
    view = views.get(current, card_id)
    if view is None:
        view = _load(session, card_id)
        if view is not None:
            views.put(current, view)
    return view


@lru_cache(maxsize=1)
def _view_statements() -> tuple[Any, Any, Any]:
    """The card with its deck's title, its links and its follow-ups, for `card`."""
    card: BindParameter[str] = bindparam("card")
    row = (
        sa.select(
            col(Card.id),
            col(Deck.slug),
            col(Deck.title),
            col(Card.section),
            col(Card.question),
            col(Card.question_html),
            col(Card.answer_html),
            col(Card.followups_html),
            col(Card.pitfalls_html),
            col(Card.tags),
            col(Card.retired),
            col(Card.kind),
            col(Card.front_html),
            col(Card.source_path),
            col(Card.source_line),
            col(Card.question_text),
        )
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.id) == card)
    )
    links = (
        sa.select(
            col(CardLink.title),
            col(CardLink.external),
            col(CardLink.target),
            col(CardLink.topic_slug),
        )
        .where(col(CardLink.card_id) == card)
        .order_by(col(CardLink.position))
    )
    followups = (
        sa.select(col(Followup.id), col(Followup.question_html), col(Followup.answer_html))
        .where(col(Followup.card_id) == card)
        .order_by(col(Followup.position))
    )
    return row, links, followups


def _load(session: Session, card_id: str) -> CardView | None:
    # Core statements built once, on the session's connection: a card not in the cache is
    # the common case for one learner, who sees most cards once a day.
    row, links, followups = _view_statements()
    connection, params = session.connection(), {"card": card_id}
    found = connection.execute(row, params).first()
    if found is None:
        return None
    return CardView(
        id=found.id,
        deck_slug=found.slug,
        deck_title=found.title,
        section=found.section,
        question=found.question,
        question_html=found.question_html,
        answer_html=found.answer_html,
        followups_html=found.followups_html,
        pitfalls_html=found.pitfalls_html,
        tags=tuple(found.tags),
        links=tuple(
            LinkView(title=link.title, url=link_url(link), external=link.external)
            for link in connection.execute(links, params)
        ),
        retired=found.retired,
        followups=tuple(
            FollowupView(row.id, row.question_html, row.answer_html)
            for row in connection.execute(followups, params)
        ),
        kind=found.kind,
        front_html=found.front_html,
        source_path=found.source_path,
        source_line=found.source_line,
        question_text=found.question_text,
    )
