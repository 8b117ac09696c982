"""The study loop for one learner in one request: next card, rating, undo and card actions.

Routes are thin adapters over a `Study`: it is handed the database, the request's session, the
learner, the clock and the cards another feature pins, so a request uses one session and each
change is one write transaction.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlmodel import Session

from app.infra.db import Database
from app.infra.models import Learner
from app.study import marks
from app.study.filters import Filters
from app.study.marks import Mark
from app.study.pinned import NO_PINS, PinnedCards
from app.study.queue import Counts, NextCard, study_next
from app.study.reviews import ReviewResult, UndoResult, record_review, undo_last


class CardAction(StrEnum):
    SUSPEND = "suspend"
    UNSUSPEND = "unsuspend"
    BURY = "bury"
    UNBURY = "unbury"
    UNLEECH = "unleech"
    LEECH = "leech"
    FLAG = "flag"


@dataclass(frozen=True)
class UndoAction:
    """The card action that puts the card's marks back as they were before another one."""

    card_id: str
    action: CardAction
    body: dict[str, int | bool] | None = None


@dataclass(frozen=True)
class Acted:
    before: Mark
    after: Mark
    undo: UndoAction


@dataclass(frozen=True)
class Next:
    card: NextCard | None  # None: nothing is due in the scope
    counts: Counts


@dataclass(frozen=True)
class Day:
    cards: list[NextCard]  # in the order the learner meets them
    counts: Counts  # what is left today, these cards included


@dataclass(frozen=True)
class Rated:
    review: ReviewResult
    next: Next | None  # asked for with a scope


@dataclass
class Study:
    """One learner's study loop within one request, on the request's session."""

    database: Database
    session: Session
    learner: Learner
    now: datetime
    pins: PinnedCards = field(default=NO_PINS)

    def next(self, scope: Filters, exclude: Sequence[str] = (), pinned: str | None = None) -> Next:
        """The card to study next in `scope` after the `exclude`d ones, in one read transaction."""
        try:
            card, counts = study_next(
                self.session,
                learner=self.learner,
                now=self.now,
                filters=scope,
                exclude=exclude,
                pinned=pinned,
                pins=self.pins,
            )
        finally:
            self.database.end_read(self.session)
        return Next(card, counts)

    def day(self, scope: Filters, limit: int) -> Day:
        """Today's queue in `scope`, at most `limit` cards, in one read transaction.

        Each card is the one `next` picks with the cards before it held, so the list keeps to
        the daily limits and to the order of study: what a client takes along to study offline.
        """
        cards: list[NextCard] = []
        held: list[str] = []
        counts: Counts | None = None
        try:
            while len(cards) < limit:
                card, left = study_next(
                    self.session,
                    learner=self.learner,
                    now=self.now,
                    filters=scope,
                    exclude=held,
                    pins=self.pins,
                )
                counts = counts or left
                if card is None or card.card.id in held:
                    break
                cards.append(card)
                held.append(card.card.id)
        finally:
            self.database.end_read(self.session)
        assert counts is not None  # the loop ran at least once
        return Day(cards, counts)

    def rate(
        self,
        card_id: str,
        rating: int,
        version: int | None,
        key: str | None,
        *,
        duration_ms: int | None = None,
        reviewed_at: datetime | None = None,
        scope: Filters | None = None,
        exclude: Sequence[str] = (),
    ) -> Rated:
        """Rate a card in one write transaction; then, given a `scope`, read its next card."""
        review = record_review(
            self.session,
            learner=self.learner,
            card_id=card_id,
            rating=rating,
            now=self.now,
            duration_ms=duration_ms,
            expected_version=version,
            idempotency_key=key,
            reviewed_at=reviewed_at,
            database=self.database,
        )
        if not review.replayed:
            # The day's first rating makes the day's pins; a later one after a change.
            self.pins.refresh(
                self.session, database=self.database, learner=self.learner, now=self.now
            )
        return Rated(review, self.next(scope, exclude) if scope is not None else None)

    def undo(self, card_id: str | None = None, key: str | None = None) -> UndoResult:
        """Undo the learner's last live study rating (of `card_id`, if given)."""
        return undo_last(
            self.session,
            learner=self.learner,
            now=self.now,
            card_id=card_id,
            idempotency_key=key,
            database=self.database,
        )

    def act(
        self, card_id: str, action: CardAction, *, flag: int = 0, suspended: bool = True
    ) -> Acted:
        """Apply a card action; the marks before and after, and the action that undoes it."""
        before = marks.get_mark(self.session, learner=self.learner, card_id=card_id)
        args: dict[str, Any] = {
            "database": self.database,
            "learner": self.learner,
            "card_id": card_id,
            "now": self.now,
        }
        if action is CardAction.FLAG:
            after = marks.set_flag(self.session, flag=flag, **args)
        elif action is CardAction.LEECH:
            after = marks.releech(self.session, suspended=suspended, **args)
        else:
            after = _MARKING[action](self.session, **args)
        return Acted(before, after, undo_of(before, action, self.now))


_MARKING = {
    CardAction.SUSPEND: marks.suspend,
    CardAction.UNSUSPEND: marks.unsuspend,
    CardAction.BURY: marks.bury,
    CardAction.UNBURY: marks.unbury,
    CardAction.UNLEECH: marks.unleech,
}


def undo_of(before: Mark, action: CardAction, now: datetime) -> UndoAction:
    """The action that restores the marks `before` after `action`."""
    card = before.card_id
    if action in (CardAction.SUSPEND, CardAction.UNSUSPEND):
        return UndoAction(card, CardAction.SUSPEND if before.suspended else CardAction.UNSUSPEND)
    if action in (CardAction.BURY, CardAction.UNBURY):
        return UndoAction(card, CardAction.BURY if before.buried(now) else CardAction.UNBURY)
    if action in (CardAction.UNLEECH, CardAction.LEECH):
        if before.leech:
            # A leech is put back as it was: marked, and suspended if it was.
            return UndoAction(card, CardAction.LEECH, {"suspended": before.suspended})
        if action is CardAction.LEECH:
            return UndoAction(card, CardAction.UNLEECH)
        return UndoAction(card, CardAction.SUSPEND if before.suspended else CardAction.UNSUSPEND)
    return UndoAction(card, CardAction.FLAG, {"flag": before.flag})
