"""Opening a bank from a test, as a command would: its own Database, disposed of after."""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlmodel import Session

from app.config import Settings
from app.infra.db import Database, database_of


@contextmanager
def bank_session(settings: Settings) -> Iterator[Session]:
    """A session of the bank of `settings` (schema brought up to date), closed with its Database."""
    database = Database.open(settings.database_url)
    try:
        database.upgrade()
        with database.session() as session:
            yield session
    finally:
        database.dispose()


def commit(session: Session) -> None:
    """Write what the test added to or changed in `session`, through the bank's write path."""
    with database_of(session).writing(session):
        pass
