"""Web fixtures: a small bank imported into a fresh SQLite file, the app over it, and a clock."""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import col, select

from app.accounts import learners
from app.accounts.settings import LearnerSettings
from app.config import Settings
from app.content.bank.sync import import_content
from app.infra.db import Database
from app.infra.models import CardState, Learner, PracticeSession, ReviewLog
from app.study import get_learner
from tests.support import apps
from tests.support.banks import commit
from tests.support.pages import Element, element
from tests.support.templates import Templates
from tests.support.web_bank import KERNELS_DECK, NOTES_DECK, START, TOPICS, Clock


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    """Two decks (question and numbered style) and three topics.

    Content order (deck path, then position): gemm-core, roofline, kv-cache | fusion, paged.
    """
    return write_content(
        {"decks/a-kernels.md": KERNELS_DECK, "decks/b-notes.md": NOTES_DECK, **TOPICS}
    )


@pytest.fixture
def app(database_url: str, bank_dir: Path, templates: Templates) -> Iterator[FastAPI]:
    """The app over a fresh database (SQLite or PostgreSQL) holding the imported bank."""
    copied = templates.bank(database_url, bank_dir)
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=bank_dir,
        learner_name="local",
        timezone="UTC",
    )
    app = apps.take(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    if not copied:
        import_content(bank_dir, app.state.database)
    yield app
    apps.give_back(app)


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    clock = Clock(START)
    app.state.clock = lambda: clock.now
    return clock


@pytest.fixture
def client(app: FastAPI, clock: Clock) -> Iterator[TestClient]:
    """An English-speaking browser that does not follow redirects, so 303s can be asserted."""
    with TestClient(app, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client


class Bank:
    """Direct reads and small factories over the app's database, one short session each."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.engine = database.engine

    def learner(self, name: str = "local") -> Learner:
        with self.database.session() as session:
            return get_learner(session, name)

    def state(self, card_id: str, learner: str = "local") -> CardState | None:
        with self.database.session() as session:
            return session.get(CardState, (self.learner(learner).id, card_id))

    def states(self) -> list[CardState]:
        with self.database.session() as session:
            return list(session.exec(select(CardState)))

    def logs(self) -> list[ReviewLog]:
        with self.database.session() as session:
            return list(session.exec(select(ReviewLog).order_by(col(ReviewLog.id))))

    def configure(self, learner: str = "local", **changes: Any) -> Learner:
        """Change some study settings through app.accounts.learners.update_settings."""
        with self.database.session() as session:
            row = get_learner(session, learner)
            values = LearnerSettings.of(row).columns() | changes
            settings = LearnerSettings.model_validate(values)
            return learners.update_settings(
                session, learner=row, settings=settings, database=self.database
            )

    def make_learner(self, name: str, **fields: Any) -> Learner:
        with self.database.session() as session:
            row = Learner(name=name, **fields)
            session.add(row)
            commit(session)
            session.refresh(row)
            return row

    def make_practice(self, learner: Learner, card_ids: list[str]) -> PracticeSession:
        with self.database.session() as session:
            run = PracticeSession(learner_id=learner.id, card_ids=card_ids, started_at=START)
            session.add(run)
            commit(session)
            session.refresh(run)
            return run


@pytest.fixture
def bank(app: FastAPI) -> Bank:
    return Bank(app.state.database)


@pytest.fixture
def find() -> Callable[[str, str], Element | None]:
    """`find(html, id)`: the element with that id, for assertions on hidden parts and text."""
    return element
