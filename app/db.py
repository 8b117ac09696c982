"""Engine construction; every SQLite-only setting lives here."""

import logging
import os
import sqlite3
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from weakref import WeakKeyDictionary

from sqlalchemy import Integer, event
from sqlalchemy.engine import Connection, Dialect, Engine, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlmodel import Session, create_engine

log = logging.getLogger("qbank")

SQLITE_MMAP_BYTES = 1 << 30
BUSY_TIMEOUT_MS = 30_000
# How long a write run in the event loop waits for another process's write lock before it lets
# the loop go on (see writes_without_waiting).
WRITE_WAIT_MS = 2
POOL_SIZE = 10


def study_threads(engine: Engine) -> int:
    """How many study requests of one process may run their database work in threads at once.

    SQLite: only ratings that found the write lock taken do (app.web.threads.run_write); more
    threads than CPUs would only queue for the GIL and the lock. PostgreSQL requests mostly
    wait on the network: as many as the pool keeps connections for.
    """
    if engine.dialect.name == "sqlite":
        return max(os.cpu_count() or 1, 2)
    return POOL_SIZE


def make_engine(url: str) -> Engine:
    """Create an engine tuned for the backend behind `url`."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(url, pool_size=POOL_SIZE, max_overflow=20)
        _test_after_idle(engine)
        _generic_plans(engine)
        return engine

    pool: dict[str, int] = {}
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # Enough pooled connections for the thread pool's usual load: one beyond the pool is
        # closed on return, and the next opened again, pragmas and all.
        pool = {"pool_size": POOL_SIZE, "max_overflow": 30}
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pool)

    # SQLite-specific: WAL lets readers proceed during an import, foreign keys are off by
    # default, and busy_timeout makes concurrent writers wait instead of failing. Memory-mapped
    # reads: the study queue's new-card queries visit every card row, and card rows (rendered
    # HTML) are large, so reading their pages through a mapping of the file instead of with one
    # system call each is about three times faster. The mapped pages are the OS page cache,
    # shared by every connection and process (they count in RSS once read, but are not private
    # memory); writes still go through the WAL.
    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
        if engine in _CHECKPOINTED:
            cursor.execute("PRAGMA wal_autocheckpoint=0")  # see checkpoint_in_background
        cursor.close()

    _WRITERS[engine] = threading.RLock()
    return engine


def _generic_plans(engine: Engine) -> None:
    """Plan each prepared statement once per connection, not on every execution.

    psycopg prepares a statement once a connection has run it five times; PostgreSQL then
    still plans it anew for each set of parameters while it judges a generic plan no cheaper.
    The study queue's statement took ~1.7 ms to plan and ~0.3 ms to run. Only statements run
    again and again get prepared, and all of those look rows up by learner along an index, so
    a plan that ignores the parameters' values is as good as a custom one.
    """

    @event.listens_for(engine, "connect")
    def _set_plan_cache_mode(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET plan_cache_mode = force_generic_plan")
        dbapi_connection.commit()


# A pooled connection idle for longer than this is tested before use.
IDLE_PING_SECONDS = 10.0


def _test_after_idle(engine: Engine) -> None:
    """Test a pooled connection before use if it sat idle, and replace it if it is gone.

    A database server restarts, or drops idle connections, while the pool holds them.
    `pool_pre_ping` tests on every checkout, which here cost ~2 ms of CPU each, and a request
    checks out twice (identity, then the route): a third of a study cycle. A connection in
    steady use is not tested: if the server dropped it meanwhile, the request using it fails
    once and SQLAlchemy replaces every connection the pool holds.
    """

    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _test(dbapi_connection, record, _proxy) -> None:  # type: ignore[no-untyped-def]
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()
        except Exception as exc:
            # The pool discards this connection and checks out another, new one.
            raise DisconnectionError() from exc


# SQLite: one lock per engine that the hot write paths take for their whole transaction.
_WRITERS: WeakKeyDictionary[Engine, threading.RLock] = WeakKeyDictionary()


@contextmanager
def serialized_writes(session: Session) -> Iterator[None]:
    """Hold the engine's writer lock (SQLite only) around a read-check-write transaction.

    SQLite has one writer at a time, and a connection that finds the write lock taken sleeps in
    its busy handler for 1 to 100 ms before trying again. With many threads rating at once those
    sleeps, not the writes, made up most of a review's latency; queueing the threads of one
    process on a lock hands the database over at once. Other processes still meet the busy
    timeout. PostgreSQL needs nothing of the kind: this is a no-op there.
    """
    lock = _WRITERS.get(session.get_bind())  # type: ignore[arg-type]
    with lock if lock is not None else nullcontext():
        yield


class WouldWait(Exception):
    """A write that would have had to wait for another writer (see `writes_without_waiting`)."""


@contextmanager
def writes_without_waiting(session: Session) -> Iterator[None]:
    """SQLite: write now or raise WouldWait, instead of waiting long for the write lock.

    For work run in the event loop itself (app.web.threads), where waiting would stall every
    request of the process: the engine's writer lock is taken only if free, and the session's
    connection gives up after WRITE_WAIT_MS when another connection or process, an import say,
    holds the database's write lock. Another server process's rating holds it for a fraction of
    a millisecond: waiting that long here is cheaper than going to the back of the loop's queue
    (with 2 workers, rating p90 21 -> 2.2 ms, cycle p99 97 -> 79 ms; giving up at once made one
    rating in ten wait for a round of every other request of the process). The transaction is
    then rolled back: nothing of it was written, since every later statement of a transaction
    that got the lock gets it too.
    """
    lock = _WRITERS.get(session.get_bind())  # type: ignore[arg-type]
    if lock is None:
        raise WouldWait("no writer lock: not SQLite")
    if not lock.acquire(blocking=False):
        raise WouldWait("another thread of this process is writing")
    raw = session.connection().connection.dbapi_connection
    assert raw is not None
    raw.execute(f"PRAGMA busy_timeout={WRITE_WAIT_MS}")
    try:
        yield
    except OperationalError as exc:
        if "locked" not in str(exc.orig):
            raise
        session.rollback()
        raise WouldWait("the database is being written") from exc
    finally:
        raw.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        lock.release()


# SQLite: how often the server checkpoints the write-ahead log, and how long a checkpoint may
# wait for a writer, or for readers of the log to move on, before trying again next time. Not
# at all: a RESTART checkpoint waiting for readers holds the write lock, and every rating
# waits with it.
CHECKPOINT_SECONDS = 0.25
CHECKPOINT_WAIT_MS = 0
# Pages in the log past which a checkpoint also restarts it (16 MB at SQLite's default page
# size): under a steady stream of commits a PASSIVE checkpoint never catches up with the end of
# the log, so the log would grow for ever; restarting makes writers wait a little.
CHECKPOINT_RESTART_FRAMES = 4096

_CHECKPOINTED: WeakKeyDictionary[Engine, bool] = WeakKeyDictionary()


def checkpoint_in_background(engine: Engine) -> Callable[[], None]:
    """SQLite: checkpoint the WAL in a thread of its own instead of in committing requests.

    By default the commit that takes the log past 1,000 pages copies it into the database file
    and syncs it: tens of milliseconds, every hundred ratings or so, in whichever request made
    that commit, and the study API commits in the event loop (app.web.threads), which served
    nothing else meanwhile. Here the engine's connections never checkpoint; a thread does, every
    CHECKPOINT_SECONDS: PASSIVE (copies what it can without blocking anyone), and once the log
    is long, RESTART (copies the few pages written meanwhile and lets the next writer start the
    log afresh; writers wait for that short step). The thread releases the GIL while SQLite
    works. Returns the function that stops it (with a last checkpoint) and gives
    the engine's connections back their own checkpoints. PostgreSQL, or an in-memory
    database: nothing to do.
    """
    path = engine.url.database
    if engine.dialect.name != "sqlite" or not path or path == ":memory:":
        return lambda: None
    _CHECKPOINTED[engine] = True
    engine.dispose()  # pooled connections reconnect without checkpoints of their own
    stop = threading.Event()

    def checkpoint(connection: sqlite3.Connection) -> None:
        try:
            _, frames, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if frames >= CHECKPOINT_RESTART_FRAMES:
                connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
        except sqlite3.Error as exc:  # e.g. another process's checkpoint: next time
            log.debug("WAL checkpoint skipped: %s", exc)

    def run() -> None:
        connection = sqlite3.connect(path, check_same_thread=False)
        connection.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
        try:
            while not stop.wait(CHECKPOINT_SECONDS):
                checkpoint(connection)
            checkpoint(connection)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="qbank-wal-checkpoint", daemon=True)
    thread.start()

    def finish() -> None:
        stop.set()
        thread.join()
        _CHECKPOINTED.pop(engine, None)
        engine.dispose()

    return finish


@dataclass(frozen=True)
class _Plan:
    sql: str
    params: tuple[tuple[str | None, Any, Callable[[Any], Any] | None], ...]
    results: tuple[Callable[[Any], Any] | None, ...] | None  # None: no column needs one
    row: type


def _direct(connection: Connection) -> bool:
    """Whether a Prepared statement may skip SQLAlchemy's execution on this connection.

    Only on SQLite, and only while no engine event listener and no SQL echo would miss it (tests
    hold statements back with events; people debug with echo). The attributes are private:
    SQLAlchemy's own execution checks the same ones.
    """
    return connection.dialect.name == "sqlite" and not (
        connection._has_events or connection.engine._has_events or connection._echo
    )


def _integer_key(table: Any) -> bool:
    """Whether the table's primary key is one integer column (SQLite's rowid, then)."""
    columns = list(table.primary_key.columns)
    return len(columns) == 1 and isinstance(columns[0].type, Integer)


class Written(NamedTuple):
    rowcount: int
    key: int | None  # an INSERT's new integer primary key; None for other statements


class Prepared:
    """A statement compiled once, run on SQLite as a driver statement; elsewhere as it is.

    SQLAlchemy's execution of a Core statement (cache lookup, execution context, result
    metadata, parameter and result processing) costs 30-40 µs, several times what SQLite spends
    on the study loop's indexed lookups (`exec_driver_sql` still 20-30 µs: it builds the result's
    metadata every time). Here the compiled SQL runs on the DBAPI connection of the session's
    connection, in its transaction, with values converted by the processors SQLAlchemy would
    use, and errors raised as SQLAlchemy raises them — unless engine events or SQL echo are on,
    which then see it run as usual (`_direct`). Rows are named tuples of the selected columns'
    keys. An INSERT, UPDATE or DELETE (`write`) binds every column it sets: no column defaults
    are applied. PostgreSQL's result processors depend on the types the server reports, and its
    requests are dominated by round trips: there the statement runs as usual.
    """

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._plan: _Plan | None = None

    def rows(self, connection: Connection, params: Mapping[str, Any]) -> list[Any]:
        if not _direct(connection):
            return list(connection.execute(self.statement, params))
        plan, cursor = self._execute(connection, params)
        found = cursor.fetchall()
        if plan.results is None:
            return [plan.row._make(row) for row in found]  # type: ignore[attr-defined]
        return [
            plan.row._make(  # type: ignore[attr-defined]
                convert(value) if convert and value is not None else value
                for convert, value in zip(plan.results, row, strict=True)
            )
            for row in found
        ]

    def write(self, connection: Connection, params: Mapping[str, Any]) -> Written:
        """Run the one-row INSERT, or the UPDATE or DELETE: rows changed, an INSERT's new key."""
        keyed = getattr(self.statement, "is_insert", False) and _integer_key(self.statement.table)
        if not _direct(connection):
            result = connection.execute(self.statement, params)
            if not result.is_insert:
                return Written(result.rowcount, None)
            # The new key comes back in a RETURNING clause, which leaves no row count.
            return Written(1, result.inserted_primary_key[0] if keyed else None)
        _, cursor = self._execute(connection, params)
        return Written(cursor.rowcount, cursor.lastrowid if keyed else None)

    def _execute(
        self, connection: Connection, params: Mapping[str, Any]
    ) -> tuple[_Plan, sqlite3.Cursor]:
        plan = self._plan or self._compile(connection.dialect)
        args: list[Any] = []
        for name, constant, convert in plan.params:
            value = constant if name is None else params[name]
            args.append(convert(value) if convert else value)
        driver = connection.connection.driver_connection
        assert driver is not None
        try:
            return plan, driver.execute(plan.sql, args)
        except sqlite3.Error as exc:  # as SQLAlchemy would raise it
            raise DBAPIError.instance(plan.sql, args, exc, sqlite3.Error) from exc

    def first(self, connection: Connection, params: Mapping[str, Any]) -> Any | None:
        found = self.rows(connection, params)
        return found[0] if found else None

    def one(self, connection: Connection, params: Mapping[str, Any]) -> Any:
        found = self.rows(connection, params)
        if len(found) != 1:
            raise LookupError(f"expected one row, got {len(found)}")
        return found[0]

    def _compile(self, dialect: Dialect) -> _Plan:
        compiled = self.statement.compile(dialect=dialect)
        assert compiled.positional, "SQLite's parameters are positional"
        params = []
        for name in compiled.positiontup:
            bind = compiled.binds[name]
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            # A parameter the caller gives, or a value written in the statement itself.
            given = name if bind.required else None
            params.append((given, None if given else bind.effective_value, convert))
        columns = list(getattr(self.statement, "selected_columns", ()))
        results = tuple(
            c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns
        )
        keys = [column.key or f"column_{i}" for i, column in enumerate(columns)]
        self._plan = _Plan(
            sql=compiled.string,
            params=tuple(params),
            results=results if any(results) else None,
            row=namedtuple("Row", keys, rename=True),  # type: ignore[misc]
        )
        return self._plan


def create_schema(engine: Engine) -> None:
    """Bring the database schema up to date (creating it when empty)."""
    from app.migrate import prepare

    prepare(engine)
