"""Team-mode fixtures: a small bank, three accounts, a clock, and browsers that sign in."""

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.accounts import members
from app.content.bank.sync import import_content
from app.infra.models import Learner
from tests.support import apps
from tests.support.team import BANK, PASSWORDS, Browser, Clock, Db, same_database, team_settings
from tests.support.templates import Templates


@pytest.fixture(autouse=True)
def fast_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Still argon2id, at the lowest cost: the real cost (~0.2 s a hash) would dominate."""
    monkeypatch.setattr(
        members, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    """Two decks (gpu: kernel, fusion, gemm; notes: paged, kv) and the topic Kernel Fusion."""
    return write_content(BANK)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_app(database_url: str, bank_dir: Path, clock: Clock) -> Iterator[Callable[..., FastAPI]]:
    """Factory: a team-mode app over the test's database, seeing `clock`'s time.

    Keyword arguments are settings; `second=True` gives the app its own engine, as a second
    server process over the same database would have.
    """
    made: list[FastAPI] = []

    def make(*, second: bool = False, **overrides: Any) -> FastAPI:
        url = same_database(database_url) if second else database_url
        app = apps.take(team_settings(url, bank_dir, **overrides))
        app.state.database.upgrade()  # before its lifespan: the tests write to it first
        app.state.clock = lambda: clock.now
        made.append(app)
        return app

    yield make
    for app in made:
        app.state.database.dispose()
        apps.give_back(app)


@pytest.fixture
def app(
    make_app: Callable[..., FastAPI], database_url: str, bank_dir: Path, templates: Templates
) -> FastAPI:
    """The team app over a fresh database holding the imported bank."""
    copied = templates.bank(database_url, bank_dir)
    app = make_app()
    if not copied:
        import_content(bank_dir, app.state.database)
    return app


@pytest.fixture
def users(app: FastAPI) -> dict[str, Learner]:
    """admin (an administrator), member and other (members), each with PASSWORDS[name]."""
    made = {}
    for name, password in PASSWORDS.items():
        with app.state.database.session() as session:
            made[name] = members.create_user(
                session,
                name=name,
                password=password,
                is_admin=name == "admin",
                database=app.state.database,
            )
    return made


@pytest.fixture
def api_token(app: FastAPI, users: dict[str, Learner], clock: Clock) -> Callable[..., str]:
    """Factory: `api_token("member")` creates a personal API token and returns it."""

    def make(name: str, label: str = "script") -> str:
        with app.state.database.session() as session:
            learner = members.get_user(session, name)
            return members.create_api_token(
                session, learner=learner, name=label, now=clock.now, database=app.state.database
            )

    return make


@pytest.fixture
def browser(app: FastAPI, users: dict[str, Learner]) -> Iterator[Callable[..., Browser]]:
    """Factory: `browser("member")` is a fresh client signed in as member; `browser()` is nobody.

    Keyword arguments go to TestClient (`app=`, `base_url=`, `client=`); redirects are not
    followed, so that 303s can be asserted.
    """
    with ExitStack() as stack:

        def make(name: str | None = None, *, app: FastAPI = app, **kwargs: Any) -> Browser:
            kwargs.setdefault("headers", {"Accept-Language": "en"})
            client = stack.enter_context(TestClient(app, follow_redirects=False, **kwargs))
            result = Browser(client)
            if name:
                result.sign_in(name)
            return result

        yield make


@pytest.fixture
def bearer(app: FastAPI) -> Iterator[Callable[..., TestClient]]:
    """Factory: a client without cookies that sends `Authorization: Bearer <token>`."""
    with ExitStack() as stack:

        def make(token: str, *, app: FastAPI = app) -> TestClient:
            headers = {"Authorization": f"Bearer {token}", "Accept-Language": "en"}
            return stack.enter_context(TestClient(app, follow_redirects=False, headers=headers))

        yield make


@pytest.fixture
def db(app: FastAPI) -> Db:
    return Db(app.state.database)
