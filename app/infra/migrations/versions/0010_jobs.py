"""job: background work with its status (app.infra.jobs)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "job",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("result", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("active_key", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_job_learner_kind", "job", ["learner_id", "kind", "id"], unique=False)
    op.create_index("ix_job_active_key", "job", ["active_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_job_active_key", table_name="job")
    op.drop_index("ix_job_learner_kind", table_name="job")
    op.drop_table("job")
