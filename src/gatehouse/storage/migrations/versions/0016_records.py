"""records a regulator can trust: the audit chain, retention, legal holds

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 18:00:00

Audit entries gain `seq` and `hash` (null until the sealer links them into the chain,
docs/audit-and-evidence.md); `audit_chain` holds the chain's head in one row. Tenants gain
their retention periods (docs/operations.md, "Retention"); `legal_holds` lists the
applications that are never erased while held. Entries written before this migration are
sealed by the first sealer that runs, oldest first.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("seq", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("hash", sa.String(length=64), nullable=True))
        batch.create_index("ix_audit_seq", ["seq"], unique=True)
    with op.batch_alter_table("tenants") as batch:
        batch.add_column(sa.Column("retention_rejected_days", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("retention_abandoned_days", sa.Integer(), nullable=True))
    chain = op.create_table(
        "audit_chain",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("sealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.bulk_insert(chain, [{"id": 1, "seq": 0, "hash": "0" * 64, "sealed_at": None}])
    op.create_table(
        "legal_holds",
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("placed_by", sa.String(length=80), nullable=False),
        sa.Column("placed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["application_id"], ["applications.id"]),
        sa.PrimaryKeyConstraint("application_id"),
    )


def downgrade() -> None:
    op.drop_table("legal_holds")
    op.drop_table("audit_chain")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("retention_abandoned_days")
        batch.drop_column("retention_rejected_days")
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_index("ix_audit_seq")
        batch.drop_column("hash")
        batch.drop_column("seq")
