"""Services are handed the Database apart from the session: a mismatch is refused, not written.

A session written through another Database's `writing` would commit outside the writer lock of
the database that made it (on SQLite, racing its other writers); a plain Session has no
database at all.
"""

from collections.abc import Callable

import pytest
from sqlmodel import Session, select

from app.accounts import members
from app.infra.db import Database, WriteOutsidePath
from app.infra.models import Learner


@pytest.mark.storage
def test_a_session_is_written_only_through_its_own_database(
    database: Database, make_database_url: Callable[[str], str]
) -> None:
    other = Database.open(make_database_url("other"))
    try:
        other.upgrade()
        with database.session() as session:
            with pytest.raises(WriteOutsidePath):
                members.create_user(session, database=other, name="ann", password="x" * 12)
            members.create_user(session, database=database, name="bob", password="x" * 12)
        with Session(database.engine) as plain, pytest.raises(WriteOutsidePath):
            members.create_user(plain, database=database, name="cy", password="x" * 12)
        with database.session() as session:
            assert list(session.exec(select(Learner.name))) == ["bob"]
        with other.session() as session:
            assert list(session.exec(select(Learner.name))) == []
    finally:
        other.dispose()
