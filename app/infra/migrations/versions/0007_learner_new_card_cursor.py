"""learner new-card cursor

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 00:15:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # 0 is always a valid cursor: the queue then looks from the start of the bank.
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("new_cursor", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_column("new_cursor")
