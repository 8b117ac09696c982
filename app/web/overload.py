"""When the database cannot answer: a 503 that says why and when to retry, never a traceback.

A burst larger than the connection pool waits a bounded time for a connection (db.POOL_WAIT
_SECONDS) and is then shed; a read-only database or a full disk refuses the write. In both cases
nothing was stored, and a client that keeps its change (the study page's outbox) can send it
again after Retry-After. Only unavailability is a 503: an error in the statement itself (SQL
the database refused) is a fault of the request or of the app, answered as any other error,
so that it never looks like an outage to a client that retries or to whoever is paged.
"""

import inspect
import logging

from fastapi import FastAPI, Request
from sqlalchemy.exc import InternalError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.responses import Response

from app.errors import Busy
from app.web.errors import answer
from app.web.i18n import translator

log = logging.getLogger("qbank")

RETRY_BUSY_SECONDS = 2
RETRY_DATABASE_SECONDS = 10

# Keys of the reasons (app/strings/errors.py), said in the client's language.
BUSY = "error.busy"
READ_ONLY = "error.read_only"
FULL = "error.disk_full"
UNAVAILABLE = "error.unavailable"

READ_ONLY_SQLSTATE = "25006"  # read_only_sql_transaction
DISK_FULL_SQLSTATES = ("53100",)  # disk_full
# PostgreSQL: serialization failures, deadlocks, lock and statement timeouts pass; connection
# failures (08), a lack of resources (53), a server shutting down (57) and system errors (58)
# are unavailability. Any other class is the statement's own error.
BUSY_SQLSTATES = ("40001", "40P01", "55P03", "57014")
UNAVAILABLE_SQLSTATE_CLASSES = ("08", "53", "57", "58")
# SQLite's primary result codes: LOCKED and BUSY pass, READONLY, FULL; NOMEM, INTERRUPT,
# IOERR, CORRUPT, CANTOPEN, PROTOCOL and NOTADB are the file or the machine failing. ERROR (1)
# and the rest are the statement's own error.
SQLITE_BUSY_CODES = (5, 6)
SQLITE_READ_ONLY = 8
SQLITE_FULL = 13
SQLITE_UNAVAILABLE_CODES = (7, 9, 10, 11, 14, 15, 26)

RESPONSES: dict[int | str, dict[str, str]] = {
    503: {"description": "Busy, or the database cannot store the change: retry after Retry-After"}
}


def _from_sqlstate(state: str) -> str | None:
    if state == READ_ONLY_SQLSTATE:
        return READ_ONLY
    if state in DISK_FULL_SQLSTATES:
        return FULL
    if state in BUSY_SQLSTATES:
        return BUSY
    return UNAVAILABLE if state[:2] in UNAVAILABLE_SQLSTATE_CLASSES else None


def _from_sqlite_code(code: int) -> str | None:
    primary = code & 0xFF  # extended codes keep the primary one in their low byte
    if primary in SQLITE_BUSY_CODES:
        return BUSY
    if primary == SQLITE_READ_ONLY:
        return READ_ONLY
    if primary == SQLITE_FULL:
        return FULL
    return UNAVAILABLE if primary in SQLITE_UNAVAILABLE_CODES else None


def database_problem(exc: OperationalError | InternalError) -> str | None:
    """Why the database cannot answer (a key of `reason`); None: the statement itself failed."""
    # The driver's codes first: PostgreSQL's messages follow the server's language.
    state = getattr(exc.orig, "sqlstate", None)
    if state:
        return _from_sqlstate(state)
    code = getattr(exc.orig, "sqlite_errorcode", None)
    if code is not None:
        return _from_sqlite_code(code)
    # No code (a connection that never reached the server): the message is all there is.
    text = str(exc.orig).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        return READ_ONLY
    if "disk is full" in text or "no space left" in text or "could not extend" in text:
        return FULL
    if "locked" in text:
        return BUSY
    return UNAVAILABLE


def unavailable(request: Request, key: str, retry_after: int) -> Response:
    """A 503 saying why (`key`) and when to try again, as JSON or as the error page."""
    code = key.removeprefix("error.")
    return answer(request, Busy(code), {"Retry-After": str(retry_after)})


def add_handlers(app: FastAPI) -> None:
    """Answer pool exhaustion and database errors with 503 and Retry-After."""

    @app.exception_handler(PoolTimeout)
    async def _busy(request: Request, exc: PoolTimeout) -> Response:
        log.warning("shed %s %s: no database connection free", request.method, request.url.path)
        return unavailable(request, BUSY, RETRY_BUSY_SECONDS)

    async def _database(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, OperationalError | InternalError)
        key = database_problem(exc)
        if key is None:
            # Not an outage: answered, and logged, as any error the app did not expect.
            otherwise = app.exception_handlers.get(Exception)
            if otherwise is None:
                raise exc
            answer = otherwise(request, exc)
            return await answer if inspect.isawaitable(answer) else answer
        said = translator("en")(key)
        log.error("%s %s: %s (%s)", request.method, request.url.path, said, exc.orig)
        retry = RETRY_BUSY_SECONDS if key == BUSY else RETRY_DATABASE_SECONDS
        return unavailable(request, key, retry)

    # OperationalError: SQLite read-only or full, a lost server; InternalError: PostgreSQL's
    # read-only transactions (a standby, default_transaction_read_only).
    app.add_exception_handler(OperationalError, _database)
    app.add_exception_handler(InternalError, _database)
