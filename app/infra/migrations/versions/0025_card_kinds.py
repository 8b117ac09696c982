"""card kinds: each card is basic, cloze or reversed; a cloze card keeps its front as a block

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-03 14:40:00.000000

Cards imported before are all basic. The import makes cloze and reversed cards from notes that
hold them on its next run, which this migration makes re-read every file.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not a batch: SQLite adds (and, since 3.35, drops) a column in place, and
# copying the card table would break the seen-count triggers that name it.
def upgrade() -> None:
    op.add_column(
        "card", sa.Column("kind", AutoString(length=16), server_default="basic", nullable=False)
    )
    op.add_column(
        "card", sa.Column("front_html", sa.Text(), server_default=sa.text("''"), nullable=False)
    )
    op.execute("DELETE FROM sourcefile")


def downgrade() -> None:
    op.drop_column("card", "front_html")
    op.drop_column("card", "kind")
    op.execute("DELETE FROM sourcefile")
