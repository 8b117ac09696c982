"""Several tabs, apps and processes over one database: a review takes effect once, or gets 409."""

import asyncio
import functools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
import httpx2 as httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.config import Settings
from app.content.bank.sync import import_content
from app.infra.db import Database, make_engine
from app.infra.models import CardState, Learner, ReviewLog
from app.main import build_routes, create_app
from app.study import (
    Conflict,
    ReviewResult,
    get_learner,
    record_review,
    undo_last,
)
from tests.support import apps, http
from tests.support.templates import Templates

pytestmark = pytest.mark.storage

CARD_IDS = [f"q{n:02d}" for n in range(1, 21)]  # 20 races of each kind, one card each
T = TypeVar("T")


def _state_json(row):  # type: ignore[no-untyped-def]
    """A card state row in the review log's JSON form (None for no row)."""
    from app.scheduling.cardstate import CardStateValue
    from app.scheduling.statedoc import log_json

    return log_json(CardStateValue.from_row(row)) if row is not None else None


@pytest.fixture
def app(database_url: str, drill_dir: Path, templates: Templates) -> Iterator[FastAPI]:
    copied = templates.bank(database_url, drill_dir)
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=drill_dir,
    )
    app = apps.take(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    # Requests race here from several clients, each an event loop of its own, as in a server.
    build_routes(app)
    if not copied:
        import_content(drill_dir, app.state.database)
    yield app
    apps.give_back(app)


def race(*calls: Callable[[], T]) -> list[T]:
    """Run `calls` in threads released at the same instant; return their results in order."""
    barrier = threading.Barrier(len(calls), timeout=10)

    def run(call: Callable[[], T]) -> T:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(run, call) for call in calls]
        return [future.result(timeout=60) for future in futures]


def double_submit(post_one: Callable[..., Any], post_two: Callable[..., Any]) -> None:
    """For every card, twice (first review, then an update): the same review from two clients."""
    for version in (0, 1):
        for card_id in CARD_IDS:
            review = {"card_id": card_id, "rating": 3, "version": version}
            responses = race(
                functools.partial(post_one, "/api/reviews", json=review),
                functools.partial(post_two, "/api/reviews", json=review),
            )
            statuses = sorted(r.status_code for r in responses)
            assert statuses == [200, 409], (card_id, version, [r.text for r in responses])
            refused = next(r for r in responses if r.status_code == 409)
            assert refused.json()["code"] == "version_conflict"


def history(engine: Engine) -> dict[str, tuple[int, int, int]]:
    """For every studied card: (review-log rows, CardState.reps, CardState.version)."""
    with Session(engine) as session:
        counts = select(ReviewLog.card_id, func.count()).group_by(col(ReviewLog.card_id))
        logs: dict[str, int] = dict(session.exec(counts).all())  # type: ignore[arg-type]
        states = {s.card_id: (s.reps, s.version) for s in session.exec(select(CardState))}
    return {c: (logs.get(c, 0), *states.get(c, (0, 0))) for c in logs.keys() | states.keys()}


def assert_each_review_took_effect_once(engine: Engine) -> None:
    assert history(engine) == dict.fromkeys(CARD_IDS, (2, 2, 2))


def test_double_submit_from_two_tabs(app: FastAPI) -> None:
    with TestClient(app) as tab1, TestClient(app) as tab2:
        tab1.get("/api/decks")  # creates the local learner before the races
        double_submit(tab1.post, tab2.post)
    assert_each_review_took_effect_once(app.state.database.engine)


def test_double_submit_to_two_apps(app: FastAPI, database_url: str) -> None:
    """Two app instances, each with its own connection pool, as two processes would have."""
    other = create_app(app.state.settings)
    other.state.database.upgrade()  # before its lifespan: written to first
    build_routes(other)
    assert other.state.database is not app.state.database
    with TestClient(app) as one, TestClient(other) as two:
        one.get("/api/decks")
        double_submit(one.post, two.post)
    assert_each_review_took_effect_once(app.state.database.engine)


