"""Open the database for the configured settings, once per process and URL."""

import threading

from sqlalchemy.engine import Engine

from app.config import Settings
from app.infra.db import Database, create_schema

_databases: dict[str, Database] = {}
_lock = threading.Lock()


def open_database(settings: Settings) -> Database:
    """The Database for `settings.database_url`, with its schema brought up to date."""
    url = settings.database_url
    with _lock:
        database = _databases.get(url)
        if database is None:
            database = Database.open(url)
            create_schema(database.engine)
            _databases[url] = database
        return database


def open_engine(settings: Settings) -> Engine:
    """The engine of `open_database(settings)`, for commands that only need sessions."""
    return open_database(settings).engine


def close_engine(url: str) -> None:
    """Dispose of the database for `url`, if one is open (tests drop their databases)."""
    with _lock:
        database = _databases.pop(url, None)
    if database is not None:
        database.dispose()
