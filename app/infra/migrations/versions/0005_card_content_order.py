"""card content order, deck card counts

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 20:40:00.000000
"""

from collections import Counter
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ordinal", sa.Integer(), server_default="0", nullable=False))
        batch_op.drop_index("ix_card_active_order")
        batch_op.create_index(
            "ix_card_content_order", ["retired", "ordinal", "deck_id"], unique=False
        )
    with op.batch_alter_table("deck", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("card_count", sa.Integer(), server_default="0", nullable=False)
        )
    # Number the cards and count each deck's active ones as an import does
    # (app.content.sync.number_cards): sorted here, not by the database, whose collation could
    # order paths differently.
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT card.id, card.deck_id, card.retired, deck.path, card.position "
            "FROM card JOIN deck ON deck.id = card.deck_id"
        )
    ).all()
    ordered = sorted(rows, key=lambda row: (row.path, row.position, row.id))
    if ordered:
        connection.execute(
            sa.text("UPDATE card SET ordinal = :ordinal WHERE id = :id"),
            [{"ordinal": n, "id": row.id} for n, row in enumerate(ordered)],
        )
    active = Counter(row.deck_id for row in rows if not row.retired)
    if active:
        connection.execute(
            sa.text("UPDATE deck SET card_count = :count WHERE id = :id"),
            [{"count": count, "id": deck_id} for deck_id, count in active.items()],
        )


def downgrade() -> None:
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.drop_index("ix_card_content_order")
        batch_op.create_index(
            "ix_card_active_order", ["retired", "deck_id", "position", "id"], unique=False
        )
        batch_op.drop_column("ordinal")
    with op.batch_alter_table("deck", schema=None) as batch_op:
        batch_op.drop_column("card_count")
