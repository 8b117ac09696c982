"""followup: a card's follow-up questions with their answers

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "followup",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("question_html", sa.Text(), nullable=False),
        sa.Column("answer_html", sa.Text(), nullable=False),
        sa.Column("source_line", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["card.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_followup_card_id"), "followup", ["card_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_followup_card_id"), table_name="followup")
    op.drop_table("followup")
