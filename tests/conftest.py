"""Shared fixtures: a fresh database per test, content directories, settings and row factories."""

import functools
import itertools
import os
import textwrap
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from app.config import Settings, get_settings
from app.db import create_schema, make_engine
from app.models import Learner

WriteContent = Callable[[Mapping[str, str | None]], Path]


POSTGRES_URL = os.environ.get(
    "QBANK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def postgres_execute(sql: str) -> None:
    """Run one statement on the PostgreSQL test database, holding no connection afterwards."""
    admin = create_engine(POSTGRES_URL, poolclass=NullPool, connect_args={"connect_timeout": 3})
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(sql)
    finally:
        admin.dispose()


@functools.cache
def postgres_problem() -> str | None:
    """Why the PostgreSQL pass cannot run here, or None when it can."""
    try:
        postgres_execute("SELECT 1")
    except Exception as exc:
        return (
            f"PostgreSQL not reachable at {POSTGRES_URL} ({type(exc).__name__}); "
            "start it or point QBANK_TEST_POSTGRES_URL at one"
        )
    return None


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """Every database test runs twice: on SQLite and on PostgreSQL."""
    if request.param == "postgresql" and (problem := postgres_problem()):
        pytest.skip(problem)
    return request.param


@pytest.fixture
def make_database_url(backend: str, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Factory for empty databases of the test's backend: a file, or a PostgreSQL schema."""
    from app.bank import close_engine

    made: list[tuple[str, str | None]] = []

    def make(name: str = "test") -> str:
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / f'{name}.db'}"
            made.append((url, None))
            return url
        schema = f"t_{uuid.uuid4().hex[:16]}"
        postgres_execute(f"CREATE SCHEMA {schema}")
        made.append((url := f"{POSTGRES_URL}?options=-csearch_path%3D{schema}", schema))
        return url

    yield make
    for url, schema in made:
        close_engine(url)
        if schema:
            postgres_execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def database_url(make_database_url: Callable[[str], str]) -> str:
    return make_database_url("test")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A fresh database (SQLite file or PostgreSQL schema) with every table created."""
    engine = make_engine(database_url)
    create_schema(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


@pytest.fixture
def content_dir(tmp_path: Path) -> Path:
    """The content root used by `write_content`; it starts out empty."""
    return tmp_path / "content"


def write_files(root: Path, files: Mapping[str, str | None]) -> Path:
    """Write (dedented) `files` under `root`; a value of None deletes that file."""
    for rel, text in files.items():
        target = root / rel
        if text is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def write_content(content_dir: Path) -> WriteContent:
    """Write files into the test's content directory and return its root.

    `write_content({"decks/a.md": "...", "topics/old.md": None})` creates or replaces
    `decks/a.md` and deletes `topics/old.md`; call it again to edit the content.
    """
    content_dir.mkdir(parents=True, exist_ok=True)
    return lambda files: write_files(content_dir, files)


@pytest.fixture
def make_learner(session: Session) -> Callable[..., Learner]:
    """Factory: `make_learner(name="ana")` inserts and returns a Learner (name optional)."""
    counter = itertools.count(1)

    def make(**fields: object) -> Learner:
        fields.setdefault("name", f"learner-{next(counter)}")
        learner = Learner(**fields)  # type: ignore[arg-type]
        session.add(learner)
        session.commit()
        session.refresh(learner)
        return learner

    return make


@pytest.fixture
def settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_database_url: Callable[[str], str]
) -> Iterator[Settings]:
    """Settings pointing at a fresh database and a content directory inside tmp_path."""
    monkeypatch.setenv("QBANK_DATABASE_URL", make_database_url("settings"))
    monkeypatch.setenv("QBANK_CONTENT_DIR", str(tmp_path / "content"))
    get_settings.cache_clear()
    settings = get_settings()
    yield settings
    get_settings.cache_clear()
