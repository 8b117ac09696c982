"""search trigram indexes: SQLite FTS5 over the folded text, PostgreSQL pg_trgm GIN indexes

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01 19:50:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The same statements as a new database gets with its tables; filled from the entries.
    from app.infra.searchdb import create_indexes

    create_indexes(op.get_bind())


def downgrade() -> None:
    from app.infra.searchdb import drop_indexes

    drop_indexes(op.get_bind())
