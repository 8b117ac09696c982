"""Engines: a pooled PostgreSQL connection that the server dropped is replaced before use."""

import gc
import os
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from app.infra import db

pytestmark = pytest.mark.storage


def backend_pid(engine: Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(text("SELECT pg_backend_pid()")).scalar_one()


# SQLite connections are files, never dropped by a server.
@pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_a_dropped_idle_connection_is_replaced(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = backend_pid(engine)  # now idle in the pool
    admin = create_engine(engine.url, poolclass=NullPool)  # not through the pool under test
    with admin.begin() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
    admin.dispose()
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)
    # Without the test on checkout, this would fail with "terminating connection".
    assert backend_pid(engine) != first


def _autocheckpoint(engine: Engine) -> int:
    with engine.connect() as connection:
        return connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one()


def _wal_frames(engine: Engine) -> int:
    """Frames in the write-ahead log not yet copied to the database file (checkpoints nothing)."""
    with engine.connect() as connection:
        return connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()[1]


def test_the_wal_is_checkpointed_in_the_background_not_by_commits(tmp_path, monkeypatch):
    monkeypatch.setattr(db, "CHECKPOINT_SECONDS", 3600.0)  # only the last one, on stopping
    engine = db.make_engine(f"sqlite:///{tmp_path / 'wal.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x TEXT)")
    assert _autocheckpoint(engine) == 1000  # SQLite's own default until the thread runs
    stop = db.checkpoint_in_background(engine)
    try:
        assert _autocheckpoint(engine) == 0
        for _ in range(30):  # well past 1,000 pages: a commit would have checkpointed
            with engine.begin() as connection:
                connection.exec_driver_sql(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)"
                    " INSERT INTO t SELECT hex(randomblob(2000)) FROM n"
                )
        wal = tmp_path / "wal.db-wal"
        assert wal.stat().st_size > 1000 * 4096
    finally:
        stop()
    # The last checkpoint copied everything, and RESTART lets the next writer reuse the log.
    assert _autocheckpoint(engine) == 1000
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO t VALUES ('after')")
        assert connection.exec_driver_sql("SELECT count(*) FROM t").scalar_one() == 1501
    assert _wal_frames(engine) <= 2
    engine.dispose()


def test_the_server_checkpoints_in_the_background_while_it_runs(tmp_path):
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    url = f"sqlite:///{tmp_path / 'served.db'}"
    app = create_app(Settings(_env_file=None, database_url=url))  # type: ignore[call-arg]
    try:
        with TestClient(app):
            assert _autocheckpoint(app.state.database.engine) == 0
            assert "qbank-wal-checkpoint" in {t.name for t in threading.enumerate()}
        assert "qbank-wal-checkpoint" not in {t.name for t in threading.enumerate()}
        assert _autocheckpoint(app.state.database.engine) == 1000
    finally:
        app.state.database.dispose()


def test_a_running_server_leaves_its_start_up_objects_out_of_garbage_collections(tmp_path):
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    url = f"sqlite:///{tmp_path / 'served.db'}"
    app = create_app(Settings(_env_file=None, database_url=url))  # type: ignore[call-arg]
    try:
        with TestClient(app) as client:
            assert gc.get_freeze_count() > 10_000
            assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() == 0  # collectable again once the app stops
    finally:
        app.state.database.dispose()


def test_the_wal_stops_growing_under_a_steady_stream_of_commits(tmp_path, monkeypatch):
    # A PASSIVE checkpoint alone never catches up with a log that commits keep extending. The
    # commits leave the database alone for a moment between them, as a server's do.
    monkeypatch.setattr(db, "CHECKPOINT_SECONDS", 0.02)
    monkeypatch.setattr(db, "CHECKPOINT_RESTART_FRAMES", 100)
    engine = db.make_engine(f"sqlite:///{tmp_path / 'busy.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x TEXT)")
    stop = db.checkpoint_in_background(engine)
    commits = 0
    try:
        while commits < 3000:
            with engine.begin() as connection:
                connection.exec_driver_sql("INSERT INTO t VALUES (hex(randomblob(1500)))")
            commits += 1
            time.sleep(0.0005)
        wal = (tmp_path / "busy.db-wal").stat().st_size  # its longest so far
    finally:
        stop()
    engine.dispose()
    written = commits * 4096  # at least one page per commit
    # Never restarted, the log holds every frame of every commit: about three times `written`.
    # Restarted, it stays a fraction of that, more or less of one as the machine is busy.
    assert wal < written


