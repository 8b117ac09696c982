"""Open the database for the configured settings."""

from functools import cache

from sqlalchemy.engine import Engine

from app.config import Settings
from app.db import create_schema, make_engine


@cache
def _engine(url: str) -> Engine:
    engine = make_engine(url)
    create_schema(engine)
    return engine


def open_engine(settings: Settings) -> Engine:
    """The engine for `settings.database_url`, with its schema in place."""
    return _engine(settings.database_url)
