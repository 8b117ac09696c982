"""Shared test helpers (from test_migrations.py)."""

from sqlalchemy.engine import Engine


def triggers(engine: Engine) -> list[str]:
    """The triggers' names (which the inspector does not report)."""
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        else:
            query = (
                "SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE NOT tgisinternal AND c.relnamespace = current_schema()::regnamespace"
            )
        return sorted(row[0] for row in connection.exec_driver_sql(query))
