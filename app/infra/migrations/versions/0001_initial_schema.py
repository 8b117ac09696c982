"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 16:56:27.731377
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deck",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("intro_html", sa.Text(), nullable=False),
        sa.Column("language", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("retired", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("deck", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deck_slug"), ["slug"], unique=True)

    op.create_table(
        "learner",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("desired_retention", sa.Float(), nullable=False),
        sa.Column("new_per_day", sa.Integer(), nullable=False),
        sa.Column("max_reviews_per_day", sa.Integer(), nullable=False),
        sa.Column("rollover_hour", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_learner_name"), ["name"], unique=True)

    op.create_table(
        "sourcefile",
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("path"),
    )
    op.create_table(
        "topic",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("aliases", sa.JSON(), nullable=False),
        sa.Column("summary", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("body_html", sa.Text(), nullable=False),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("topic", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_topic_slug"), ["slug"], unique=True)

    op.create_table(
        "card",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("deck_id", sa.Integer(), nullable=False),
        sa.Column("section", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("question", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("question_html", sa.Text(), nullable=False),
        sa.Column("answer_html", sa.Text(), nullable=False),
        sa.Column("followups_html", sa.Text(), nullable=False),
        sa.Column("pitfalls_html", sa.Text(), nullable=False),
        sa.Column("answer_text", sa.Text(), nullable=False),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("source_path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("source_line", sa.Integer(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("retired", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["deck_id"],
            ["deck.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_card_deck_id"), ["deck_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_card_retired"), ["retired"], unique=False)

    op.create_table(
        "practicesession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("card_ids", sa.JSON(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("seconds_per_card", sa.Integer(), nullable=False),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learner.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("id", "learner_id"),
    )
    with op.batch_alter_table("practicesession", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_practicesession_learner_id"), ["learner_id"], unique=False
        )

    op.create_table(
        "cardlink",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("target", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("external", sa.Boolean(), nullable=False),
        sa.Column("topic_slug", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["card.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("cardlink", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cardlink_card_id"), ["card_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cardlink_topic_slug"), ["topic_slug"], unique=False)

    op.create_table(
        "cardstate",
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reps", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["card.id"],
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learner.id"],
        ),
        sa.PrimaryKeyConstraint("learner_id", "card_id"),
    )
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.create_index("ix_cardstate_learner_due", ["learner_id", "due"], unique=False)

    op.create_table(
        "reviewlog",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("mode", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("queue", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("practice_id", sa.Integer(), nullable=True),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("state_before", sa.JSON(), nullable=True),
        sa.Column("state_after", sa.JSON(), nullable=True),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["card.id"],
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learner.id"],
        ),
        sa.ForeignKeyConstraint(
            ["practice_id"],
            ["practicesession.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("reviewlog", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_reviewlog_card_id"), ["card_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_reviewlog_learner_id"), ["learner_id"], unique=False)
        batch_op.create_index(
            "ix_reviewlog_learner_time", ["learner_id", "reviewed_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_reviewlog_practice_id"), ["practice_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("reviewlog", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_reviewlog_practice_id"))
        batch_op.drop_index("ix_reviewlog_learner_time")
        batch_op.drop_index(batch_op.f("ix_reviewlog_learner_id"))
        batch_op.drop_index(batch_op.f("ix_reviewlog_card_id"))

    op.drop_table("reviewlog")
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.drop_index("ix_cardstate_learner_due")

    op.drop_table("cardstate")
    with op.batch_alter_table("cardlink", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cardlink_topic_slug"))
        batch_op.drop_index(batch_op.f("ix_cardlink_card_id"))

    op.drop_table("cardlink")
    with op.batch_alter_table("practicesession", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_practicesession_learner_id"))

    op.drop_table("practicesession")
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_card_retired"))
        batch_op.drop_index(batch_op.f("ix_card_deck_id"))

    op.drop_table("card")
    with op.batch_alter_table("topic", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_topic_slug"))

    op.drop_table("topic")
    op.drop_table("sourcefile")
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_learner_name"))

    op.drop_table("learner")
    with op.batch_alter_table("deck", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deck_slug"))

    op.drop_table("deck")
