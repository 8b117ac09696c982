"""search entries enter SQLite's trigram index in one statement per write, not by a trigger

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04 20:00:00.000000

The import now indexes the entries it adds itself (app.infra.searchdb.index_added); with the
insert trigger still there, each new entry would be indexed twice. PostgreSQL has no trigger.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = "title_folded, body_folded, extra_folded, reading_folded"
_NEW = ", ".join(f"new.{column.strip()}" for column in _COLUMNS.split(","))


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS searchentry_fts_insert")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TRIGGER IF NOT EXISTS searchentry_fts_insert AFTER INSERT ON searchentry BEGIN"
            f" INSERT INTO searchentry_fts(rowid, {_COLUMNS}) VALUES (new.id, {_NEW}); END"
        )
