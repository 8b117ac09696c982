"""A study request takes one connection from the pool and one hop to the thread pool."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import pytest
from fastapi import FastAPI
from sqlalchemy import event


@dataclass
class Cost:
    checkouts: int = 0
    hops: int = 0


@contextmanager
def cost(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cost]:
    """Pool check-outs and thread hops of the requests made meanwhile."""
    found = Cost()
    pool = app.state.database.engine.pool
    run_sync = anyio.to_thread.run_sync

    def checkout(*_: Any) -> None:
        found.checkouts += 1

    async def counted(*args: Any, **kwargs: Any) -> Any:
        found.hops += 1
        return await run_sync(*args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    event.listen(pool, "checkout", checkout)
    try:
        yield found
    finally:
        event.remove(pool, "checkout", checkout)
        monkeypatch.setattr(anyio.to_thread, "run_sync", run_sync)


def test_a_rating_and_the_next_card_each_take_one_connection_and_one_hop(
    client: Any, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.get("/api/study/next")  # the local learner is made on the first request
    with cost(app, monkeypatch) as shown_cost:
        shown = client.get("/api/study/next")
    assert shown.status_code == 200
    card = shown.json()
    body = {"card_id": card["id"], "rating": 3, "version": card["version"]}
    with cost(app, monkeypatch) as rated_cost:
        # The caller, the rating's write transaction and the next card's read, on one session.
        rated = client.post("/api/reviews", json=body, headers={"Idempotency-Key": "k1"})
    assert rated.status_code == 200
    assert rated.json()["next"]["id"] != card["id"]
    with cost(app, monkeypatch) as undo_cost:
        undone = client.post("/api/reviews/undo", json={"card_id": card["id"]})
    assert undone.status_code == 200
    assert (shown_cost.checkouts, shown_cost.hops) == (1, 1)
    assert (rated_cost.checkouts, rated_cost.hops) == (1, 1)
    assert (undo_cost.checkouts, undo_cost.hops) == (1, 1)


@pytest.mark.storage
def test_study_requests_end_without_a_rollback_so_prepared_statements_stay(
    client: Any, app: FastAPI, backend: str
) -> None:
    """psycopg forgets a connection's prepared statements when it rolls back: the study loop's
    requests end their reads with a commit, so PostgreSQL plans the queue's statements once."""
    engine = app.state.database.engine
    rollbacks: list[object] = []

    def rolled_back(connection: Any) -> None:
        rollbacks.append(connection)

    card = client.get("/api/study/next").json()
    event.listen(engine, "rollback", rolled_back)
    try:
        for n in range(8):
            body = {"card_id": card["id"], "rating": 3, "version": card["version"]}
            rated = client.post("/api/reviews", json=body, headers={"Idempotency-Key": f"p{n}"})
            assert rated.status_code == 200, rated.text
            card = rated.json()["next"]
            assert client.get("/api/study/next").status_code == 200
    finally:
        event.remove(engine, "rollback", rolled_back)
    assert rollbacks == []
    if backend != "sqlite":
        # Requests one after another used one pooled connection: it holds the pick, planned.
        with engine.connect() as connection:
            prepared = connection.exec_driver_sql(
                "SELECT statement FROM pg_prepared_statements"
            ).scalars()
            assert any("AS learning" in statement for statement in prepared)


def test_a_rating_looks_for_interviews_once(client: Any, app: FastAPI) -> None:
    """The write side's look for interviews ahead answers the next card's read as well."""
    engine = app.state.database.engine
    looks: list[str] = []

    def statement(_connection: Any, _cursor: Any, text: str, *_: Any) -> None:
        if "FROM interview" in text:
            looks.append(text)

    card = client.get("/api/study/next").json()
    body = {"card_id": card["id"], "rating": 3, "version": card["version"]}
    event.listen(engine, "before_cursor_execute", statement)
    try:
        rated = client.post("/api/reviews", json=body, headers={"Idempotency-Key": "once"})
    finally:
        event.remove(engine, "before_cursor_execute", statement)
    assert rated.status_code == 200 and rated.json()["next"] is not None
    assert len(looks) == 1
