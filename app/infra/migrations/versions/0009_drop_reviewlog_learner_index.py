"""drop ix_reviewlog_learner_id: ix_reviewlog_learner_time and ix_reviewlog_study_day start with it

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 04:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_reviewlog_learner_id", table_name="reviewlog")


def downgrade() -> None:
    op.create_index("ix_reviewlog_learner_id", "reviewlog", ["learner_id"], unique=False)
