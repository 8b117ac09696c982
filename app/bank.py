"""Open the database for the configured settings, once per process and URL."""

import threading

from sqlalchemy.engine import Engine

from app.config import Settings
from app.db import create_schema, make_engine

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def open_engine(settings: Settings) -> Engine:
    """The engine for `settings.database_url`, with its schema brought up to date."""
    url = settings.database_url
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = make_engine(url)
            create_schema(engine)
            _engines[url] = engine
        return engine


def close_engine(url: str) -> None:
    """Dispose of the engine for `url`, if one is open (tests drop their databases)."""
    with _lock:
        engine = _engines.pop(url, None)
    if engine is not None:
        engine.dispose()
