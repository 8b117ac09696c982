"""Alembic environment: runs on the connection handed over by app.infra.migrate."""

from alembic import context
from sqlmodel import SQLModel

from app.infra import models  # noqa: F401  (registers the tables)
from app.infra.searchdb import include_name

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    # SQLite cannot ALTER most things in place; batch mode rebuilds tables instead.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    include_name=include_name,
)
with context.begin_transaction():
    context.run_migrations()
