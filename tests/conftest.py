"""Shared fixtures: a fresh database per test, content directories, settings and row factories."""

import itertools
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.config import Settings, get_settings
from app.db import create_schema, make_engine
from app.models import Learner

WriteContent = Callable[[Mapping[str, str | None]], Path]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A fresh SQLite database file with every table created."""
    engine = make_engine(f"sqlite:///{tmp_path / 'test.db'}")
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
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings pointing at a database and content directory inside tmp_path."""
    monkeypatch.setenv("QBANK_DATABASE_URL", f"sqlite:///{tmp_path / 'settings.db'}")
    monkeypatch.setenv("QBANK_CONTENT_DIR", str(tmp_path / "content"))
    get_settings.cache_clear()
    settings = get_settings()
    yield settings
    get_settings.cache_clear()
    from app.bank import open_engine

    # open_engine caches one engine per URL; close its connections before tmp_path goes.
    open_engine(settings).dispose()
