"""idempotent ratings and undos: the client's key on each review log entry

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("reviewlog") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("undo_key", sa.String(length=100), nullable=True))
    op.create_index(
        "ix_reviewlog_idempotency_key",
        "reviewlog",
        ["learner_id", "idempotency_key"],
        unique=True,
    )
    op.create_index("ix_reviewlog_undo_key", "reviewlog", ["learner_id", "undo_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_reviewlog_undo_key", table_name="reviewlog")
    op.drop_index("ix_reviewlog_idempotency_key", table_name="reviewlog")
    with op.batch_alter_table("reviewlog") as batch:
        batch.drop_column("undo_key")
        batch.drop_column("idempotency_key")
