"""A learner's own marks on cards: suspend, bury, flag, and leeches caught from their lapses."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import Any

from sqlalchemy import bindparam, or_, select
from sqlmodel import Session, col

from app.errors import Invalid, NotFound
from app.infra.db import Database
from app.infra.models import Card, CardMark, Learner, table_of
from app.scheduling.studyday import study_day


class Flag(StrEnum):
    """Anki's flag colours, in its order: flag n (1-7) is the n-th; 0 is no flag."""

    RED = "red"
    ORANGE = "orange"
    GREEN = "green"
    BLUE = "blue"
    PINK = "pink"
    TURQUOISE = "turquoise"
    PURPLE = "purple"

    @property
    def number(self) -> int:
        return FLAGS.index(self) + 1

    @classmethod
    def of(cls, number: int) -> "Flag | None":
        """The colour of flag `number`; None for 0, no flag."""
        return FLAGS[number - 1] if number else None


FLAGS = tuple(Flag)


class LeechAction(StrEnum):
    """What happens to a card that becomes a leech: suspended, or only marked (tagged)."""

    SUSPEND = "suspend"
    TAG = "tag"


@dataclass(frozen=True)
class Mark:
    card_id: str
    suspended: bool = False
    buried_until: datetime | None = None
    flag: int = 0
    leech: bool = False

    def buried(self, now: datetime) -> bool:
        return self.buried_until is not None and self.buried_until > now

    def held(self, now: datetime) -> bool:
        """Whether the card is out of study and practice at `now`."""
        return self.suspended or self.buried(now)

    @classmethod
    def from_row(cls, row: Any) -> "Mark":
        return cls(row.card_id, row.suspended, row.buried_until, row.flag, row.leech)


def held_cards(learner_id: Any, now: Any) -> Any:
    """Ids of the cards the learner has suspended, or buried past `now` (values or bindparams).

    Few per learner, read along card_mark's primary key, which starts with the learner.
    """
    return select(col(CardMark.card_id)).where(
        col(CardMark.learner_id) == learner_id,
        or_(col(CardMark.suspended).is_(True), col(CardMark.buried_until) > now),
    )


# What `Mark.from_row` reads.
MARK_COLUMNS = (
    col(CardMark.card_id),
    col(CardMark.suspended),
    col(CardMark.buried_until),
    col(CardMark.flag),
    col(CardMark.leech),
)


@cache
def _mark_statement() -> Any:
    return select(*MARK_COLUMNS).where(
        col(CardMark.learner_id) == bindparam("learner_id"),
        col(CardMark.card_id) == bindparam("card"),
    )


def get_mark(session: Session, *, learner: Learner, card_id: str) -> Mark:
    """The learner's marks on the card (none when they never marked it)."""
    params = {"learner_id": learner.id, "card": card_id}
    row = session.connection().execute(_mark_statement(), params).first()
    return Mark.from_row(row) if row is not None else Mark(card_id)


def upsert_marks(database: Database, keys: dict[str, Any], values: dict[str, Any]) -> Any:
    """Set `values` on the learner's marks of a card (`keys`), creating the row if need be."""
    return (
        database.upsert(table_of(CardMark))
        .values(**keys, **values)
        .on_conflict_do_update(index_elements=list(keys), set_=values)
    )


def learner_marks(session: Session, *, learner: Learner) -> dict[str, Mark]:
    """Every mark the learner has set, by card id."""
    rows = session.scalars(select(CardMark).where(col(CardMark.learner_id) == learner.id))
    return {row.card_id: Mark.from_row(row) for row in rows}


def _write(
    database: Database,
    session: Session,
    learner: Learner,
    card_id: str,
    now: datetime,
    **values: Any,
) -> Mark:
    """Set some of the learner's marks on an existing card, leaving the others as they are."""
    with database.writing(session) as connection:
        if connection.execute(select(col(Card.id)).where(col(Card.id) == card_id)).first() is None:
            raise NotFound("card_not_found", card=card_id)
        keys = {"learner_id": learner.id, "card_id": card_id}
        connection.execute(upsert_marks(database, keys, {**values, "updated_at": now}))
    return get_mark(session, learner=learner, card_id=card_id)


def suspend(
    session: Session, *, database: Database, learner: Learner, card_id: str, now: datetime
) -> Mark:
    """Take the card out of study and practice until it is unsuspended."""
    return _write(database, session, learner, card_id, now, suspended=True)


def unsuspend(
    session: Session, *, database: Database, learner: Learner, card_id: str, now: datetime
) -> Mark:
    return _write(database, session, learner, card_id, now, suspended=False)


def bury(
    session: Session, *, database: Database, learner: Learner, card_id: str, now: datetime
) -> Mark:
    """Take the card out of study until the learner's next study day begins."""
    _, next_day = study_day(learner, now)
    return _write(database, session, learner, card_id, now, buried_until=next_day)


def unbury(
    session: Session, *, database: Database, learner: Learner, card_id: str, now: datetime
) -> Mark:
    return _write(database, session, learner, card_id, now, buried_until=None)


def set_flag(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    card_id: str,
    flag: int,
    now: datetime,
) -> Mark:
    """Flag the card with colour `flag` (1-7, see Flag), or clear its flag (0)."""
    if not 0 <= flag <= len(FLAGS):
        raise Invalid("flag_out_of_range", count=len(FLAGS))
    return _write(database, session, learner, card_id, now, flag=flag)


def unleech(
    session: Session, *, database: Database, learner: Learner, card_id: str, now: datetime
) -> Mark:
    """Clear the leech mark (after rewriting the card), and let it be studied again."""
    return _write(database, session, learner, card_id, now, leech=False, suspended=False)


def releech(
    session: Session,
    *,
    database: Database,
    learner: Learner,
    card_id: str,
    suspended: bool,
    now: datetime,
) -> Mark:
    """Mark the card a leech again, suspended or not (what clearing its mark undoes)."""
    return _write(database, session, learner, card_id, now, leech=True, suspended=suspended)


def leech_hit(lapses: int, threshold: int) -> bool:
    """Whether reaching `lapses` marks a leech: at the threshold, then every half threshold."""
    if threshold <= 0 or lapses < threshold:
        return False
    return (lapses - threshold) % max(threshold // 2, 1) == 0


def leech_values(learner: Learner, lapses: int) -> dict[str, Any] | None:
    """The marks a lapse to `lapses` sets, or None when it is no leech warning."""
    if not leech_hit(lapses, learner.leech_threshold):
        return None
    values: dict[str, Any] = {"leech": True}
    if learner.leech_action == LeechAction.SUSPEND:
        values["suspended"] = True
    return values


def undone_leech_values(learner: Learner, before: int, after: int) -> dict[str, Any] | None:
    """The marks to restore when a rating that lapsed from `before` to `after` is undone."""
    if after <= before or not leech_hit(after, learner.leech_threshold):
        return None
    values: dict[str, Any] = {"leech": before >= learner.leech_threshold}
    if learner.leech_action == LeechAction.SUSPEND:
        values["suspended"] = False
    return values
