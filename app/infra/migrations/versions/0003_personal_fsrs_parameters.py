"""personal fsrs parameters

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 17:26:42.527102
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Both columns are nullable (None: the FSRS defaults), so existing rows need no default.
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fsrs_parameters", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("fsrs_optimized_at", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_column("fsrs_optimized_at")
        batch_op.drop_column("fsrs_parameters")
