"""learner load balance and easy days

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 14:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Off and no easy days: existing learners keep plain fuzz until they choose otherwise.
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("load_balance", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(
            sa.Column("easy_days", sa.String(), server_default=sa.text("''"), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_column("easy_days")
        batch_op.drop_column("load_balance")
