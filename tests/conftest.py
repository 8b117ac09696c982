"""Shared fixtures: a fresh database per test, content directories, settings and row factories."""

import functools
import gc
import itertools
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

# The suite starts hundreds of Python processes (servers and their workers, import workers,
# commands): where the machine asks for no bytecode (PYTHONDONTWRITEBYTECODE), each of them
# compiled the app and the tests again. Bytecode is written as Python writes it by default, into
# __pycache__ folders that git ignores; set before this file imports the app, and inherited by
# the xdist workers and every process the tests start.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

import httpx2 as httpx
import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from app.config import Settings, get_settings
from app.content.bank.sync import import_content
from app.infra.db import Database, database_of
from app.infra.models import Learner
from tests.support import examples, http
from tests.support.content_files import DRILL_CARDS, WriteContent, write_files
from tests.support.live_server import LiveServer, free_port
from tests.support.pgschemas import POSTGRES_URL, PostgresSchemas, compact_catalogs
from tests.support.statements import share_compiled_statements
from tests.support.templates import Templates

# TestClient addresses every request to http://testserver; the host guard must let it through.
# Real servers started by the tests are reached at 127.0.0.1 and get the default list.
os.environ["QBANK_ALLOWED_HOSTS"] = "127.0.0.1,localhost,[::1],testserver"

# The tests' engines compile each statement once, as a server's one engine does.
share_compiled_statements()


# The pytest-xdist worker running this process (gw0, gw1, …), or main without -n.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


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


def pytest_configure(config: pytest.Config) -> None:
    """Property tests try the `suite` profile's examples unless `--hypothesis-profile` says."""
    examples.load(config.getoption("hypothesis_profile", None))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compact the PostgreSQL test database's catalogs once a run, before any worker starts."""
    if hasattr(session.config, "workerinput") or postgres_problem():
        return
    compact_catalogs(POSTGRES_URL)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked `slow` first, each where it was among them.

    A worker that takes one of them last runs it alone while the others have finished.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave the modules and collected tests out of the garbage collector's full collections.

    A worker holds near a million objects once it has imported the app and collected the
    suite; every full collection walked them all, about a second each, dozens of times a run.
    Frozen, they are never collected (they live as long as the worker anyway).

    Every app lifespan that ends thaws them again (`gc.unfreeze()` thaws all), and each full
    collection after it walks them all once more: the oldest generation is collected a tenth
    as often, for a little more memory held as garbage between collections.
    """
    gc.collect()
    gc.freeze()
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, full * 10)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave the process's heap out of the collections that would only walk it on the way out.

    A worker ends holding more than a million objects, thawed by the apps' lifespans
    (`gc.unfreeze()` thaws all, the suite's own freeze included). pytest's last check for
    unraisable exceptions, its clean-up and the interpreter's exit each made a full collection
    of all of them, about ten seconds on one core after the last test, with the other idle. The
    young generations, where the last tests' garbage is, are still collected, so its unraisable
    exceptions are still reported.
    """
    gc.collect(1)
    gc.freeze()


BOTH_BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run tests marked `storage` on SQLite and PostgreSQL, other database tests on SQLite.

    A test that parametrizes `backend` itself (one backend only) is left as it is.
    """
    if "backend" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if "backend" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return
    storage = metafunc.definition.get_closest_marker("storage") is not None
    metafunc.parametrize("backend", BOTH_BACKENDS if storage else ["sqlite"], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The test's database: SQLite, and PostgreSQL as well for tests marked `storage`."""
    if request.param == "postgresql" and (problem := postgres_problem()):
        pytest.skip(problem)
    return request.param


_open_database = Database.__init__


def _recorded(opened: list[Database]) -> Callable[..., None]:
    def init(self: Database, *args: Any, **kwargs: Any) -> None:
        _open_database(self, *args, **kwargs)
        opened.append(self)

    return init


@pytest.fixture
def make_database_url(
    backend: str, tmp_path: Path, templates: Templates, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], str]]:
    """Factory for empty databases of the test's backend: a file, or a PostgreSQL schema."""
    made: list[str] = []
    # What the test opened (apps, commands) is closed with its databases, as a process exiting
    # would: a pool left to the garbage collector warns about its open connections.
    opened: list[Database] = []
    monkeypatch.setattr(Database, "__init__", _recorded(opened))

    def make(name: str = "test") -> str:
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / f'{name}.db'}"
        else:
            url = templates.postgres.new()
        made.append(url)
        return url

    yield make
    for database in opened:
        database.dispose()
    if backend != "sqlite":
        for url in made:
            templates.postgres.release(url)


