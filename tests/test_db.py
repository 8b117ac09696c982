"""Engines: a pooled PostgreSQL connection that the server dropped is replaced before use."""

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
