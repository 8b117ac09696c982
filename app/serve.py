"""`qbank serve`: migrate, import when the bank is empty, optionally watch content, run uvicorn."""

import errno
import functools
import logging
import logging.config
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from sqlalchemy import false, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import InternalError, OperationalError

from app.accounts.learners import get_learner
from app.config import LOOPBACK, Settings
from app.content.bank.imports import recorded_import
from app.content.errors import ContentError, ContentErrors
from app.infra.bank import open_database
from app.infra.db import Database
from app.infra.logs import log_config
from app.infra.models import Learner

log = logging.getLogger("qbank")


class ServeError(Exception):
    """A reason not to start, said in one line."""


def ensure_imported(database: Database, settings: Settings) -> bool:
    """Bring the bank in line with the notes folder (incremental); True if anything changed.

    Run at every start, so that `qbank serve ~/notes` shows those notes, edited or not since
    the last run; an unchanged folder costs a scan and a hash per file.
    """
    report = recorded_import(database, settings.content_dir, source="serve")
    _log_warnings(report.warnings)
    changed = report.files_read > 0 or report.retired > 0
    if changed:
        log.info(
            "imported %d decks, %d topics: %d cards added, %d updated, %d retired; %d warnings",
            report.decks,
            report.topics,
            report.added,
            report.updated,
            report.retired,
            len(report.warnings),
        )
    return changed


def watch_content(database: Database, settings: Settings, stop: threading.Event) -> None:
    """Re-import whenever a file under the content directory changes, until `stop` is set."""
    from watchfiles import watch

    for _changes in watch(settings.content_dir, stop_event=stop, debounce=300):
        try:
            report = recorded_import(database, Path(settings.content_dir), source="watch")
        except ContentErrors as exc:
            for error in exc.errors:
                log.error("%s", error)
            log.error("content not re-imported (%d errors); the bank is unchanged", len(exc.errors))
            continue
        log.info(
            "re-imported: %d added, %d updated, %d retired",
            report.added,
            report.updated,
            report.retired,
        )
        _log_warnings(report.warnings)


def _log_warnings(warnings: list[ContentError], shown: int = 20) -> None:
    """The first warnings of an import; `qbank check` and the import page list them all."""
    for warning in warnings[:shown]:
        log.warning("%s", warning)
    if len(warnings) > shown:
        log.warning("%d more warnings: run `qbank check` to see them all", len(warnings) - shown)


def check_writable(database: Database) -> None:
    """Make a write that changes nothing, so that a database opened read-only is refused now.

    A bank with everything in place needs no write to start, and would otherwise be found
    read-only by the first rating. SQLite's BEGIN IMMEDIATE takes the write lock; PostgreSQL
    refuses any UPDATE in a read-only transaction (a standby, default_transaction_read_only).
    """
    with database.session() as session, database.writing(session) as connection:
        connection.execute(update(Learner).where(false()).values(name=Learner.name))


def check_address(settings: Settings, host: str) -> None:
    if not settings.team and host not in LOOPBACK:
        raise ServeError(
            f"refusing to listen on {host} in local mode, which has no accounts: set "
            "QBANK_MODE=team and QBANK_SECRET_KEY to serve a team, or listen on 127.0.0.1"
        )


def check_port(host: str, port: int) -> None:
    """Refuse, in one line with the fix, to start on an address another server holds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: a port left in TIME_WAIT by a server just stopped is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServeError(
                    f"port {port} on {host} is already in use, perhaps by another qbank: stop "
                    "that server, or start this one on a free port with --port (or QBANK_PORT)"
                ) from exc
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


METRICS_PREFIX = "qbank-metrics-"


def _remove_abandoned_metrics_dirs() -> None:
    """Remove the metrics folders left by servers that were killed (SIGKILL, the OOM killer)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{METRICS_PREFIX}*-*"):
        pid = folder.name.removeprefix(METRICS_PREFIX).split("-", 1)[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:  # another user's live process
            pass


@contextmanager
def metrics_dir(settings: Settings, workers: int) -> Iterator[None]:
    """A fresh folder for the workers' Prometheus counters while the server runs.

    prometheus_client reads PROMETHEUS_MULTIPROC_DIR when it is imported, so the variable is
    set before the worker processes start. Counters left by an earlier run would be added to
    this run's: a folder given by the operator is emptied of them, one made here is removed.
    """
    if settings.metrics_dir is not None:
        settings.metrics_dir.mkdir(parents=True, exist_ok=True)
        for stale in settings.metrics_dir.glob("*.db"):
            stale.unlink()
        yield
        return
    if workers == 1:
        yield
        return
    _remove_abandoned_metrics_dirs()
    made = tempfile.mkdtemp(prefix=f"{METRICS_PREFIX}{os.getpid()}-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    try:
        yield
    finally:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        shutil.rmtree(made, ignore_errors=True)


def serve(
    settings: Settings, *, host: str, port: int, watch: bool = False, workers: int = 1
) -> None:
    """Run the server; with several workers each process builds the app from the environment."""
    logs = log_config(level=settings.log_level, fmt=settings.log_format)
    logging.config.dictConfig(logs)
    check_address(settings, host)
    check_port(host, port)
    # The start-up's own: the schema brought up to date once, before any worker starts.
    database = open_database(settings)
    try:
        database.upgrade()
        ensure_imported(database, settings)
        if not settings.team:
            # Created now rather than by a study request, which on SQLite must only read
            # (app.web.threads.run_read).
            with database.session() as session:
                get_learner(session, settings.learner_name, settings.timezone)
        check_writable(database)
    except (OperationalError, InternalError) as exc:
        database.dispose()
        where = make_url(settings.database_url).render_as_string(hide_password=True)
        raise ServeError(
            f"cannot use the database {where}: {exc.orig}; qbank must be able to write it "
            "(check the file's permissions, the free disk space, or that the server is up)"
        ) from None
    stop = threading.Event()
    if watch:
        watcher = (database, settings, stop)
        threading.Thread(target=watch_content, args=watcher, daemon=True).start()
    run = functools.partial(
        uvicorn.run,
        # uvicorn applies it in every worker process, which would otherwise log its own way.
        log_config=logs,
        host=host,
        port=port,
        access_log=False,  # app.web.observe logs every request with its id
        # Forwarded headers are read only from configured proxies; with none, never.
        proxy_headers=bool(settings.forwarded_allow_ips.strip()),
        forwarded_allow_ips=settings.forwarded_allow_ips.strip() or None,
    )
    try:
        with metrics_dir(settings, workers):
            if workers > 1:
                # Each worker imports and builds the app itself; this process only watches them,
                # and importing the web app here would only delay their start.
                run("app.main:serving_app", factory=True, workers=workers)
            else:
                from app.main import serving_app

                run(serving_app(settings))
    finally:
        stop.set()
        database.dispose()
