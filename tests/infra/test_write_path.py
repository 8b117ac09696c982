"""One write path: every write goes through `Database.writing`; nothing in app/ goes around it."""

import ast
from pathlib import Path

import pytest
from sqlalchemy import text

from app.infra import db

APP = Path(__file__).resolve().parents[2] / "app"

# Commits that are not writes to the bank around its write path.
ALLOWED = {
    "infra/db.py",  # the write path itself
    "infra/migrate.py",  # migrations, run by Database.upgrade under the writer lock
    "export/anki.py",  # the Anki package's own SQLite file, not the bank
}


def commits_around_the_path() -> list[str]:
    found = []
    for path in sorted(APP.rglob("*.py")):
        relative = path.relative_to(APP).as_posix()
        if relative in ALLOWED or relative.startswith("infra/migrations/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "commit"
            ):
                found.append(f"app/{relative}:{node.lineno}")
    return found


def test_no_module_commits_around_the_write_path():
    assert commits_around_the_path() == []


def test_the_scan_finds_a_commit(tmp_path, monkeypatch):
    (tmp_path / "settings.py").write_text("def save(session):\n    session.commit()\n")
    monkeypatch.setattr(f"{__name__}.APP", tmp_path)
    assert commits_around_the_path() == ["app/settings.py:2"]


@pytest.fixture
def bank(tmp_path):
    database = db.Database.open(f"sqlite:///{tmp_path / 'qbank.db'}")
    with database.session() as session, database.writing(session) as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    yield database
    database.dispose()


def rows(database: db.Database) -> list[int]:
    with database.session() as session:
        return list(session.exec(text("SELECT x FROM t ORDER BY x")).scalars())


def test_a_write_committed_outside_the_path_is_refused_on_sqlite(bank):
    with bank.session() as session:
        session.exec(text("INSERT INTO t VALUES (1)"))
        with pytest.raises(db.WriteOutsidePath):
            session.commit()
    # Reads commit as they like; a read transaction has nothing to refuse.
    with bank.session() as session:
        assert session.exec(text("SELECT count(*) FROM t")).one()[0] == 0
        session.commit()
    assert rows(bank) == []


def test_the_path_commits_at_its_end_and_rolls_back_on_an_error(bank):
    with bank.session() as session:
        with bank.writing(session) as connection:
            connection.exec_driver_sql("INSERT INTO t VALUES (1)")
        with pytest.raises(ZeroDivisionError), bank.writing(session) as connection:
            connection.exec_driver_sql("INSERT INTO t VALUES (2)")
            1 / 0  # noqa: B018
    assert rows(bank) == [1]


def test_a_write_within_a_write_joins_it(bank):
    with bank.session() as session:
        with pytest.raises(ZeroDivisionError), bank.writing(session) as connection:
            connection.exec_driver_sql("INSERT INTO t VALUES (1)")
            with bank.writing(session) as inner:  # a service calling another
                inner.exec_driver_sql("INSERT INTO t VALUES (2)")
            1 / 0  # noqa: B018
        with bank.writing(session) as connection:
            connection.exec_driver_sql("INSERT INTO t VALUES (3)")
            with bank.writing(session) as inner:
                inner.exec_driver_sql("INSERT INTO t VALUES (4)")
    assert rows(bank) == [3, 4]
