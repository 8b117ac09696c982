"""interview folder: an interview scoped to a folder of notes

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 08:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("interview") as batch:
        batch.add_column(sa.Column("folder", AutoString(length=500), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("interview") as batch:
        batch.drop_column("folder")
