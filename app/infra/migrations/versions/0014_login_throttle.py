"""login throttle: one counter row per account and per address, in place of a row per failure

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 14:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "loginthrottle",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    # Failures are at most 15 minutes old: dropping them ends at most one lock-out early.
    op.drop_index("ix_loginfailure_client_at", table_name="loginfailure")
    op.drop_index("ix_loginfailure_account_at", table_name="loginfailure")
    op.drop_table("loginfailure")


def downgrade() -> None:
    op.create_table(
        "loginfailure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("client", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_loginfailure_account_at", "loginfailure", ["account", "at"])
    op.create_index("ix_loginfailure_client_at", "loginfailure", ["client", "at"])
    op.drop_table("loginthrottle")
