"""Folders of notes with what is left in them, a page at a time, counted by the database.

A vault of notes is thousands of decks (every note with a question is one), so no page reads
them all: a folder's listing is its sub-folders, each summed in one grouped statement from the
counts kept per deck (`Deck.card_count`, `SeenCount.seen`) and the learner's due card states,
then one page of the decks that sit in it directly. A folder is a path from the content folder
as `?folder=` takes it (app.study.filters.in_folder); the house layout's `decks/` is none.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from math import ceil
from typing import Any

from sqlalchemy import ColumnElement, String, and_, bindparam, case, cast, func, or_
from sqlmodel import Session, col, select

from app.infra.models import Card, CardState, Deck, Learner, SeenCount
from app.infra.strpos import strpos
from app.scheduling.cardstate import State
from app.scheduling.studyday import study_day
from app.study.counts import LEARN_AHEAD, not_put_aside

PAGE_SIZE = 50


@dataclass(frozen=True)
class Left:
    """A folder's or a deck's cards: all of them, studied, and due today by queue."""

    total: int = 0
    seen: int = 0
    learning: int = 0
    review: int = 0

    @property
    def new(self) -> int:
        return max(self.total - self.seen, 0)

    @property
    def percent_seen(self) -> int:
        return round(100 * self.seen / self.total) if self.total else 0


@dataclass(frozen=True)
class FolderRow:
    """A sub-folder in a listing: its path (as `?folder=` takes it), name and counts."""

    path: str
    name: str
    decks: int
    left: Left


@dataclass(frozen=True)
class DeckRow:
    """A deck in a listing."""

    slug: str
    title: str
    description: str
    left: Left


@dataclass(frozen=True)
class FolderPage:
    """One page of a folder: its sub-folders, then its own decks, PAGE_SIZE items a page."""

    path: str
    name: str
    crumbs: list[tuple[str, str]]  # (name, path) of each folder above, outermost first
    decks: int  # every deck in the folder and below it
    left: Left  # every card in the folder and below it
    folders: list[FolderRow]
    deck_rows: list[DeckRow]
    page: int
    pages: int
    items: int  # sub-folders and own decks, over all pages

    @property
    def found(self) -> bool:
        return self.decks > 0 or not self.path


def _relative(path: Any) -> Any:
    """A deck's path as folders are named: without the house layout's `decks/`."""
    return case((func.substr(path, 1, 6) == "decks/", func.substr(path, 7)), else_=path)


def _due_by_deck(learner_id: int) -> Any:
    """The learner's learning and review cards due today, per deck (the statements' params)."""
    learning = and_(
        col(CardState.state).in_([int(State.LEARNING), int(State.RELEARNING)]),
        col(CardState.due) <= bindparam("ahead"),
    )
    review = and_(
        col(CardState.state) == int(State.REVIEW), col(CardState.due) < bindparam("day_end")
    )
    return (
        select(
            Card.deck_id,
            func.sum(case((learning, 1), else_=0)).label("learning"),
            func.sum(case((review, 1), else_=0)).label("review"),
        )
        .join(Card, col(Card.id) == CardState.card_id)
        .where(
            CardState.learner_id == learner_id,
            col(Card.retired).is_(False),
            or_(learning, review),
            not_put_aside(CardState.card_id),
        )
        .group_by(col(Card.deck_id))
        .subquery("due")
    )


def _counted(learner_id: int, *columns: Any) -> tuple[Any, Any]:
    """Active decks with the learner's kept counts and due cards beside each."""
    due = _due_by_deck(learner_id)
    return (
        select(*columns)
        .select_from(Deck)
        .outerjoin(
            SeenCount,
            and_(col(SeenCount.deck_id) == Deck.id, col(SeenCount.learner_id) == learner_id),
        )
        .outerjoin(due, due.c.deck_id == Deck.id)
        .where(col(Deck.retired).is_(False))
    ), due


def _sums(due: Any) -> list[Any]:
    return [
        func.count(col(Deck.id)).label("decks"),
        func.coalesce(func.sum(Deck.card_count), 0).label("total"),
        func.coalesce(func.sum(SeenCount.seen), 0).label("seen"),
        func.coalesce(func.sum(due.c.learning), 0).label("learning"),
        func.coalesce(func.sum(due.c.review), 0).label("review"),
    ]


def _params(learner: Learner, now: datetime) -> dict[str, Any]:
    _, day_end = study_day(learner, now)
    return {"learner_id": learner.id, "now": now, "ahead": now + LEARN_AHEAD, "day_end": day_end}


