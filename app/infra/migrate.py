"""Schema migrations with Alembic: upgrade to head, adopting databases made before migrations."""

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BASELINE = "0001"


def _config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


@functools.cache
def _head() -> str | None:
    """The newest migration's revision: the scripts are read once per process."""
    return ScriptDirectory(str(MIGRATIONS)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@contextmanager
def _migrating(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction to migrate on; SQLite checks foreign keys at the end.

    SQLite batch migrations rebuild a table (copy it, drop it, rename the copy), and dropping
    a table that other rows reference fails while foreign keys are enforced row by row.
    """
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")  # ignored inside a transaction
            connection.commit()
        try:
            with connection.begin():
                yield connection
                check = "PRAGMA foreign_key_check" if sqlite else None
                if check and (rows := connection.exec_driver_sql(check).all()):
                    raise RuntimeError(f"the migration broke foreign keys: {rows[:5]}")
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision`; a pre-migration database is adopted at the baseline."""
    with _migrating(engine) as connection:
        config = _config(connection)
        tables = set(inspect(connection).get_table_names())
        if "card" in tables and "alembic_version" not in tables:
            # Made by create_all before migrations existed: it is exactly the baseline schema.
            command.stamp(config, BASELINE)
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to `revision` (to run an older qbank on this database)."""
    with _migrating(engine) as connection:
        command.downgrade(_config(connection), revision)


def prepare(engine: Engine) -> None:
    """Make the schema current: a new database is created at head, an old one is upgraded."""
    from sqlmodel import SQLModel

    from app.infra import models  # noqa: F401  (registers the tables)

    with engine.begin() as connection:
        tables = set(inspect(connection).get_table_names())
        if not tables & set(SQLModel.metadata.tables):
            # Creating from the models and stamping is the same schema as replaying every
            # migration (a test compares the two), and much faster.
            SQLModel.metadata.create_all(connection)
            command.stamp(_config(connection), "head")
            return
        # A current database needs nothing, and upgrade would read every migration script.
        if MigrationContext.configure(connection).get_current_revision() == _head():
            return
    upgrade(engine)


def revision(engine: Engine, message: str) -> None:
    """Autogenerate a new migration from the models (a development helper)."""
    with engine.begin() as connection:
        command.revision(_config(connection), message=message, autogenerate=True)
