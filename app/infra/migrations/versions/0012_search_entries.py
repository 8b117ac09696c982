"""search entries: normalised text per card and topic and field group

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = (
    "label",
    "title",
    "body",
    "extra",
    "reading",
    "title_folded",
    "body_folded",
    "extra_folded",
    "reading_folded",
)


def upgrade() -> None:
    # Empty at first: the next import (every start runs one) fills it from the bank.
    op.create_table(
        "searchentry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("deck_id", sa.Integer(), nullable=True),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("source_hash", sa.String(), nullable=False),
        *(sa.Column(name, sa.Text(), nullable=False) for name in _TEXT),
        sa.ForeignKeyConstraint(["deck_id"], ["deck.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "key"),
    )
    op.create_index("ix_searchentry_deck_id", "searchentry", ["deck_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_searchentry_deck_id", table_name="searchentry")
    op.drop_table("searchentry")