@pytest.mark.slow
def test_double_submit_to_two_worker_processes(
    database_url: str, drill_dir: Path, live_server: Callable[..., Any]
) -> None:
    """`qbank serve --workers 2`: the kernel spreads connections over two uvicorn processes."""
    server = live_server(database_url, drill_dir, workers=2)
    with http.client(server.url) as one, http.client(server.url) as two:
        one.get("/api/decks")
        double_submit(one.post, two.post)
    engine = make_engine(database_url)
    try:
        assert_each_review_took_effect_once(engine)
    finally:
        engine.dispose()


_racer = threading.local()
CARD_STATE_WRITES = ("INSERT INTO CARDSTATE", "UPDATE CARDSTATE", "DELETE FROM CARDSTATE")


def undo_or_conflict(database: Database, learner_id: int, now: datetime) -> object:
    """Undo the learner's last rating in a session of its own; the Conflict if it loses a race."""
    with database.session() as session:
        try:
            return undo_last(
                session, learner=session.get_one(Learner, learner_id), now=now, database=database
            )
        except Conflict as exc:
            return exc


def writing_last(call: Callable[[], T]) -> Callable[[], T]:
    """`call`, made to write its card state a moment after the other racer."""

    def run() -> T:
        _racer.late = True
        try:
            return call()
        finally:
            _racer.late = False

    return run


