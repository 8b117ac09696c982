"""The database: one object owns the engine, the backends' differences and the write policy."""

import fcntl
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Table, event, select
from sqlalchemy.dialects import postgresql as postgresql_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DisconnectionError
from sqlmodel import Session, col, create_engine

from app.infra.models import Learner

log = logging.getLogger("qbank")
T = TypeVar("T")

SQLITE_MMAP_BYTES = 1 << 30
BUSY_TIMEOUT_MS = 30_000
POOL_SIZE = 10
# How long a request waits for a free connection before it is shed with a 503: in a burst
# larger than the pool, waiting 30 s (the default) kept a backlog of requests, most of them
# long abandoned by their clients, that held the server busy for minutes after it.
POOL_WAIT_SECONDS = 5
# A pooled PostgreSQL connection idle for longer than this is tested before use.
IDLE_PING_SECONDS = 10.0
# SQLite: how often the server checkpoints the write-ahead log, and the log's length (pages)
# past which a checkpoint also restarts it (16 MB at the default page size).
CHECKPOINT_SECONDS = 0.25
CHECKPOINT_RESTART_FRAMES = 4096


_WRITING = "qbank.writing"


class NoDatabase(RuntimeError):
    """A session that no Database made: it has no write path and no services' caches."""


class WriteOutsidePath(RuntimeError):
    """A transaction that wrote tried to commit outside `Database.writing`."""


