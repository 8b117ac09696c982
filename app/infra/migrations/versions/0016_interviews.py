"""interviews: their dates and scopes, study pins, mock interviews, their answers and recordings

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 14:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "interview",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("name", String(length=200), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("deck", String(length=200), nullable=True),
        sa.Column("section", String(length=500), nullable=True),
        sa.Column("tag", String(length=200), nullable=True),
        sa.Column("target", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_interview_learner_id", "interview", ["learner_id"], unique=False)
    op.create_table(
        "studypin",
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("card_id", String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("source", String(), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["card.id"]),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("learner_id", "day", "card_id"),
    )
    op.create_table(
        "mocksession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("card_ids", sa.JSON(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("seconds_per_question", sa.Integer(), nullable=False),
        sa.Column("followup_seconds", sa.Integer(), nullable=False),
        sa.Column("order", String(), nullable=False),
        sa.Column("label", String(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_mocksession_learner_id", "mocksession", ["learner_id"], unique=False)
    op.create_table(
        "mockanswer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("mock_id", sa.Integer(), nullable=False),
        sa.Column("card_id", String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("answer_ms", sa.Integer(), nullable=False),
        sa.Column("total_ms", sa.Integer(), nullable=False),
        sa.Column("limit_ms", sa.Integer(), nullable=False),
        sa.Column("points_total", sa.Integer(), nullable=False),
        sa.Column("points_said", sa.JSON(), nullable=False),
        sa.Column("followups_total", sa.Integer(), nullable=False),
        sa.Column("followups_answered", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["card.id"]),
        sa.ForeignKeyConstraint(["mock_id"], ["mocksession.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("mock_id", "card_id"),
    )
    op.create_index("ix_mockanswer_mock_id", "mockanswer", ["mock_id"], unique=False)
    op.create_table(
        "recording",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("mock_id", sa.Integer(), nullable=False),
        sa.Column("card_id", String(), nullable=False),
        sa.Column("mime", String(length=100), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["card.id"]),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"]),
        sa.ForeignKeyConstraint(["mock_id"], ["mocksession.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("mock_id", "card_id"),
    )
    op.create_index("ix_recording_learner_id", "recording", ["learner_id"], unique=False)
    op.create_index("ix_recording_mock_id", "recording", ["mock_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_recording_mock_id", table_name="recording")
    op.drop_index("ix_recording_learner_id", table_name="recording")
    op.drop_table("recording")
    op.drop_index("ix_mockanswer_mock_id", table_name="mockanswer")
    op.drop_table("mockanswer")
    op.drop_index("ix_mocksession_learner_id", table_name="mocksession")
    op.drop_table("mocksession")
    op.drop_table("studypin")
    op.drop_index("ix_interview_learner_id", table_name="interview")
    op.drop_table("interview")