def _left(row: Any) -> Left:
    return Left(int(row.total), int(row.seen), int(row.learning), int(row.review))


def folder_page(
    session: Session, *, learner: Learner, now: datetime, folder: str, page: int = 1
) -> FolderPage:
    """Page `page` of `folder` ('' for the content folder): counts in two statements."""
    assert learner.id is not None
    folder = folder.strip("/")
    prefix = f"{folder}/" if folder else ""
    relative = _relative(col(Deck.path))
    rest = func.substr(relative, len(prefix) + 1)
    slash = strpos(rest, "/")
    child = case((slash > 0, func.substr(rest, 1, slash - 1)), else_="").label("child")
    inside: ColumnElement[bool] = func.substr(relative, 1, len(prefix)) == prefix
    query, due = _counted(learner.id, child)
    query = query.add_columns(*_sums(due)).where(inside).group_by(child).order_by(child)
    params = _params(learner, now)
    groups = session.connection().execute(query, params).all()
    own = next((g for g in groups if g.child == ""), None)
    subfolders = sorted(
        (
            FolderRow(f"{prefix}{g.child}", g.child, int(g.decks), _left(g))
            for g in groups
            if g.child != ""
        ),
        key=lambda f: f.name.casefold(),
    )
    own_decks = int(own.decks) if own else 0
    items = len(subfolders) + own_decks
    pages = max(ceil(items / PAGE_SIZE), 1)
    page = min(max(page, 1), pages)
    start, stop = (page - 1) * PAGE_SIZE, page * PAGE_SIZE
    shown_folders = subfolders[start:stop]
    deck_rows: list[DeckRow] = []
    deck_start = max(start - len(subfolders), 0)
    deck_limit = PAGE_SIZE - len(shown_folders)
    if own_decks and deck_limit > 0 and deck_start < own_decks:
        listing, due = _counted(
            learner.id,
            Deck.slug,
            Deck.title,
            Deck.description,
            col(Deck.card_count).label("total"),
            func.coalesce(SeenCount.seen, 0).label("seen"),
        )
        listing = (
            listing.add_columns(
                func.coalesce(due.c.learning, 0).label("learning"),
                func.coalesce(due.c.review, 0).label("review"),
            )
            .where(inside, slash == 0)
            .order_by(col(Deck.path))
            .offset(deck_start)
            .limit(deck_limit)
        )
        deck_rows = [
            DeckRow(row.slug, row.title, row.description, _left(row))
            for row in session.connection().execute(listing, params)
        ]
    left = Left(
        sum(int(g.total) for g in groups),
        sum(int(g.seen) for g in groups),
        sum(int(g.learning) for g in groups),
        sum(int(g.review) for g in groups),
    )
    parts = folder.split("/") if folder else []
    crumbs = [(name, "/".join(parts[: i + 1])) for i, name in enumerate(parts[:-1])]
    return FolderPage(
        path=folder,
        name=parts[-1] if parts else "",
        crumbs=crumbs,
        decks=sum(int(g.decks) for g in groups),
        left=left,
        folders=shown_folders,
        deck_rows=deck_rows,
        page=page,
        pages=pages,
        items=items,
    )


@dataclass(frozen=True)
class TagCount:
    tag: str
    cards: int  # the active cards `?tag=` selects


@dataclass(frozen=True)
class TagList:
    shown: list[TagCount]
    more: int  # tags not shown


TAGS_SHOWN = 60


def tag_counts(session: Session, *, shown: int = TAGS_SHOWN) -> TagList:
    """The decks' tags by name, each with the cards `?tag=` selects, from grouped statements.

    A card carries its deck's tags and its section's name (app.content.bank.sync), so a tag also
    takes in a section of that name in a deck without the tag. Rows are distinct tag lists,
    not cards: a few per deck at most however many cards.
    """
    as_text = cast(Deck.tags, String)
    tags: set[str] = set()
    for text in session.exec(
        select(as_text).where(col(Deck.retired).is_(False), as_text != "[]").distinct()
    ):
        tags.update(json.loads(text))
    if not tags:
        return TagList([], 0)
    card_tags = cast(Card.tags, String)
    cards: dict[str, int] = dict.fromkeys(tags, 0)
    for text, count in session.exec(
        select(card_tags, func.count())
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.retired).is_(False), col(Deck.retired).is_(False), card_tags != "[]")
        .group_by(card_tags)
    ):
        for tag in set(json.loads(text)) & tags:
            cards[tag] += count
    ordered = sorted(tags, key=str.casefold)
    return TagList(
        [TagCount(tag, cards[tag]) for tag in ordered[:shown]], max(len(ordered) - shown, 0)
    )
