"""seen counts: how many of each deck's active cards a learner has studied, kept by triggers

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02 11:10:00.000000

The study queue reads a learner's new cards from these counts instead of counting every card
state the learner has (app.infra.seencount). Filled from the states there are.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    from app.infra.seencount import create_triggers

    op.create_table(
        "seencount",
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("deck_id", sa.Integer(), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["deck_id"], ["deck.id"]),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("learner_id", "deck_id"),
    )
    op.create_index("ix_cardstate_card", "cardstate", ["card_id"])
    create_triggers(op.get_bind())


def downgrade() -> None:
    from app.infra.seencount import drop_triggers

    drop_triggers(op.get_bind())
    op.drop_index("ix_cardstate_card", table_name="cardstate")
    op.drop_table("seencount")
