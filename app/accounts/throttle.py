"""Sign-in throttling: at most LIMIT password checks per key (account, address) per window.

Each attempt takes its place before its password is checked, in one upsert that counts and
answers at once: two attempts can never both see the fourth place free, whatever the number
of threads and processes. An attempt with the right password gives its place back.
"""

from datetime import datetime, timedelta

from sqlalchemy import case, delete, or_, update
from sqlmodel import Session, col

from app.infra.db import Database
from app.infra.models import LoginThrottle, table_of

WINDOW = timedelta(minutes=15)
LIMIT = 5


def account_key(name: str) -> str:
    return f"account:{name}"


def client_key(address: str) -> str:
    return f"client:{address}"


def take(session: Session, *, database: Database, key: str, now: datetime) -> bool:
    """Take one of `key`'s attempts in the window that holds `now`; False when none is left.

    The window starts at the first attempt after the last one ended, so no window of the
    counter ever holds more than LIMIT checks. A refused attempt is not counted.
    """
    table = table_of(LoginThrottle)
    ended = table.c.window_start <= now - WINDOW
    statement = (
        database.upsert(table)
        .values(key=key, window_start=now, attempts=1)
        .on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "attempts": case((ended, 1), else_=table.c.attempts + 1),
                "window_start": case((ended, now), else_=table.c.window_start),
            },
            where=or_(ended, table.c.attempts < LIMIT),
        )
        .returning(table.c.attempts)
    )
    with database.writing(session) as connection:
        taken = connection.execute(statement).first()
    return taken is not None


def give_back(session: Session, *, database: Database, key: str) -> None:
    """Return an attempt taken for a check that turned out right (or never ran)."""
    with database.writing(session) as connection:
        connection.execute(
            update(LoginThrottle)
            .where(col(LoginThrottle.key) == key, col(LoginThrottle.attempts) > 0)
            .values(attempts=col(LoginThrottle.attempts) - 1)
        )


def attempts(session: Session, *, key: str, now: datetime) -> int:
    """How many checks `key` has had in the current window."""
    row = session.get(LoginThrottle, key)
    if row is None:
        return 0
    return row.attempts if row.window_start > now - WINDOW else 0


def forget_ended(session: Session, *, database: Database, now: datetime) -> None:
    """Drop counters whose window has ended, so that the table stays small."""
    with database.writing(session) as connection:
        connection.execute(
            delete(LoginThrottle).where(col(LoginThrottle.window_start) <= now - WINDOW)
        )
