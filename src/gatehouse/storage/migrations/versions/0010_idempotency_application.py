"""idempotency records name their application, so erasure reaches remembered answers

Revision ID: 0010
Revises: 0007
Create Date: 2026-11-24 07:15:00

`idempotency_records.application_id`: the application a remembered answer is about, so
erasing it can drop the answer (docs/documents.md §6). Records written before this revision
have none; they expire within 24 hours of their request.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("idempotency_records") as batch:
        batch.add_column(sa.Column("application_id", sa.String(length=40), nullable=True))
        batch.create_index(
            batch.f("ix_idempotency_records_application_id"), ["application_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("idempotency_records") as batch:
        batch.drop_index(batch.f("ix_idempotency_records_application_id"))
        batch.drop_column("application_id")
