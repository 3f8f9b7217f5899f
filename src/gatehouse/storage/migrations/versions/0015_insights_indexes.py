"""indexes for the insights: applications by tenant and creation, decisions by time

Revision ID: 0015
Revises: 0011
Create Date: 2026-11-26 18:00:00

`GET /staff/v1/insights` (docs/insights.md "Speed") counts a tenant's applications created in
a period, and the decision-history entries made in a period. The first is served by
(tenant_id, created_at), the second by (at). Both plain B-tree indexes, the same on SQLite and
PostgreSQL.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_applications_insights_created", "applications", ["tenant_id", "created_at", "id"]
    )
    op.create_index("ix_decisions_insights_at", "decisions", ["at", "id"])


def downgrade() -> None:
    op.drop_index("ix_decisions_insights_at", table_name="decisions")
    op.drop_index("ix_applications_insights_created", table_name="applications")
