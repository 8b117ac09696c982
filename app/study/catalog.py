"""Read-only views of the bank: decks with progress, folders, cards, topics and their links."""

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

from app.content.bank.topicindex import TopicRef, resolve, topic_index
from app.content.names import normalise_title, note_folder, note_stem
from app.infra.models import Card, CardLink, CardState, Deck, Learner, Topic
from app.scheduling.studyday import MATURE_DAYS, study_day
from app.study.cardview import link_url as link_url
from app.study.marks import held_cards


@dataclass
class Progress:
    total: int = 0
    seen: int = 0
    mature: int = 0
    due: int = 0

    @property
    def new(self) -> int:
        return self.total - self.seen

    @property
    def percent_seen(self) -> int:
        return round(100 * self.seen / self.total) if self.total else 0

    @property
    def percent_mature(self) -> int:
        return round(100 * self.mature / self.total) if self.total else 0


@dataclass
class DeckSummary:
    deck: Deck
    progress: Progress
    sections: dict[str, Progress] = field(default_factory=dict)


def _progress_rows(
    session: Session, learner: Learner, now: datetime, deck_id: int | None = None
) -> dict[tuple[int, str], Progress]:
    """Progress per (deck id, section), sections in content order, in four grouped queries."""
    _, day_end = study_day(learner, now)
    scope: list[ColumnElement[bool]] = [col(Card.retired).is_(False)]
    if deck_id is not None:
        scope.append(col(Card.deck_id) == deck_id)
    out: dict[tuple[int, str], Progress] = defaultdict(Progress)
    totals = session.exec(
        select(Card.deck_id, Card.section, func.count(), func.min(Card.position))
        .where(*scope)
        .group_by(col(Card.deck_id), col(Card.section))
    ).all()
    # Filled in content order so each deck's sections come out in the order they are written.
    for deck, section, total, _ in sorted(totals, key=lambda row: (row[0], row[3])):
        out[(deck, section)].total = total
    joined = (
        select(Card.deck_id, Card.section, func.count())
        .join(CardState, col(CardState.card_id) == Card.id)
        .where(*scope, col(CardState.learner_id) == learner.id)
        .group_by(col(Card.deck_id), col(Card.section))
    )
    for deck, section, seen in session.exec(joined):
        out[(deck, section)].seen = seen
    for deck, section, mature in session.exec(
        joined.where(col(CardState.stability) >= MATURE_DAYS)
    ):
        out[(deck, section)].mature = mature
    # Suspended and buried cards are not due for the learner (app.study.marks).
    due_now = (col(CardState.due) < day_end, col(Card.id).not_in(held_cards(learner.id, now)))
    for deck, section, due in session.exec(joined.where(*due_now)):
        out[(deck, section)].due = due
    return out


def _sum(parts: list[Progress]) -> Progress:
    return Progress(
        total=sum(p.total for p in parts),
        seen=sum(p.seen for p in parts),
        mature=sum(p.mature for p in parts),
        due=sum(p.due for p in parts),
    )


def deck_summaries(session: Session, *, learner: Learner, now: datetime) -> list[DeckSummary]:
    """Every active deck with its progress for `learner`, overall and per section."""
    rows = _progress_rows(session, learner, now)
    decks = session.exec(
        select(Deck).where(col(Deck.retired).is_(False)).order_by(col(Deck.path))
    ).all()
    summaries = []
    for deck in decks:
        sections = {section: p for (deck_id, section), p in rows.items() if deck_id == deck.id}
        summaries.append(DeckSummary(deck, _sum(list(sections.values())), sections))
    return summaries


@dataclass
class Folder:
    """A folder of notes as the home page shows it: its decks, its sub-folders, their totals."""

    name: str  # its own name; '' for the content folder itself
    path: str  # from the content folder, as `?folder=` takes it
    decks: list[DeckSummary] = field(default_factory=list)
    folders: list["Folder"] = field(default_factory=list)
    progress: Progress = field(default_factory=Progress)

    @property
    def deck_count(self) -> int:
        return len(self.decks) + sum(f.deck_count for f in self.folders)


def folder_tree(decks: list[DeckSummary]) -> Folder:
    """The decks grouped by the folder their note sits in, nested, with progress per folder."""
    root = Folder("", "")
    index = {"": root}

    def node(path: str) -> Folder:
        found = index.get(path)
        if found is None:
            parent, _, name = path.rpartition("/")
            found = index[path] = Folder(name, path)
            node(parent).folders.append(found)
        return found

    for summary in decks:
        node(note_folder(summary.deck.path)).decks.append(summary)

    def total(folder: Folder) -> Progress:
        folder.folders.sort(key=lambda f: f.name.casefold())
        parts = [s.progress for s in folder.decks] + [total(f) for f in folder.folders]
        folder.progress = _sum(parts)
        return folder.progress

    total(root)
    return root


@dataclass
class TagSummary:
    tag: str
    progress: Progress


def tag_summaries(decks: list[DeckSummary]) -> list[TagSummary]:
    """The decks' tags, each with the progress of the cards that `?tag=` selects.

    A card carries its deck's tags and its section's name (app.content.bank.sync), so a tag also
    takes in a section of that name in a deck without the tag.
    """
    summaries = []
    for tag in sorted({tag for s in decks for tag in s.deck.tags}, key=str.casefold):
        parts = [
            p
            for s in decks
            for section, p in s.sections.items()
            if tag in s.deck.tags or section == tag
        ]
        summaries.append(TagSummary(tag, _sum(parts)))
    return summaries


