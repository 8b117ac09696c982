"""compiled forms: a card's plain text, key points and Anki fields stored at import

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02 08:30:00.000000

The import compiles each card once into every form its readers need; the plain-text columns
that nothing read (card.search_text, topic.search_text) go. Rows imported before hold empty
forms until the next import, which this migration makes re-read every file (the source file
hashes are forgotten) and rewrite every card (the stored fingerprints carry a compile version).
Search keeps its entries meanwhile.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = {
    "card": ("question_text", "extra_text"),
    "followup": ("question_anki", "answer_anki"),
    "topic": ("body_text", "extra_text", "reading_text"),
}
_JSON = {"key_points": "'[]'", "anki_fields": "'{}'", "anki_media": "'{}'"}


def upgrade() -> None:
    for table, columns in _TEXT.items():
        with op.batch_alter_table(table) as batch_op:
            for name in columns:
                batch_op.add_column(
                    sa.Column(name, sa.Text(), server_default=sa.text("''"), nullable=False)
                )
            if table in ("card", "topic"):
                batch_op.drop_column("search_text")
    with op.batch_alter_table("card") as batch_op:
        for name, empty in _JSON.items():
            batch_op.add_column(
                sa.Column(name, sa.JSON(), server_default=sa.text(empty), nullable=False)
            )
        batch_op.add_column(
            sa.Column("formula_count", sa.Integer(), server_default="0", nullable=False)
        )
    # The JSON defaults only filled the rows there were; the models give new rows theirs.
    with op.batch_alter_table("card") as batch_op:
        for name in _JSON:
            batch_op.alter_column(name, existing_type=sa.JSON(), server_default=None)
    op.execute("DELETE FROM sourcefile")


def downgrade() -> None:
    with op.batch_alter_table("card") as batch_op:
        for name in (*_JSON, "formula_count"):
            batch_op.drop_column(name)
    for table, columns in _TEXT.items():
        with op.batch_alter_table(table) as batch_op:
            for name in columns:
                batch_op.drop_column(name)
            if table in ("card", "topic"):
                batch_op.add_column(
                    sa.Column("search_text", sa.Text(), server_default="", nullable=False)
                )
        if table in ("card", "topic"):
            with op.batch_alter_table(table) as batch_op:
                batch_op.alter_column("search_text", existing_type=sa.Text(), server_default=None)
    op.execute("DELETE FROM sourcefile")
