"""card marks (suspend, bury, flag, leech) and the learner's leech, custom-study and zone settings

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01 14:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cardmark",
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("suspended", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("buried_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("flag", sa.Integer(), server_default="0", nullable=False),
        sa.Column("leech", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["card.id"]),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("learner_id", "card_id"),
    )
    op.create_index("ix_cardmark_learner_flag", "cardmark", ["learner_id", "flag"], unique=False)
    with op.batch_alter_table("learner") as batch:
        batch.add_column(
            sa.Column("leech_threshold", sa.Integer(), server_default="8", nullable=False)
        )
        batch.add_column(
            sa.Column(
                "leech_action",
                sqlmodel.sql.sqltypes.AutoString(),
                server_default="suspend",
                nullable=False,
            )
        )
        batch.add_column(sa.Column("extra_new", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("extra_new_day", sa.Date(), nullable=True))
        batch.add_column(
            sa.Column("timezone_chosen", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("learner") as batch:
        batch.drop_column("timezone_chosen")
        batch.drop_column("extra_new_day")
        batch.drop_column("extra_new")
        batch.drop_column("leech_action")
        batch.drop_column("leech_threshold")
    op.drop_index("ix_cardmark_learner_flag", table_name="cardmark")
    op.drop_table("cardmark")
