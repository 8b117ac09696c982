"""`qbank serve`: import when the bank is empty, optionally watch content, run uvicorn."""

import asyncio
import logging
import threading
from pathlib import Path

import uvicorn
from sqlmodel import Session, func, select

from app.bank import open_engine
from app.config import Settings
from app.content.errors import ContentErrors
from app.content.sync import import_content
from app.main import create_app
from app.models import Card

log = logging.getLogger("qbank")


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
            log.error(
                "content not re-imported: %d error(s); the bank is unchanged", len(exc.errors)
            )
            continue
        log.info(
            "re-imported: %d added, %d updated, %d retired",
            report.added,
            report.updated,
            report.retired,
        )


def serve(settings: Settings, *, host: str, port: int, watch: bool = False) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    ensure_imported(settings)
    stop = threading.Event()
    if watch:
        threading.Thread(target=watch_content, args=(settings, stop), daemon=True).start()
    config = uvicorn.Config(create_app(settings), host=host, port=port, log_level="info")
    try:
        asyncio.run(uvicorn.Server(config).serve())
    finally:
        stop.set()
