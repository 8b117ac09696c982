"""accounts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 16:56:56.658701
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "loginfailure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("client", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("loginfailure", schema=None) as batch_op:
        batch_op.create_index("ix_loginfailure_account_at", ["account", "at"], unique=False)
        batch_op.create_index("ix_loginfailure_client_at", ["client", "at"], unique=False)

    op.create_table(
        "apitoken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("prefix", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learner.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_apitoken_learner_id"), ["learner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_apitoken_token_hash"), ["token_hash"], unique=True)

    op.create_table(
        "authsession",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("csrf_token", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learner.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("authsession", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_authsession_learner_id"), ["learner_id"], unique=False)

    op.create_table(
        "invite",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["learner.id"],
        ),
        sa.ForeignKeyConstraint(
            ["used_by"],
            ["learner.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch_op.add_column(
            sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_column("disabled")
        batch_op.drop_column("is_admin")
        batch_op.drop_column("password_hash")

    op.drop_table("invite")
    with op.batch_alter_table("authsession", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_authsession_learner_id"))

    op.drop_table("authsession")
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_apitoken_token_hash"))
        batch_op.drop_index(batch_op.f("ix_apitoken_learner_id"))

    op.drop_table("apitoken")
    with op.batch_alter_table("loginfailure", schema=None) as batch_op:
        batch_op.drop_index("ix_loginfailure_client_at")
        batch_op.drop_index("ix_loginfailure_account_at")

    op.drop_table("loginfailure")
