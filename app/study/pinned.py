"""The cards another feature asks the study queue to serve first today, as a protocol.

The study queue knows nothing of interviews: the app hands it an object that names today's
pinned card (`next_pinned`, a read) and makes the day's plan on the write side (`refresh`,
after a rating).
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from sqlmodel import Session

from app.infra.db import Database
from app.infra.models import Learner
from app.study.filters import Filters


class PinnedCards(Protocol):
    def next_pinned(
        self,
        session: Session,
        *,
        learner: Learner,
        now: datetime,
        filters: Filters,
        exclude: Sequence[str] = (),
    ) -> str | None:
        """Today's first pinned card in scope not studied today; reads only."""
        ...

    def refresh(
        self, session: Session, *, database: Database, learner: Learner, now: datetime
    ) -> None:
        """Make today's pins again if what they are made from changed; may write."""
        ...


class NoPins:
    """No feature pins cards: the queue's own order."""

    def next_pinned(
        self,
        session: Session,
        *,
        learner: Learner,
        now: datetime,
        filters: Filters,
        exclude: Sequence[str] = (),
    ) -> str | None:
        return None

    def refresh(
        self, session: Session, *, database: Database, learner: Learner, now: datetime
    ) -> None:
        return None


NO_PINS = NoPins()