class Database:
    """The bank's engine, with what differs between SQLite and PostgreSQL kept in one place.

    The app keeps one (`app.state.database`) and hands it to the services, jobs, imports and
    the CLI (routes take it as `DatabaseDep`); a function that writes is given it with its
    session. Sessions made by `session()` also carry it in `session.info`, for the two lookups
    that cannot be handed it (`database_of`). Every write goes through `writing`; on SQLite a
    transaction that wrote and commits anywhere else is refused (`WriteOutsidePath`).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._writer = WriterLock(_sqlite_file(engine.url)) if self.is_sqlite else None
        self._stop_checkpoints: Callable[[], None] | None = None
        self._kept: dict[type[Any], Any] = {}
        self._kept_lock = threading.Lock()
        if self._writer is not None:
            event.listen(engine, "commit", self._refuse_stray_write)

    def _refuse_stray_write(self, connection: Connection) -> None:
        # The driver begins a transaction only before a write (or at BEGIN IMMEDIATE), so a
        # transaction is open at commit exactly when it wrote. A write that commits without
        # the writer lock waited in SQLite's busy handler, which the lock exists to avoid.
        assert self._writer is not None
        if _sqlite_in_transaction(connection) and not self._writer.held_here():
            # SQLAlchemy counts a failed commit as the end of the transaction: end it here.
            connection.connection.dbapi_connection.rollback()  # type: ignore[union-attr]
            raise WriteOutsidePath(
                "a transaction wrote outside Database.writing: write through the database's "
                "one write path"
            )

    def kept(self, kind: type[T]) -> T:
        """The one `kind()` kept with this database: a service's cache of what it read here.

        The services own their caches (the card views, the workload curves); the database only
        keeps one of each per bank, so two databases never share one.
        """
        with self._kept_lock:
            found: T | None = self._kept.get(kind)
            if found is None:
                found = self._kept[kind] = kind()
            return found

    @classmethod
    def open(cls, url: str) -> "Database":
        return cls(make_engine(url))

    def session(self, *, expire_on_commit: bool = True) -> Session:
        """A session of this database (the only kind that can write), on one connection for
        its life (see `OneConnectionSession`)."""
        return OneConnectionSession(
            self.engine, info={"database": self}, expire_on_commit=expire_on_commit
        )

    @contextmanager
    def writing(self, session: Session) -> Iterator[Connection]:
        """Write in one transaction on `session`, the write lock taken at its start.

        The one write path (as datasette's `execute_write_fn`): the whole read-check-write
        runs inside it, and it commits when the block ends; an exception rolls it back. On
        SQLite the transaction begins IMMEDIATE: one that began as a reader could not take the
        write lock once another process wrote meanwhile. Yields the transaction's connection.
        """
        if session.info.get("database") is not self:
            # Services are handed the database apart from the session: one handed another
            # bank's (or a plain Session) would write outside this database's writer lock.
            raise WriteOutsidePath(
                "this session was not made by this Database: write through its own"
            )
        if session.info.get(_WRITING):
            # Within another write of this session (a service calling another): one transaction.
            yield session.connection()
            return
        with self._writer or nullcontext():
            session.info[_WRITING] = True
            try:
                # What the session read before is part of this transaction, and what it added
                # is written in it (on PostgreSQL, the same transaction goes on).
                connection = session.connection()
                if self.is_sqlite and not _sqlite_in_transaction(connection):
                    # The driver begins transactions only before its first write, as DEFERRED:
                    # its reads so far took no lock, and this one takes the write lock now.
                    connection.exec_driver_sql("BEGIN IMMEDIATE")
                yield connection
                if session.in_transaction():
                    session.commit()
            finally:
                session.info.pop(_WRITING, None)
                if session.in_transaction():
                    session.rollback()

    def end_read(self, session: Session) -> None:
        """End the session's transaction after reads, handing its connection back clean.

        A COMMIT rather than a ROLLBACK: psycopg forgets every statement it prepared on a
        connection when that connection rolls back, so PostgreSQL would plan the study queue's
        statements anew on every request. Objects changed in the session are not written here
        (writes go through `writing`): a session holding any is rolled back instead.
        """
        if not session.in_transaction():
            return
        if session.new or session.dirty or session.deleted:
            session.rollback()
        else:
            session.commit()

    def upgrade(self) -> None:
        """Bring the schema up to date (creating it when empty): start-up, not every open.

        Under the writer lock, so that the workers of one server migrate one at a time.
        """
        from app.infra.migrate import prepare

        with self._writer or nullcontext():
            prepare(self.engine)

    def upsert(self, table: Table) -> sqlite_dialect.Insert | postgresql_dialect.Insert:
        """An INSERT in the backend's dialect, which can add ON CONFLICT … DO UPDATE."""
        if self.is_sqlite:
            return sqlite_dialect.insert(table)
        return postgresql_dialect.insert(table)

    def lock_learner(self, session: Session, learner_id: int) -> None:
        """PostgreSQL: ratings and undos of one learner take turns on its new-card cursor.

        NO KEY UPDATE, the lock the cursor's UPDATE takes: a plain FOR UPDATE also waits for
        the key-share lock that inserting a row referring to the learner takes, and two first
        ratings at once deadlocked. SQLite has one writer at a time: nothing to do.
        """
        if not self.is_sqlite:
            session.execute(
                select(col(Learner.id))
                .where(col(Learner.id) == learner_id)
                .with_for_update(key_share=True)
            )

    def start(self) -> None:
        """Start background maintenance: SQLite's WAL checkpoints in a thread."""
        if self.is_sqlite and self._stop_checkpoints is None:
            self._stop_checkpoints = checkpoint_in_background(self.engine)

    def stop(self) -> None:
        if self._stop_checkpoints is not None:
            self._stop_checkpoints()
            self._stop_checkpoints = None

    def dispose(self) -> None:
        self.stop()
        self.engine.dispose()


class OneConnectionSession(Session):
    """A session that checks out one connection on first use and keeps it until it closes.

    A session bound to the engine hands its connection back to the pool at the end of every
    transaction, so a request that reads, writes and reads again (a rating: the caller, the
    rating, the next card) took a connection from the pool three times. Bound to a connection
    of its own, the session still begins, commits and rolls back its transactions on it.
    """

    def __init__(self, engine: Engine, **kw: Any) -> None:
        super().__init__(engine, **kw)
        self._engine = engine
        self._held: Connection | None = None

    def get_bind(self, *args: Any, **kw: Any) -> Connection:
        held = self._held
        if held is None:
            held = self._held = self._engine.connect()
        elif held.in_transaction() and not self.in_transaction():
            # A statement ran on the connection outside the session's transactions: the
            # session would join that transaction and never commit it.
            raise RuntimeError("the session's connection was used outside its transaction")
        return held

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._held is not None:
                self._held.close()  # back to the pool, rolling back what is left open
                self._held = None


def _sqlite_in_transaction(connection: Connection) -> bool:
    """Whether SQLite has a transaction open on `connection`: one that wrote, or IMMEDIATE."""
    return bool(getattr(connection.connection.dbapi_connection, "in_transaction", False))


def _sqlite_file(url: URL) -> str | None:
    """The file of a SQLite URL, also in its `file:` URI form; None for a read-only one."""
    database = url.database
    if not database or database == ":memory:":
        return None
    if url.query.get("uri") == "true" or database.startswith("file:"):
        if url.query.get("mode") in ("ro", "memory"):
            return None
        database = database.removeprefix("file:").split("?", 1)[0]
    return database


class WriterLock:
    """SQLite's one writer at a time, taken in turn by the threads and processes of a server.

    SQLite's own wait for the write lock (its busy handler) sleeps 1-100 ms per try, however
    soon the writer before finishes: under steady ratings from several workers those sleeps
    were most of a rating's worst times. Here threads queue on a lock, and processes on an
    advisory lock of a file beside the database (`<file>-writer`), each woken as soon as the
    writer before is done; BEGIN IMMEDIATE then finds the database free. Without that file
    (an in-memory database, a read-only folder), processes fall back on the busy handler.
    """

    def __init__(self, path: str | None) -> None:
        self._threads = threading.Lock()
        self._path = f"{path}-writer" if path else None
        self._fd: int | None = None
        self._owner: int | None = None

    def held_here(self) -> bool:
        """Whether this thread holds the lock."""
        return self._owner == threading.get_ident()

    def __enter__(self) -> None:
        self._threads.acquire()
        try:
            self._lock_file()
        except BaseException:
            self._threads.release()
            raise
        self._owner = threading.get_ident()

    def _lock_file(self) -> None:
        # The file is open only while the lock is held: closing it releases the lock, and a
        # Database that is never disposed of keeps no descriptor.
        if self._path is None:
            return
        try:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            log.debug("no writer lock file %s: %s", self._path, exc)
            self._path = None
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self._fd)
            self._fd = None
            raise

    def __exit__(self, *_: object) -> None:
        self._owner = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._threads.release()