@contextmanager
def writes_held_until_both_have_read(engine: Engine) -> Iterator[None]:
    """Hold each card-state write until both racers have read the card's version.

    Both submissions then pass the version check in Python, so only the database (a unique
    key on the first review, compare-and-set on the version after it) can refuse one. The
    racers run as two processes would: without the in-process SQLite writer lock, which would
    otherwise queue the second behind the first.
    """
    barrier = threading.Barrier(2, timeout=10)

    def hold(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith(CARD_STATE_WRITES):
            barrier.wait()
            if getattr(_racer, "late", False):
                time.sleep(0.3)

    event.listen(engine, "before_cursor_execute", hold)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", hold)


# SQLite begins a rating's transaction IMMEDIATE, so two never interleave there.
@pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
@pytest.mark.parametrize("send_version", [True, False], ids=["with-version", "no-version"])
@pytest.mark.parametrize("reviewed_before", [False, True], ids=["first-review", "later-review"])
def test_interleaved_submissions_are_refused_by_the_database(
    app: FastAPI, reviewed_before: bool, send_version: bool
) -> None:
    database = app.state.database
    engine = database.engine
    now = datetime.now(UTC)
    with database.session() as session:
        learner = get_learner(session, "local")
        learner_id = learner.id
        if reviewed_before:
            record_review(
                session, learner=learner, card_id="q01", rating=1, now=now, database=database
            )
    version = int(reviewed_before)

    def submit() -> ReviewResult | Conflict:
        with database.session() as session:
            try:
                return record_review(
                    session,
                    learner=session.get_one(Learner, learner_id),
                    card_id="q01",
                    rating=3,
                    now=now,
                    expected_version=version if send_version else None,
                    database=database,
                )
            except Conflict as exc:
                return exc

    with writes_held_until_both_have_read(engine):
        outcomes = race(submit, submit)

    assert sorted(type(o).__name__ for o in outcomes) == ["Conflict", "ReviewResult"]
    assert history(engine) == {"q01": (version + 1, version + 1, version + 1)}


def live_history(
    engine: Engine, card_id: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The states after each live rating of a card, and the card's current state."""
    with Session(engine) as session:
        logs = session.exec(
            select(ReviewLog)
            .where(ReviewLog.card_id == card_id, col(ReviewLog.undone_at).is_(None))
            .order_by(col(ReviewLog.id))
        ).all()
        row = session.exec(select(CardState).where(CardState.card_id == card_id)).first()
        return [log.state_after or {} for log in logs], _state_json(row)


@pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
@pytest.mark.parametrize("ratings_before", [1, 2])
@pytest.mark.parametrize(
    "first", ["review", "undo"], ids=["review-writes-first", "undo-writes-first"]
)
def test_an_undo_racing_a_review_of_the_same_card_never_overwrites_it(
    app: FastAPI, ratings_before: int, first: str
) -> None:
    """Tab 1 undoes the last rating of q01 while tab 2 rates q01 again: one of them loses."""
    database = app.state.database
    engine = database.engine
    now = datetime.now(UTC)
    with database.session() as session:
        learner_id = get_learner(session, "local").id
    with database.session() as session:
        for _ in range(ratings_before):
            learner = session.get_one(Learner, learner_id)
            record_review(
                session, learner=learner, card_id="q01", rating=1, now=now, database=database
            )

    def review() -> object:
        with database.session() as session:
            try:
                return record_review(
                    session,
                    learner=session.get_one(Learner, learner_id),
                    card_id="q01",
                    rating=3,
                    now=now,
                    expected_version=ratings_before,
                    database=database,
                )
            except Conflict as exc:
                return exc

    undo = functools.partial(undo_or_conflict, database, learner_id, now)
    racers = (review, writing_last(undo)) if first == "review" else (writing_last(review), undo)
    with writes_held_until_both_have_read(engine):
        outcomes = race(*racers)

    assert sum(isinstance(o, Conflict) for o in outcomes) == 1, outcomes
    applied, current = live_history(engine, "q01")
    assert len(applied) == (current or {}).get("reps", 0)
    assert current == (applied[-1] if applied else None)


@pytest.mark.parametrize("meanwhile", ["rated", "undone"])
def test_a_review_of_a_card_changed_meanwhile_is_refused(app: FastAPI, meanwhile: str) -> None:
    engine = app.state.database.engine
    with TestClient(app) as tab1, TestClient(app) as tab2:
        shown = tab1.get("/api/study/next").json()
        assert (shown["id"], shown["version"]) == ("q01", 0)
        first = tab1.post("/api/reviews", json={"card_id": "q01", "rating": 1, "version": 0})
        assert (first.status_code, first.json()["version"]) == (200, 1)
        # Tab 1 still shows q01 at version 1 while tab 2 rates it again, or undoes that rating.
        if meanwhile == "rated":
            other = tab2.post("/api/reviews", json={"card_id": "q01", "rating": 3, "version": 1})
        else:
            other = tab2.post("/api/reviews/undo")
        assert other.status_code == 200
        before = snapshot(engine, "q01")

        stale = tab1.post("/api/reviews", json={"card_id": "q01", "rating": 4, "version": 1})

    assert stale.status_code == 409
    assert stale.headers["content-type"] == "application/json"
    assert stale.json()["code"] == "version_conflict"
    assert snapshot(engine, "q01") == before


def snapshot(engine: Engine, card_id: str) -> tuple[dict[str, Any] | None, list[int]]:
    """A card's state row and the ids of its live log entries."""
    with Session(engine) as session:
        state = session.exec(select(CardState).where(CardState.card_id == card_id)).first()
        logs = session.exec(
            select(ReviewLog.id).where(
                ReviewLog.card_id == card_id, col(ReviewLog.undone_at).is_(None)
            )
        ).all()
        return (state.model_dump() if state else None), sorted(logs)  # type: ignore[arg-type]


def test_without_a_version_repeated_submissions_each_apply(app: FastAPI) -> None:
    """By design: the version is the idempotency guard, so a client that omits it rates twice.

    The study page and /api/study/next always hand out a version; scripts that post ratings
    without one ask for "apply this rating to whatever the state is now".
    """
    with TestClient(app) as client:
        for _ in range(2):
            response = client.post("/api/reviews", json={"card_id": "q01", "rating": 3})
            assert response.status_code == 200
    assert history(app.state.database.engine) == {"q01": (2, 2, 2)}


def test_a_burst_larger_than_the_pool_and_the_thread_pool_is_served(app: FastAPI) -> None:
    """Requests must not hold a pooled connection while they wait for a thread.

    With 2 connections, 2 threads and 12 requests at once, a request that kept the connection
    its identity check took while waiting for a thread for its route would leave both threads
    waiting for a connection, until the pool's timeout turned every request into a 500.
    """
    url = app.state.database.engine.url
    sqlite = url.get_backend_name() == "sqlite"
    small = create_engine(
        url,
        pool_size=2,
        max_overflow=0,
        pool_timeout=5,
        connect_args={"check_same_thread": False} if sqlite else {},
    )
    kept, app.state.database.engine = app.state.database.engine, small

    async def burst() -> list[int]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 2
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            responses = await asyncio.gather(*(client.get("/api/study/next") for _ in range(12)))
        return [r.status_code for r in responses]

    try:
        # A thread of its own: the browser tests' Playwright may be running a loop in this one.
        with ThreadPoolExecutor(1) as thread:
            assert thread.submit(lambda: asyncio.run(burst())).result(timeout=60) == [200] * 12
    finally:
        app.state.database.engine = kept  # the app's own engine, disposed with the app
        small.dispose()


def test_concurrent_first_ratings_and_an_undo_keep_every_card_before_the_cursor_seen(
    app: FastAPI,
) -> None:
    """The new-card cursor only ever passes cards the learner has a state for."""
    from app.infra.models import Card
    from app.study import Filters, next_card

    database = app.state.database
    now = datetime.now(UTC)
    with database.session() as session:
        learner_id = get_learner(session, "local").id
        for card_id in CARD_IDS[:3]:
            record_review(
                session,
                learner=session.get_one(Learner, learner_id),
                card_id=card_id,
                rating=3,
                now=now,
                database=database,
            )

    def rate(card_id: str) -> Callable[[], object]:
        def call() -> object:
            with database.session() as session:
                learner = session.get_one(Learner, learner_id)
                return record_review(
                    session, learner=learner, card_id=card_id, rating=3, now=now, database=database
                )

        return call

    undo = functools.partial(undo_or_conflict, database, learner_id, now)
    race(*(rate(card_id) for card_id in CARD_IDS[3:11:2]), undo, undo)

    with database.session() as session:
        learner = session.get_one(Learner, learner_id)
        seen = set(
            session.exec(select(CardState.card_id).where(CardState.learner_id == learner_id))
        )
        before_cursor = session.exec(
            select(Card.id).where(col(Card.retired).is_(False), Card.ordinal < learner.new_cursor)
        ).all()
        assert set(before_cursor) <= seen
        first_unseen = next(card_id for card_id in CARD_IDS if card_id not in seen)
        found = next_card(session, learner=learner, now=now, filters=Filters())
        assert found is not None and found.card.id == first_unseen


@contextmanager
def write_lock_held_elsewhere(database_url: str) -> Iterator[Callable[[], None]]:
    """SQLite: another connection takes the database's write lock, as an import does.

    Yields a function that releases it early; it is released on leaving in any case.
    """
    import sqlite3

    from sqlalchemy.engine import make_url

    holder = sqlite3.connect(make_url(database_url).database, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")

    def release() -> None:
        if holder.in_transaction:
            holder.execute("ROLLBACK")

    try:
        yield release
    finally:
        release()
        holder.close()


# PostgreSQL writes take row locks: only SQLite has a database-wide write lock.
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_rating_that_must_wait_for_the_write_lock_waits_in_a_thread(
    app: FastAPI, database_url: str
) -> None:
    """A rating waiting for SQLite's write lock waits in a thread; the loop serves others."""
    with TestClient(app) as client, ThreadPoolExecutor(2) as pool:
        card = client.get("/api/study/next").json()
        review = {"card_id": card["id"], "rating": 3, "version": card["version"]}
        with write_lock_held_elsewhere(database_url) as release:
            pending = pool.submit(client.post, "/api/reviews", json=review)
            # Meanwhile the loop serves other requests (a hang here would be a stalled loop).
            assert pool.submit(client.get, "/healthz").result(timeout=20).status_code == 200
            assert pool.submit(client.get, "/api/decks").result(timeout=20).status_code == 200
            assert not pending.done()
            release()
            response = pending.result(timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["card_id"] == card["id"]
    assert history(app.state.database.engine) == {card["id"]: (1, 1, 1)}