def test_writers_of_two_processes_take_turns_on_the_lock_file(tmp_path):
    # Two Database objects open the lock file separately, as two worker processes do: their
    # advisory locks exclude each other as the processes' would.
    url = f"sqlite:///{tmp_path / 'qbank.db'}"
    first, second = db.Database.open(url), db.Database.open(url)
    entered = threading.Event()

    def write_second() -> None:
        with second.session() as session, second.writing(session) as connection:
            entered.set()
            connection.exec_driver_sql("CREATE TABLE t (x)")

    try:
        with first.session() as session, first.writing(session):
            assert (tmp_path / "qbank.db-writer").exists()
            waiting = threading.Thread(target=write_second)
            waiting.start()
            # Held: the other writer waits on the lock file, not in SQLite's busy handler.
            assert not entered.wait(0.3)
        waiting.join(timeout=10)
        assert entered.is_set()
    finally:
        first.dispose()
        second.dispose()


def writer_fds() -> list[str]:
    """This process's open descriptors of writer lock files."""
    fds = Path("/proc/self/fd")
    return [
        target
        for fd in fds.iterdir()
        if (target := os.path.realpath(fd) if fd.is_symlink() else "").endswith("-writer")
    ]


def test_sessions_that_write_leave_no_lock_file_open(tmp_path):
    # Twenty sessions of the one Database take turns on its one lock and keep no descriptor;
    # a plain database.session() is given no Database (and lock file) of its own.
    database = db.Database.open(f"sqlite:///{tmp_path / 'qbank.db'}")
    before = writer_fds()
    try:
        for n in range(20):
            with database.session() as session, database.writing(session) as connection:
                assert len(writer_fds()) == len(before) + 1  # held while writing
                connection.exec_driver_sql(f"CREATE TABLE t{n} (x)")
        assert (tmp_path / "qbank.db-writer").exists()
        assert writer_fds() == before
        for _ in range(20):
            with Session(database.engine) as plain, pytest.raises(db.NoDatabase):
                db.database_of(plain)
        assert writer_fds() == before
        with database.session() as session:
            assert len(session.exec(text("SELECT name FROM sqlite_master")).all()) == 20
    finally:
        database.dispose()


def test_a_lock_file_that_cannot_be_opened_leaves_writing_to_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path / 'qbank.db'}"
    (tmp_path / "qbank.db-writer").mkdir()  # in its place, something that is not a file
    database = db.Database.open(url)
    try:
        with database.session() as session, database.writing(session) as connection:
            connection.exec_driver_sql("CREATE TABLE t (x)")
    finally:
        database.dispose()


def test_a_database_session_keeps_one_connection_through_its_transactions(tmp_path):
    database = db.Database.open(f"sqlite:///{tmp_path / 'qbank.db'}")
    checkouts: list[object] = []
    event.listen(database.engine.pool, "checkout", lambda *_: checkouts.append(1))
    try:
        with database.session() as session:
            with database.writing(session) as connection:
                connection.exec_driver_sql("CREATE TABLE t (x)")
            with database.writing(session) as connection:
                connection.exec_driver_sql("INSERT INTO t VALUES (1)")
            with pytest.raises(LookupError), database.writing(session) as connection:
                connection.exec_driver_sql("INSERT INTO t VALUES (2)")
                raise LookupError  # rolled back, on the same connection
            assert session.execute(text("SELECT x FROM t")).scalars().all() == [1]
            session.rollback()
            assert len(checkouts) == 1
            stale = session.connection()
            session.commit()
            stale.exec_driver_sql("SELECT 1")  # outside the session's transactions
            with pytest.raises(RuntimeError, match="outside its transaction"):
                session.execute(text("SELECT x FROM t"))
        assert database.engine.pool.checkedout() == 0  # handed back when the session closed
    finally:
        database.dispose()


def test_the_app_migrates_as_it_starts_not_as_it_opens_the_bank(tmp_path):
    from fastapi.testclient import TestClient
    from sqlalchemy import inspect

    from app.config import Settings
    from app.infra.migrate import current_revision
    from app.main import create_app

    url = f"sqlite:///{tmp_path / 'new.db'}"
    app = create_app(Settings(_env_file=None, database_url=url))  # type: ignore[call-arg]
    engine = app.state.database.engine
    try:
        assert inspect(engine).get_table_names() == []
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
        assert "card" in inspect(engine).get_table_names()
        assert current_revision(engine) is not None
    finally:
        app.state.database.dispose()
