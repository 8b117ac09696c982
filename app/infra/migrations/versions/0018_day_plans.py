"""day plans: today's interview plan per learner, kept in the database for every worker

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01 17:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dayplan",
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("basis", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("card_ids", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("learner_id", "day"),
    )


def downgrade() -> None:
    op.drop_table("dayplan")
