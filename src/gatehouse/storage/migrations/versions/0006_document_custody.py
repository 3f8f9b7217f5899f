"""document custody: sealed data keys and the database store

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 12:00:00

Documents uploaded before this revision keep their bytes in `documents.content`: they stay
readable, and `gatehouse keys rotate` moves each of them into the configured store, encrypted
under a data key of its own, and clears the column (docs/documents.md, "Upgrading").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "document_custody",
        sa.Column("document_id", sa.String(length=40), nullable=False),
        sa.Column("store", sa.String(length=300), nullable=False),
        sa.Column("object_key", sa.String(length=200), nullable=False),
        sa.Column("data_key_encrypted", sa.Text(), nullable=True),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("stored_size", sa.Integer(), nullable=False),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents.id"],
            name=op.f("fk_document_custody_document_id_documents"),
        ),
        sa.PrimaryKeyConstraint("document_id", name=op.f("pk_document_custody")),
    )
    op.create_table(
        "document_blobs",
        sa.Column("object_key", sa.String(length=200), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("object_key", "part", name=op.f("pk_document_blobs")),
    )


def downgrade() -> None:
    op.drop_table("document_blobs")
    op.drop_table("document_custody")
