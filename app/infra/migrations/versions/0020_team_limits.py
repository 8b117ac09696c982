"""team limits: an administrator's recording quota per member

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 04:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "teamlimits",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("recording_quota_mb", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("teamlimits")
