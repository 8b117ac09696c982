"""`qbank serve`: migrate, import when the bank is empty, optionally watch content, run uvicorn."""

import copy
import logging
import threading
from pathlib import Path

import uvicorn
from sqlmodel import Session, func, select

from app.bank import open_engine
from app.config import LOOPBACK, Settings
from app.content.errors import ContentErrors
from app.content.sync import import_content
from app.learners import get_learner
from app.main import create_app
from app.models import Card

log = logging.getLogger("qbank")


class ServeError(Exception):
    """A reason not to start, said in one line."""


def ensure_imported(settings: Settings) -> bool:
    """Import the content directory if the bank has no cards yet; True if it imported."""
    engine = open_engine(settings)
    with Session(engine) as session:
        if session.exec(select(func.count()).select_from(Card)).one():
            return False
    report = import_content(settings.content_dir, engine)
    log.info("imported %d decks, %d cards, %d topics", report.decks, report.added, report.topics)
    return True


def watch_content(settings: Settings, stop: threading.Event) -> None:
    """Re-import whenever a file under the content directory changes, until `stop` is set."""
    from watchfiles import watch

    engine = open_engine(settings)
    for _changes in watch(settings.content_dir, stop_event=stop, debounce=300):
        try:
            report = import_content(Path(settings.content_dir), engine)
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


def check_address(settings: Settings, host: str) -> None:
    if not settings.team and host not in LOOPBACK:
        raise ServeError(
            f"refusing to listen on {host} in local mode, which has no accounts: set "
            "QBANK_MODE=team and QBANK_SECRET_KEY to serve a team, or listen on 127.0.0.1"
        )


def serve(
    settings: Settings, *, host: str, port: int, watch: bool = False, workers: int = 1
) -> None:
    """Run the server; with several workers each process builds the app from the environment."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    check_address(settings, host)
    ensure_imported(settings)  # also brings the schema up to date, once, before any worker
    if not settings.team:
        # Created now rather than by a study request, which on SQLite must only read
        # (app.web.threads.run_read).
        with Session(open_engine(settings)) as session:
            get_learner(session, settings.learner_name, settings.timezone)
    stop = threading.Event()
    if watch:
        threading.Thread(target=watch_content, args=(settings, stop), daemon=True).start()
    # uvicorn configures logging in every worker process; our loggers must be part of that
    # configuration, or workers would drop the access log.
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    log_config["loggers"]["qbank"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    common = {
        "log_config": log_config,
        "host": host,
        "port": port,
        "access_log": False,  # app.web.observe logs every request with its id
        # Forwarded headers are read only from configured proxies; with none, never.
        "proxy_headers": bool(settings.forwarded_allow_ips.strip()),
        "forwarded_allow_ips": settings.forwarded_allow_ips.strip() or None,
    }
    try:
        if workers > 1:
            uvicorn.run("app.main:create_app", factory=True, workers=workers, **common)
        else:
            uvicorn.run(create_app(settings), **common)
    finally:
        stop.set()
