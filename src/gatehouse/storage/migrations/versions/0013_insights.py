"""the insights: when each application was first signed in to, and two indexes

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 18:00:00

`GET /staff/v1/insights` (docs/insights.md "Speed") counts the applications created in a
period whose portal was opened, a tenant's applications created in a period, and the
decision-history entries made in a period. `applications.signed_in_at` (set at the first
portal sign-in, filled here from the portal sessions already recorded) lets the funnel read one
table. Four indexes, the same on SQLite and PostgreSQL: the applications by creation with
every column the funnel reads (an index-only scan), the open applications by tenant and
creation and the decided ones with what the time to decision reads (both partial), and the
history by time with the columns the decisions by staff member read.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# As the migration wrote them (the models in storage/tables/applications.py say the same).
INSIGHTS_COLUMNS = (
    "created_at",
    "tenant_id",
    "label_id",
    "status",
    "submitted_at",
    "signed_in_at",
    "status_changed_at",
)
OPEN_PREDICATE = "status NOT IN ('active', 'rejected') AND erased_at IS NULL"
DECIDED_PREDICATE = "status IN ('active', 'rejected')"

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "applications", sa.Column("signed_in_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.execute(
        "UPDATE applications SET signed_in_at = (SELECT min(p.created_at) FROM portal_sessions p "
        "WHERE p.application_id = applications.id) "
        "WHERE EXISTS (SELECT 1 FROM portal_sessions p WHERE p.application_id = applications.id)"
    )
    op.create_index("ix_applications_insights_created", "applications", list(INSIGHTS_COLUMNS))
    op.create_index(
        "ix_applications_insights_open",
        "applications",
        ["tenant_id", "created_at", "label_id"],
        postgresql_where=sa.text(OPEN_PREDICATE),
        sqlite_where=sa.text(OPEN_PREDICATE),
    )
    op.create_index(
        "ix_applications_insights_decided",
        "applications",
        ["created_at", "tenant_id", "label_id", "status_changed_at"],
        postgresql_where=sa.text(DECIDED_PREDICATE),
        sqlite_where=sa.text(DECIDED_PREDICATE),
    )
    op.create_index(
        "ix_decisions_insights_at", "decisions", ["at", "action", "by_staff_id", "application_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_decisions_insights_at", table_name="decisions")
    op.drop_index("ix_applications_insights_decided", table_name="applications")
    op.drop_index("ix_applications_insights_open", table_name="applications")
    op.drop_index("ix_applications_insights_created", table_name="applications")
    with op.batch_alter_table("applications") as batch:
        batch.drop_column("signed_in_at")