def get_deck(session: Session, slug: str) -> Deck | None:
    return session.exec(select(Deck).where(Deck.slug == slug, col(Deck.retired).is_(False))).first()


@dataclass
class DeckPage:
    summary: DeckSummary
    sections: list[tuple[str, list[Card]]]
    states: dict[str, CardState]


def deck_page(session: Session, *, deck: Deck, learner: Learner, now: datetime) -> DeckPage:
    """A deck's cards grouped by section in content order, with the learner's states."""
    cards = session.exec(
        select(Card)
        .where(Card.deck_id == deck.id, col(Card.retired).is_(False))
        .order_by(col(Card.position))
    ).all()
    sections: dict[str, list[Card]] = {}
    for card in cards:
        sections.setdefault(card.section, []).append(card)
    rows = _progress_rows(session, learner, now, deck.id)
    progress = {section: rows[(deck.id, section)] for section in sections}  # type: ignore[index]
    states = {
        s.card_id: s
        for s in session.exec(
            select(CardState).where(
                CardState.learner_id == learner.id,
                col(CardState.card_id).in_([c.id for c in cards]),
            )
        )
    }
    summary = DeckSummary(deck, _sum(list(progress.values())), progress)
    return DeckPage(summary, list(sections.items()), states)


def card_links(session: Session, card_ids: list[str]) -> dict[str, list[CardLink]]:
    links: dict[str, list[CardLink]] = defaultdict(list)
    for link in session.exec(
        select(CardLink).where(col(CardLink.card_id).in_(card_ids)).order_by(col(CardLink.position))
    ):
        links[link.card_id].append(link)
    return links


def get_topic(session: Session, slug: str) -> Topic | None:
    return session.exec(select(Topic).where(Topic.slug == slug)).first()


def topic_cards(session: Session, slug: str) -> list[tuple[Card, Deck]]:
    """Active cards whose continue-reading links point at the topic, in content order."""
    rows = session.exec(
        select(Card, Deck)
        .join(CardLink, col(CardLink.card_id) == Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(CardLink.topic_slug == slug, col(Card.retired).is_(False))
        .order_by(col(Deck.path), col(Card.position))
    ).all()
    unique = {card.id: (card, deck) for card, deck in reversed(rows)}
    return sorted(unique.values(), key=lambda pair: (pair[1].path, pair[0].position))


def topics(
    session: Session, *, limit: int | None = None, offset: int = 0
) -> list[tuple[Topic, int]]:
    """Topics by title (`limit` from `offset`), each with how many active cards link to it."""
    shown = list(
        session.exec(
            select(Topic).order_by(col(Topic.title), col(Topic.slug)).offset(offset).limit(limit)
        )
    )
    counts = dict(
        session.exec(
            select(CardLink.topic_slug, func.count(func.distinct(CardLink.card_id)))
            .join(Card, col(Card.id) == CardLink.card_id)
            .where(
                col(Card.retired).is_(False), col(CardLink.topic_slug).in_([t.slug for t in shown])
            )
            .group_by(CardLink.topic_slug)
        ).all()
    )
    return [(t, counts.get(t.slug, 0)) for t in shown]


def topic_count(session: Session) -> int:
    return session.exec(select(func.count()).select_from(Topic)).one()


# A heading's numbering and question label, which a card's question may be written without.
_HEADING_LEAD = re.compile(
    r"^\s*(?:(?:\d+[.)、]?)+\s*|[一二三四五六七八九十]+、\s*)?(?:(?:Q|问)\s*[:：]\s*)?"
)


def _heading_key(text: str) -> str:
    return normalise_title(_HEADING_LEAD.sub("", text)).rstrip("?？ ")


def note_url(session: Session, name: str, heading: str = "") -> str | None:
    """Where a link to the note `name` (at `heading`) leads, or None for no such note.

    A note is named as its author links it: a reading page by its title, an alias, its slug
    or its file name; else a deck by its title or file name. At a heading, a card of that
    note asking it, else the page scrolled to the heading's text.
    """
    slug = find_topic(session, name)
    if slug is not None:
        return f"/topics/{quote(slug, safe='')}" + _text_fragment(heading)
    key = normalise_title(name)
    decks = session.exec(
        select(Deck).where(col(Deck.retired).is_(False)).order_by(col(Deck.path))
    ).all()
    deck = next((d for d in decks if normalise_title(d.title) == key), None) or next(
        (d for d in decks if normalise_title(note_stem(d.path)) == key), None
    )
    if deck is None:
        return None
    if heading.strip():
        wanted = _heading_key(heading)
        for card_id, question in session.exec(
            select(Card.id, Card.question)
            .where(Card.deck_id == deck.id, col(Card.retired).is_(False))
            .order_by(col(Card.position))
        ):
            if wanted and _heading_key(question) == wanted:
                return f"/cards/{quote(card_id, safe='')}"
    return f"/decks/{quote(deck.slug, safe='')}" + _text_fragment(heading)


def _text_fragment(heading: str) -> str:
    """A URL fragment that scrolls a browser to the heading's text (headings carry no ids)."""
    heading = heading.strip()
    # `-`, `&` and `,` are the directive's own syntax, so they are escaped with the rest.
    return "#:~:text=" + quote(heading, safe="").replace("-", "%2D") if heading else ""


def find_topic(session: Session, title: str) -> str | None:
    """The slug of the topic with this title, alias or slug."""
    index, _ = topic_index(
        [TopicRef(t.slug, t.title, tuple(t.aliases), t.path) for t in session.exec(select(Topic))]
    )
    return resolve(title, index)
