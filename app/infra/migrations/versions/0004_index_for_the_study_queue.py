"""index for the study queue

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 19:22:08.827897
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.create_index(
            "ix_card_active_order", ["retired", "deck_id", "position", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.drop_index("ix_card_active_order")
