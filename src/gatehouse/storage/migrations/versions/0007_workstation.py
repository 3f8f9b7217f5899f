"""the reviewer's workstation: notes, assignment, status age, reminders, queue indexes

Revision ID: 0007
Revises: 0009
Create Date: 2026-11-24 12:00:00

Numbered 0007 but applied after 0009: 0008 (sandbox) took the place after 0006 and 0009
(portal branding) followed it while this revision was written, so it follows the head it found.

- `applications.status_changed_at`: when the status last changed, kept by every status change
  from now on; existing rows take their `updated_at` (the last change of any kind, the best
  bound the database holds). `applications.assigned_to`: the staff member who has the case.
- `decisions.acknowledgement` and `decisions.acknowledged_items`: a proposal made while
  required checklist items were unsatisfied. `info_requests.reminded_at`: the last reminder.
- `case_notes`: internal notes on a case.
- Indexes for the staff queue's sorts and filters (docs/workstation.md "Speed"). On PostgreSQL
  the search uses trigram GIN indexes on the lowered company name, email and external ref:
  the migration enables pg_trgm when it may (`CREATE EXTENSION IF NOT EXISTS`, in a savepoint)
  and makes those indexes only when the extension is there. Without it the search still works,
  by scanning; an operator can enable the extension and run `gatehouse migrate` again after
  downgrading to 0009, or create the indexes by hand (docs/workstation.md "Speed").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.exc import DBAPIError

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The searched columns and the trigram index of each (PostgreSQL with pg_trgm only).
SEARCH_INDEXES = {
    "ix_applications_search_company": "company_name",
    "ix_applications_search_email": "applicant_email",
    "ix_applications_search_ref": "external_ref",
}
QUEUE_INDEXES = {
    "ix_applications_queue_updated": ["updated_at", "id"],
    "ix_applications_queue_created": ["created_at", "id"],
    "ix_applications_queue_status": ["status", "created_at", "id"],
    "ix_applications_queue_assignee": ["assigned_to", "created_at", "id"],
    "ix_applications_queue_intake": ["label_id", "created_at", "id"],
}


def _trigrams_available() -> bool:
    """Enable pg_trgm if this role may; whether it is there now."""
    bind = op.get_bind()
    try:
        with bind.begin_nested():
            bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except DBAPIError:
        pass  # not permitted here: the search scans instead
    found = bind.execute(sa.text("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'"))
    return found.first() is not None


def upgrade() -> None:
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status_changed_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("assigned_to", sa.String(length=40), nullable=True))
    applications = sa.table(
        "applications",
        sa.column("status_changed_at", sa.DateTime(timezone=True)),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )
    op.execute(applications.update().values(status_changed_at=applications.c.updated_at))
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.alter_column(
            "status_changed_at", existing_type=sa.DateTime(timezone=True), nullable=False
        )
        for name, columns in QUEUE_INDEXES.items():
            batch_op.create_index(name, columns, unique=False)
    with op.batch_alter_table("decisions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("acknowledgement", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("acknowledged_items", sa.JSON(), nullable=True))
    with op.batch_alter_table("info_requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reminded_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "case_notes",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("application_id", sa.String(length=40), nullable=False),
        sa.Column("author_staff_id", sa.String(length=40), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.id"],
            name=op.f("fk_case_notes_application_id_applications"),
        ),
        sa.ForeignKeyConstraint(
            ["author_staff_id"],
            ["staff_members.id"],
            name=op.f("fk_case_notes_author_staff_id_staff_members"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_case_notes")),
    )
    op.create_index(
        "ix_case_notes_application",
        "case_notes",
        ["application_id", "created_at", "id"],
        unique=False,
    )
    if op.get_bind().dialect.name == "postgresql" and _trigrams_available():
        for name, column in SEARCH_INDEXES.items():
            op.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON applications "
                f"USING gin (lower({column}) gin_trgm_ops)"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in SEARCH_INDEXES:
            op.execute(f"DROP INDEX IF EXISTS {name}")
    op.drop_index("ix_case_notes_application", table_name="case_notes")
    op.drop_table("case_notes")
    with op.batch_alter_table("info_requests", schema=None) as batch_op:
        batch_op.drop_column("reminded_at")
    with op.batch_alter_table("decisions", schema=None) as batch_op:
        batch_op.drop_column("acknowledged_items")
        batch_op.drop_column("acknowledgement")
    with op.batch_alter_table("applications", schema=None) as batch_op:
        for name in QUEUE_INDEXES:
            batch_op.drop_index(name)
        batch_op.drop_column("assigned_to")
        batch_op.drop_column("status_changed_at")
