"""Schema migrations with Alembic: upgrade to head, adopting databases made before migrations.

Alembic is imported only when there is a schema to create or migrate. Finding a schema current,
which every start of a server and every one of its worker processes does, is one query.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import column, inspect, select, table
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BASELINE = "0001"
# The newest migration's revision: a new migration replaces it (tests/infra/test_migrations.py
# holds it to the scripts' head). Reading it from the scripts imports Alembic and every script,
# which took longer than the rest of a current schema's check.
HEAD = "0026"
VERSION_TABLE = "alembic_version"


def _config(connection: Connection) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


@cache
def _scripts() -> "ScriptDirectory":
    """The migration scripts, read once per process: a test run or a team's first start makes
    many new schemas, and reading every script again for each cost more than creating it."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(MIGRATIONS))


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def _at_head(connection: Connection, tables: set[str]) -> bool:
    """Whether the schema is stamped at HEAD, as Alembic's version table records it."""
    if VERSION_TABLE not in tables:
        return False
    versions = table(VERSION_TABLE, column("version_num"))
    return list(connection.execute(select(versions.c.version_num)).scalars()) == [HEAD]


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
    from alembic import command

    with _migrating(engine) as connection:
        config = _config(connection)
        tables = set(inspect(connection).get_table_names())
        if "card" in tables and VERSION_TABLE not in tables:
            # Made by create_all before migrations existed: it is exactly the baseline schema.
            command.stamp(config, BASELINE)
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to `revision` (to run an older qbank on this database)."""
    from alembic import command

    with _migrating(engine) as connection:
        command.downgrade(_config(connection), revision)


def prepare(engine: Engine) -> None:
    """Make the schema current: a new database is created at head, an old one is upgraded."""
    from sqlmodel import SQLModel

    from app.infra import models  # noqa: F401  (registers the tables)

    with engine.begin() as connection:
        tables = set(inspect(connection).get_table_names())
        if not tables & set(SQLModel.metadata.tables):
            from alembic.runtime.migration import MigrationContext

            # Creating from the models and stamping is the same schema as replaying every
            # migration (a test compares the two), and much faster.
            SQLModel.metadata.create_all(connection)
            MigrationContext.configure(connection).stamp(_scripts(), HEAD)
            return
        # A current database needs nothing, and upgrade would read every migration script.
        if _at_head(connection, tables):
            return
    upgrade(engine)


def revision(engine: Engine, message: str) -> None:
    """Autogenerate a new migration from the models (a development helper)."""
    from alembic import command

    with engine.begin() as connection:
        command.revision(_config(connection), message=message, autogenerate=True)
