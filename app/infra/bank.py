"""Open the bank's database for the configured settings."""

from app.config import Settings
from app.infra.db import Database


def open_database(settings: Settings) -> Database:
    """A new Database for `settings.database_url`; its owner disposes of it.

    Opening migrates nothing: the entry points do, once, at their start (`Database.upgrade`):
    `qbank serve`, the app's lifespan, `qbank db upgrade` and the other commands.
    """
    return Database.open(settings.database_url)
