"""Engines: a pooled PostgreSQL connection that the server dropped is replaced before use."""

import gc
import threading
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from app import db


def backend_pid(engine: Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(text("SELECT pg_backend_pid()")).scalar_one()


def test_a_dropped_idle_connection_is_replaced(
    backend: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite connections are files, never dropped by a server")
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

    from app.bank import close_engine
    from app.config import Settings
    from app.main import create_app

    url = f"sqlite:///{tmp_path / 'served.db'}"
    app = create_app(Settings(_env_file=None, database_url=url))  # type: ignore[call-arg]
    try:
        with TestClient(app):
            assert _autocheckpoint(app.state.engine) == 0
            assert "qbank-wal-checkpoint" in {t.name for t in threading.enumerate()}
        assert "qbank-wal-checkpoint" not in {t.name for t in threading.enumerate()}
        assert _autocheckpoint(app.state.engine) == 1000
    finally:
        close_engine(url)


def test_a_running_server_leaves_its_start_up_objects_out_of_garbage_collections(tmp_path):
    from fastapi.testclient import TestClient

    from app.bank import close_engine
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
        close_engine(url)


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
    assert wal < written / 4


def test_a_prepared_select_reads_what_sqlalchemy_reads(engine: Engine) -> None:
    from datetime import UTC, datetime

    from sqlalchemy import bindparam
    from sqlmodel import Session, col, select

    from app.models import Learner

    created = datetime(2026, 11, 30, 8, 30, 15, 250000, tzinfo=UTC)
    with Session(engine) as session:
        for name, admin in (("ada", True), ("bob", False)):
            session.add(
                Learner(
                    name=name,
                    is_admin=admin,
                    created_at=created,
                    fsrs_parameters=[0.25, 1.5] if admin else None,
                    timezone="Asia/Shanghai",
                )
            )
        session.commit()
    statement = (
        select(Learner.name, Learner.is_admin, Learner.created_at, Learner.fsrs_parameters)
        .where(col(Learner.created_at) <= bindparam("until"), Learner.timezone == "Asia/Shanghai")
        .order_by(col(Learner.name))
    )
    prepared = db.Prepared(statement)
    with engine.connect() as connection:
        expected = connection.execute(statement, {"until": created}).all()
        for _ in range(2):  # compiled on first use, then reused
            rows = prepared.rows(connection, {"until": created})
            assert [tuple(row) for row in rows] == [tuple(row) for row in expected]
        assert rows[0].is_admin is True and rows[1].fsrs_parameters is None
        assert prepared.first(connection, {"until": created}).name == "ada"
        assert prepared.rows(connection, {"until": datetime(2026, 1, 1, tzinfo=UTC)}) == []
        with pytest.raises(LookupError):
            prepared.one(connection, {"until": created})


def test_a_prepared_write_stores_what_sqlalchemy_stores(engine: Engine) -> None:
    from datetime import UTC, datetime

    from sqlalchemy import bindparam, insert, select, update

    from app.models import Learner, SourceFile

    table = Learner.__table__  # type: ignore[attr-defined]
    created = datetime(2026, 11, 30, 8, 30, 15, 250000, tzinfo=UTC)
    names = [c.key for c in table.c if c.key != "id"]
    values = {
        "timezone": "Asia/Shanghai",
        "desired_retention": 0.85,
        "new_per_day": 20,
        "max_reviews_per_day": 200,
        "rollover_hour": 4,
        "created_at": created,
        "fsrs_parameters": [0.25, 1.5],
        "fsrs_optimized_at": None,
        "password_hash": None,
        "is_admin": True,
        "disabled": False,
        "new_cursor": 7,
    }
    insert_learner = insert(table).values({n: bindparam(n, type_=table.c[n].type) for n in names})
    prepared = db.Prepared(insert_learner)
    rename = db.Prepared(
        update(table).where(table.c.id == bindparam("b_id")).values(name=bindparam("name"))
    )
    with engine.begin() as connection:
        connection.execute(insert_learner, {**values, "name": "by-sqlalchemy"})
        written = prepared.write(connection, {**values, "name": "prepared"})
        assert written.rowcount == 1 and isinstance(written.key, int)
        assert rename.write(connection, {"b_id": written.key, "name": "renamed"}).rowcount == 1
        assert rename.write(connection, {"b_id": -1, "name": "nobody"}) == (0, None)
        # A table keyed by text: no integer key to give back (SQLite's rowid is not one).
        source = SourceFile.__table__  # type: ignore[attr-defined]
        add_source = db.Prepared(
            insert(source).values({c.key: bindparam(c.key, type_=c.type) for c in source.c})
        )
        row = {"path": "a.md", "kind": "deck", "sha256": "0" * 64, "imported_at": created}
        assert add_source.write(connection, row) == (1, None)
    with engine.connect() as connection:
        rows = {
            row.name: row._asdict()
            for row in connection.execute(select(*[table.c[n] for n in names]))
        }
    assert set(rows) == {"by-sqlalchemy", "renamed"}
    assert rows["renamed"] == {**rows["by-sqlalchemy"], "name": "renamed"}
    assert rows["renamed"]["fsrs_parameters"] == [0.25, 1.5]
    assert rows["renamed"]["created_at"].replace(tzinfo=UTC) == created


def test_engine_events_see_prepared_statements(engine: Engine) -> None:
    from sqlalchemy import event, literal, select

    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    prepared = db.Prepared(select(literal(1).label("one")))
    event.listen(engine, "before_cursor_execute", record)
    try:
        with engine.connect() as connection:
            assert prepared.first(connection, {}).one == 1
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(seen) == 1 and seen[0].startswith("SELECT")


def test_a_prepared_selects_errors_are_sqlalchemys(engine: Engine) -> None:
    from sqlalchemy import column, select, table
    from sqlalchemy.exc import OperationalError, ProgrammingError

    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE gone (x INTEGER)")
    prepared = db.Prepared(select(column("x")).select_from(table("gone")))
    with engine.connect() as connection:
        assert prepared.rows(connection, {}) == []
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE gone")
    with engine.connect() as connection, pytest.raises((OperationalError, ProgrammingError)):
        prepared.rows(connection, {})