@pytest.fixture
def database_url(make_database_url: Callable[[str], str]) -> str:
    return make_database_url("test")


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    """Databases built once in this process, copied into tests' SQLite files and schemas."""
    postgres = PostgresSchemas(POSTGRES_URL, WORKER)  # connects on first use only
    yield Templates(tmp_path_factory.mktemp("templates"), postgres)
    postgres.close()


@pytest.fixture
def database(database_url: str, templates: Templates) -> Iterator[Database]:
    """A fresh database (SQLite file or PostgreSQL schema) with every table created, no rows."""
    templates.schema(database_url)
    database = Database.open(database_url)
    database.upgrade()  # creates the tables on PostgreSQL; finds them current in a copy
    yield database
    database.dispose()


# The bank that ships with qbank (content/ at the repository's root).
BUNDLED = Path(__file__).resolve().parent.parent / "content"


@pytest.fixture
def bundled_database_url(make_database_url: Callable[[str], str], templates: Templates) -> str:
    """A fresh database holding the bundled bank, imported once per process and copied per test
    (importing it renders every formula: seconds each time)."""
    url = make_database_url("bundled")
    if not templates.bank(url, BUNDLED):
        database = Database.open(url)
        try:
            database.upgrade()
            import_content(BUNDLED, database)
        finally:
            database.dispose()
    return url


@pytest.fixture
def bundled_database(bundled_database_url: str) -> Iterator[Database]:
    """The Database of `bundled_database_url`."""
    database = Database.open(bundled_database_url)
    database.upgrade()  # finds the copy current
    yield database
    database.dispose()


@pytest.fixture
def engine(database: Database) -> Engine:
    """The test database's engine, for reads (writes go through `database.writing`)."""
    return database.engine


@pytest.fixture
def session(database: Database) -> Iterator[Session]:
    with database.session() as session:
        yield session


@pytest.fixture
def content_dir(tmp_path: Path) -> Path:
    """The content root used by `write_content`; it starts out empty."""
    return tmp_path / "content"


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
        with database_of(session).writing(session):
            session.add(learner)
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


@pytest.fixture
def drill_dir(write_content: WriteContent) -> Path:
    """A content directory with one numbered deck of 24 short cards, q01 … q24, in that order."""
    lines = ["---", "title: Drill", "slug: drill", "language: en", "style: numbered", "---", ""]
    for n in range(1, DRILL_CARDS + 1):
        lines += [f"## {n}. Question {n} {{#q{n:02d}}}", "", f"**Answer.** Answer {n}.", ""]
    return write_content({"decks/drill.md": "\n".join(lines)})


SERVER_START_SECONDS = 120


@pytest.fixture
def live_server(
    tmp_path: Path, make_database_url: Callable[[str], str]
) -> Iterator[Callable[..., LiveServer]]:
    """Factory: `live_server(database_url, content_dir, workers=1)` starts `qbank serve`.

    `command` runs another `qbank` (an installed one) in place of this checkout's, `args` are
    added to `qbank serve`'s, and `env` adds variables to the server's environment.

    It returns once /healthz answers. Every server is killed at teardown, before the test's
    databases are dropped (hence the dependency on make_database_url).
    """
    started: list[LiveServer] = []

    def start(
        database_url: str,
        content_dir: Path,
        workers: int = 1,
        command: list[str] | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> LiveServer:
        port = free_port()
        environment = {k: v for k, v in os.environ.items() if not k.startswith("QBANK_")}
        environment |= {"QBANK_DATABASE_URL": database_url, "QBANK_CONTENT_DIR": str(content_dir)}
        environment |= env or {}
        log = tmp_path / f"server-{port}.log"
        command = command or [sys.executable, "-c", "from app.cli import main; main()"]
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*command, "serve", "--port", str(port), "--workers", str(workers), *args],
                cwd=tmp_path,  # away from any .env in the project
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so killpg reaches the workers
            )
        server = LiveServer(process, f"http://127.0.0.1:{port}", log)
        started.append(server)
        # A bound for a server that never comes up, not a speed to meet: on a loaded machine,
        # with other tests running beside it, each worker process takes many seconds to start.
        deadline = time.monotonic() + SERVER_START_SECONDS
        with http.client(server.url, timeout=2) as client:
            while True:
                if process.poll() is not None:
                    pytest.fail(f"qbank serve exited with {process.returncode}:\n{server.output()}")
                try:
                    if client.get("/healthz").status_code == 200:
                        return server
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    server.kill()
                    pytest.fail(
                        f"qbank serve did not answer /healthz in {SERVER_START_SECONDS} s:\n"
                        f"{server.output()}"
                    )
                time.sleep(0.1)

    yield start
    for server in started:
        server.kill()


@pytest.fixture
def settings_database(settings: Settings) -> Iterator[Database]:
    """The Database of `settings`, its schema up to date, as a command opens it."""
    database = Database.open(settings.database_url)
    database.upgrade()
    yield database
    database.dispose()