def database_of(session: Session) -> Database:
    """The Database that made `session` (with `Database.session()`)."""
    found: Database | None = session.info.get("database")
    if found is None:
        # A Database of its own per plain Session(engine) would hold its own writer lock
        # (and its descriptor) and empty caches, and let two writers of one bank race.
        raise NoDatabase("this session was not made by a Database: open it with database.session()")
    return found


def make_engine(url: str) -> Engine:
    """Create an engine tuned for the backend behind `url`."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(
            url, pool_size=POOL_SIZE, max_overflow=20, pool_timeout=POOL_WAIT_SECONDS
        )
        _test_after_idle(engine)
        _generic_plans(engine)
        return engine

    pool: dict[str, int] = {}
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        pool = {"pool_size": POOL_SIZE, "max_overflow": 30, "pool_timeout": POOL_WAIT_SECONDS}
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pool)

    # WAL lets readers proceed during an import and a rating; foreign keys are off by default;
    # busy_timeout makes writers of other processes wait instead of failing. Memory-mapped
    # reads: card rows (rendered HTML) are large, and a mapping of the file reads their pages
    # without a system call for each. The server's connections leave checkpoints to a thread
    # of their own (`checkpoint_in_background`).
    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
        cursor.close()

    return engine


def _generic_plans(engine: Engine) -> None:
    """Plan each prepared statement once per connection, not on every execution.

    psycopg prepares a statement once a connection has run it five times; PostgreSQL then
    still plans it anew for each set of parameters while it judges a generic plan no cheaper.
    The study queue's statement costs more to plan than to run. The statements run again and
    again all look rows up by learner along an index, so a plan that ignores the parameters'
    values is as good as a custom one.
    """

    @event.listens_for(engine, "connect")
    def _set_plan_cache_mode(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET plan_cache_mode = force_generic_plan")
        dbapi_connection.commit()


def _test_after_idle(engine: Engine) -> None:
    """Test a pooled connection before use if it sat idle, and replace it if it is gone.

    A database server restarts, or drops idle connections, while the pool holds them;
    `pool_pre_ping` would test on every checkout, a round trip added to every request. A connection
    in steady use is not tested: if the server dropped it meanwhile, the request using it
    fails once and SQLAlchemy replaces every connection the pool holds.
    """

    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _test(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()
        except Exception as exc:
            raise DisconnectionError() from exc


def checkpoint_in_background(engine: Engine) -> Callable[[], None]:
    """SQLite: checkpoint the WAL in a thread of its own instead of in committing requests.

    By default the commit that takes the log past 1,000 pages copies it into the database file
    and syncs it: tens of milliseconds in whichever rating made that commit. Here a thread does
    it every CHECKPOINT_SECONDS: PASSIVE (copies what it can without blocking anyone), and once
    the log is long, RESTART (writers wait for that short step; under steady commits a PASSIVE
    checkpoint never reaches the end of the log). Returns the function that stops it.
    """
    path = engine.url.database
    if not path or path == ":memory:":
        return lambda: None

    def no_autocheckpoint(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    event.listen(engine, "connect", no_autocheckpoint)
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
        # A checkpoint never waits (busy_timeout 0): a RESTART waiting for readers would hold
        # the write lock, and every rating would wait with it.
        connection = sqlite3.connect(path, check_same_thread=False)
        connection.execute("PRAGMA busy_timeout=0")
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
        event.remove(engine, "connect", no_autocheckpoint)
        engine.dispose()

    return finish


def create_schema(engine: Engine) -> None:
    """Bring the schema of an engine no Database owns yet up to date (creating it when empty)."""
    from app.infra.migrate import prepare

    prepare(engine)
