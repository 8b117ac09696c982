"""indexes for the study queue: due cards by state, ratings of the day

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29 23:10:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_cardstate_learner_state_due",
        "cardstate",
        ["learner_id", "state", "due", "card_id"],
        unique=False,
    )
    op.create_index(
        "ix_reviewlog_study_day",
        "reviewlog",
        ["learner_id", "mode", "queue", "reviewed_at", "undone_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_reviewlog_study_day", table_name="reviewlog")
    op.drop_index("ix_cardstate_learner_state_due", table_name="cardstate")
