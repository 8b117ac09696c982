"""source stamps: each imported file's size and modification time, so re-imports skip hashing

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03 14:10:00.000000

A re-import reads and hashes only the files whose stamp changed (app.content.notes.source.stamp).
Files imported before have an empty stamp: the next import reads them once more.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sourcefile") as batch:
        batch.add_column(
            sa.Column("stamp", sa.String(), nullable=False, server_default=sa.text("''"))
        )


def downgrade() -> None:
    with op.batch_alter_table("sourcefile") as batch:
        batch.drop_column("stamp")
