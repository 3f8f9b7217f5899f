"""screening and risk: watchlists, their blocking index, screening jobs and hits, intake
screening settings and application risk

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 18:00:00

New tables only (docs/screening.md): `screening_lists` (one row per list, naming the load in
force), `screening_generations` (one per load), `screening_entities` and `screening_keys` (a
load's entities and blocking keys), `screening_jobs` (the queue of pending screenings),
`screening_states` (what an application's last screening looked at), `screening_hits`,
`intake_screening` (an intake's screening mapping and risk rules) and `application_risk`.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from gatehouse.storage.base import UTCDateTime

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "screening_lists",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("entities", sa.Integer(), nullable=False),
        sa.Column("loaded_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_screening_lists")),
    )
    op.create_table(
        "screening_generations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("list_name", sa.String(length=100), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_screening_generations")),
    )
    op.create_table(
        "screening_entities",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("entity_id", sa.String(length=200), nullable=False),
        sa.Column("schema", sa.String(length=40), nullable=False),
        sa.Column("caption", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_screening_entities")),
    )
    op.create_index(op.f("ix_screening_entities_generation"), "screening_entities", ["generation"])
    op.create_table(
        "screening_keys",
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("key", sa.BigInteger(), nullable=False),
        sa.Column("entity", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("generation", "key", "entity", name=op.f("pk_screening_keys")),
    )
    _application_tables()


def _application_tables() -> None:
    op.create_table(
        "screening_jobs",
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("force", sa.Boolean(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("due_at", UTCDateTime(), nullable=False),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
        sa.Column("lease_token", sa.String(length=40), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.id"],
            name=op.f("fk_screening_jobs_application_id_applications"),
        ),
        sa.PrimaryKeyConstraint("application_id", name=op.f("pk_screening_jobs")),
    )
    op.create_index(op.f("ix_screening_jobs_due_at"), "screening_jobs", ["due_at"])
    op.create_table(
        "screening_states",
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("basis", sa.String(length=64), nullable=False),
        sa.Column("screened_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.id"],
            name=op.f("fk_screening_states_application_id_applications"),
        ),
        sa.PrimaryKeyConstraint("application_id", name=op.f("pk_screening_states")),
    )
    op.create_table(
        "screening_hits",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("subject_kind", sa.String(length=20), nullable=False),
        sa.Column("subject_field", sa.String(length=100), nullable=False),
        sa.Column("subject_name", sa.Text(), nullable=False),
        sa.Column("list_name", sa.String(length=100), nullable=False),
        sa.Column("entity_id", sa.String(length=200), nullable=False),
        sa.Column("entity_digest", sa.String(length=64), nullable=False),
        sa.Column("entity", sa.JSON(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("explanation", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("resolved_by", sa.String(length=40), nullable=True),
        sa.Column("resolved_at", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.id"],
            name=op.f("fk_screening_hits_application_id_applications"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_screening_hits")),
        sa.UniqueConstraint(
            "application_id",
            "subject_field",
            "list_name",
            "entity_id",
            name=op.f("uq_screening_hits_application_id_subject_field_list_name_entity_id"),
        ),
    )
    op.create_index(
        "ix_screening_hits_open", "screening_hits", ["application_id", "current", "status"]
    )
    op.create_table(
        "intake_screening",
        sa.Column("intake_id", sa.String(length=40), nullable=False),
        sa.Column("screening", sa.JSON(), nullable=False),
        sa.Column("risk_rules", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["intake_id"], ["intakes.id"], name=op.f("fk_intake_screening_intake_id_intakes")
        ),
        sa.PrimaryKeyConstraint("intake_id", name=op.f("pk_intake_screening")),
    )
    op.create_table(
        "application_risk",
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("computed_level", sa.String(length=10), nullable=False),
        sa.Column("level", sa.String(length=10), nullable=False),
        sa.Column("factors", sa.JSON(), nullable=False),
        sa.Column("computed_at", UTCDateTime(), nullable=False),
        sa.Column("override_level", sa.String(length=10), nullable=True),
        sa.Column("override_reason", sa.Text(), nullable=True),
        sa.Column("override_by", sa.String(length=40), nullable=True),
        sa.Column("override_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.id"],
            name=op.f("fk_application_risk_application_id_applications"),
        ),
        sa.PrimaryKeyConstraint("application_id", name=op.f("pk_application_risk")),
    )
    op.create_index(
        op.f("ix_application_risk_computed_level"), "application_risk", ["computed_level"]
    )
    op.create_index(op.f("ix_application_risk_level"), "application_risk", ["level"])


def downgrade() -> None:
    for table in (
        "application_risk",
        "intake_screening",
        "screening_hits",
        "screening_states",
        "screening_jobs",
        "screening_keys",
        "screening_entities",
        "screening_generations",
        "screening_lists",
    ):
        op.drop_table(table)
